/**
 * The child process behind `universe-run.ts`: checks universes with {@link checkUniverse}
 * in a plain Node process, outside vitest, whose module runner turns every call the spec
 * makes into an imported function into a getter lookup, which makes this loop over tens of
 * millions of states six times slower. Usage: `node --import tsx
 * test/proofs/universe-child.ts '<json request>'` (`universe-run.ts` runs it bundled);
 * prints the results as JSON, in the same order. A request is a list of universes, or
 * configurations whose reachable states to check (`{ "reachable": [...] }`, with
 * `"dispatch": true` also whether the spec's dispatch agrees with `step` on them). Not a test file.
 */
import { fileURLToPath } from 'node:url';
import { compile, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { checkReachable, checkUniverse, dispatchAgrees, reachableStates } from './enumerate.ts';

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

/** Configurations whose reachable states the child checks against the invariant (and `dispatch`: whether TRANSITIONS agrees with `step` on them). */
export interface ReachableRequest {
  /** The configurations. */
  readonly reachable: readonly Config[];
  /** Also compare the spec's dispatch table with `step` on every reachable state. */
  readonly dispatch?: boolean;
}

/** What the child found for one configuration of a {@link ReachableRequest}. */
export interface ReachableResult extends ReturnType<typeof checkReachable> {
  /** Whether the dispatch agrees with `step` (asked only with `dispatch`). */
  readonly dispatchAgrees?: boolean;
}

/** A request's answer, in the child. */
function answer(request: readonly UniverseRun[] | ReachableRequest): unknown {
  if (Array.isArray(request)) return request.map((run) => checkUniverse(universeModel(run), run.drop));
  const { reachable, dispatch } = request as ReachableRequest;
  return reachable.map((config): ReachableResult => {
    const m = compile(config);
    return { ...checkReachable(m), ...(dispatch === true ? { dispatchAgrees: dispatchAgrees(m, reachableStates(m)) } : {}) };
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(JSON.stringify(answer(JSON.parse(process.argv[2] ?? '[]') as UniverseRun[] | ReachableRequest)));
}
