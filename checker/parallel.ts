/**
 * Parallel breadth-first search: level by level, with one visited set shared by all
 * threads (`shared-table.ts`) and every state in shared memory where the thread that
 * found it wrote it (`arena.ts`). A level takes two steps with a barrier after each
 * (`level.ts`): expand (threads take blocks of the level from a shared counter, insert
 * every successor with its one-worker position as key, and append the possible firsts
 * to their own arenas, flagged where they may settle a property still open) and keep
 * (each thread takes the blocks it expanded, leaves out the successors that lost to a
 * smaller key, links the rest and evaluates the flagged ones in order; a model that
 * gives its successors fingerprint first is fingerprinted as `expansion-prints.ts` does, and
 * only its candidates are written). The main thread takes blocks as well (it is one of
 * the N threads: N - 1 workers are started), then orders the blocks and numbers them by
 * prefix sums, and applies the one-worker search's stopping rules
 * (`level-outcome.ts`): a few numbers per block, no state crosses it.
 *
 * The new states and their numbers are exactly those of the one-worker search in
 * `bfs.ts`, so the distinct-state count, the verdict, the shortest counterexample and its
 * trace are the same for every number of workers.
 *
 * Workers build the model themselves from a {@link ModelFactory}. A level smaller than
 * `parallelFrom` states is done by the main thread alone (same steps, same table), so a
 * small search starts no thread; workers are started ahead, while the main thread still
 * works, once a level reaches a sixteenth of that, and take part from the first level
 * after their 'ready' (the main thread lets the event loop run between its levels to see it).
 *
 * This file is the search's outline: the set-up (`parallel-search.ts`), each level's
 * threads and expand step (`parallel-expand.ts`) and its keep step and settling
 * (`parallel-settle.ts`), and the outcome.
 */
import { arenaChunkBytes } from './arena.ts';
import { search } from './bfs.ts';
import { settingsOf } from './options.ts';
import { reducedResult, reductionIn, replanPlain } from './reduction.ts';
import type { Checkable, ModelFactory } from './model.ts';
import { expandLevel, teamOf } from './parallel-expand.ts';
import type { ParallelOptions } from './parallel-options.ts';
import { startSearch, type ParallelSearch } from './parallel-search.ts';
import { settleLevel } from './parallel-settle.ts';
import { ParallelLinks } from './parallel-links.ts';
import { replayPath } from './replay.ts';
import { DEADLOCK, type CheckResult, type Violation } from './types.ts';

export type { ParallelOptions } from './parallel-options.ts';

/**
 * Explores `model` breadth-first with `options.workers` threads that build their model
 * from `factory`; with `por`, as `check` does (`reduction.ts`): the plain search finds a
 * violation's shortest trace again, on these threads when it stops at the first, on this
 * one (until it has met each) when it goes on after them.
 */
export async function checkParallel<A>(model: Checkable<A>, factory: ModelFactory, options: ParallelOptions): Promise<CheckResult<A>> {
  const settings = settingsOf(options);
  const reduced = await levels(model, factory, options);
  if (reductionIn(model, settings) === undefined || reduced.violations.length === 0) return reductionIn(model, settings) === undefined ? reduced : reducedResult(reduced, undefined, false);
  const keepGoing = settings.continueAfterViolation;
  const plain = keepGoing ? search(model, options, replanPlain(reduced, true)) : await levels(model, factory, { ...options, por: false });
  return reducedResult(reduced, plain, keepGoing);
}

/** One parallel search of `model`, level by level. */
async function levels<A>(model: Checkable<A>, factory: ModelFactory, options: ParallelOptions): Promise<CheckResult<A>> {
  const s = startSearch(model, factory, options);
  try {
    while (s.frontierCount > 0 && !s.stop) {
      if (s.frontierCount * s.actions >= 2 ** 31) throw new Error(`checker: a level of ${s.frontierCount} states is too large for the parallel search's keys`);
      const team = await teamOf(s);
      await settleLevel(s, await expandLevel(s, team));
    }
  } finally {
    await Promise.all(s.workers.map((w) => w.stop()));
  }
  return outcome(s);
}

/** The search's result once its levels are done: the verdict, each violation with its trace, and the counts. */
function outcome<A>(s: ParallelSearch<A>): CheckResult<A> {
  const { model, links, monitor, stored, roots } = s;
  const canonical = s.canonicalize !== undefined;
  const traceTo = (state: number): Violation<A>['trace'] => {
    const { root, path } = links.pathFrom(state);
    return replayPath(model, canonical, roots[root]!, path);
  };
  const violations: Violation<A>[] = [
    ...monitor.failures.map((f) => ({ invariant: f.invariant, depth: f.depth, trace: traceTo(f.state) })),
    ...s.deadlocks.map((d) => ({ invariant: DEADLOCK, depth: d.depth, trace: traceTo(d.state) })),
  ];
  return {
    verdict: violations.length > 0 ? 'violation' : s.incomplete ? 'incomplete' : 'holds',
    violations,
    distinctStates: stored,
    depth: s.deepest,
    witnesses: monitor.witnesses(),
    bytesPerState: (s.table.byteLength + ParallelLinks.BYTES * stored + s.peakArenas * arenaChunkBytes(s.task.stride)) / stored,
    symmetry: s.settings.symmetry,
  };
}
