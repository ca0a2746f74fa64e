/**
 * Universes, and reachable states, checked in a child Node process (`universe-child.ts`),
 * outside vitest, whose module runner makes the loops over states six times slower.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import type { Config } from '../../spec/index.ts';
import { scratchDir } from './apart.ts';
import type { UniverseResult } from './enumerate.ts';
import type { ReachableRequest, ReachableResult, UniverseRun } from './universe-child.ts';

export { universeModel, type UniverseRun } from './universe-child.ts';

const CHILD = fileURLToPath(new URL('./universe-child.ts', import.meta.url));

/**
 * Checks the universes in a child Node process and returns its results. The child is
 * bundled into one module (esbuild, a few hundred milliseconds): started with tsx it spent
 * about 2 s of CPU loading the sources module by module.
 */
export function checkUniverses(runs: readonly UniverseRun[]): UniverseResult[] {
  return runChild(runs) as UniverseResult[];
}

/**
 * Each configuration's reachable states (breadth-first, no symmetry) checked against the invariant in the child, and
 * with `dispatch` whether the spec's dispatch table agrees with `step` on all of them: in vitest, the search over the
 * 27,492 states of torn-write.test's acceptance configuration alone took seconds of CPU.
 */
export function checkReachableApart(configs: readonly Config[], dispatch = false): ReachableResult[] {
  return runChild({ reachable: configs, dispatch }) as ReachableResult[];
}

/** The child's bundle, built at the first request of a test file and kept for its others; removed after the file (apart.ts's scratch). */
let bundled: string | undefined;

/** The path of the child's bundle (built once per test file: universe.test.ts asks four times). */
function childScript(): string {
  if (bundled !== undefined) return bundled;
  const dir = scratchDir('pagecheck-universe-', () => (bundled = undefined));
  const script = join(dir, 'universe-child.mjs');
  buildSync({ entryPoints: [CHILD], outfile: script, bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
  bundled = script;
  return script;
}

/** The child run on `request`: its JSON answer. */
function runChild(request: readonly UniverseRun[] | ReachableRequest): unknown {
  return JSON.parse(execFileSync(process.execPath, [childScript(), JSON.stringify(request)], { encoding: 'utf8', maxBuffer: 1 << 24 }));
}
