/**
 * The child process behind `universe-run.ts`: checks universes with {@link checkUniverse}
 * in a plain Node process, outside vitest, whose module runner turns every call the spec
 * makes into an imported function into a getter lookup, which makes this loop over tens of
 * millions of states six times slower. Usage: `node --import tsx
 * test/proofs/universe-child.ts '<json list of runs>'` (`checkUniverses` runs it bundled);
 * prints the results as JSON, in the same order. Not a test file.
 */
import { fileURLToPath } from 'node:url';
import { compile, type Fault, type Variant } from '../../spec/index.ts';
import { checkUniverse } from './enumerate.ts';

/** One universe to check: 2 pages, A (1 page), B (2 pages, prefix `sys`). */
export interface UniverseRun {
  /** The variant. */
  readonly variant: Variant;
  /** The faults switched on. */
  readonly faults: readonly Fault[];
  /** P's prefill limit: 1 stubs B, 2 prefills it. */
  readonly prefillLimit: number;
  /** A strengthening conjunct to leave out. */
  readonly drop?: number;
}

/** The universe's model. */
export function universeModel(run: UniverseRun) {
  return compile({
    pages: 2,
    prefillLimit: run.prefillLimit,
    requests: [
      { name: 'A', length: 1 },
      { name: 'B', length: 2, prefix: 'sys' },
    ],
    variant: run.variant,
    faults: run.faults,
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const runs = JSON.parse(process.argv[2] ?? '[]') as UniverseRun[];
  const results = runs.map((run) => checkUniverse(universeModel(run), run.drop));
  process.stdout.write(JSON.stringify(results));
}
