/**
 * How a breadth-first search (`bfs.ts`) turns what it found into a
 * {@link CheckResult}: each invariant's first failure and each stopping deadlock, with its
 * shortest trace rebuilt by replaying the parent links from the initial state.
 */
import type { Checkable } from './model.ts';
import type { PropertyMonitor } from './monitor.ts';
import { replayPath } from './replay.ts';
import type { ParentLinks } from './store.ts';
import { DEADLOCK, type CheckResult, type Violation } from './types.ts';

/** What a finished search hands over. */
export interface SearchEnd<A> {
  readonly model: Checkable<A>;
  /** Whether the stored states are canonical forms (the trace then re-derives the real actions). */
  readonly canonical: boolean;
  /** The initial states, by root number. */
  readonly roots: readonly Uint8Array[];
  readonly links: ParentLinks;
  readonly monitor: PropertyMonitor;
  /** Deadlocked states that stopped the search. */
  readonly deadlocks: readonly { readonly state: number; readonly depth: number }[];
  /** Whether the state budget stopped it. */
  readonly incomplete: boolean;
  readonly distinctStates: number;
  readonly depth: number;
  readonly bytesPerState: number;
  readonly symmetry: boolean;
}

/** The search's result: verdict, violations with their traces, counts and witnesses. */
export function searchResult<A>(end: SearchEnd<A>): CheckResult<A> {
  const traceTo = (state: number): Violation<A>['trace'] => {
    const { root, path } = end.links.pathFrom(state);
    return replayPath(end.model, end.canonical, end.roots[root]!, path);
  };
  const found = [
    ...end.monitor.failures.map((f) => ({ invariant: f.invariant, state: f.state, depth: f.depth })),
    ...end.deadlocks.map((d) => ({ invariant: DEADLOCK, state: d.state, depth: d.depth })),
  ];
  const violations: Violation<A>[] = found.map((f) => ({ invariant: f.invariant, depth: f.depth, trace: traceTo(f.state) }));
  return {
    verdict: violations.length > 0 ? 'violation' : end.incomplete ? 'incomplete' : 'holds',
    violations,
    distinctStates: end.distinctStates,
    depth: end.depth,
    witnesses: end.monitor.witnesses(),
    bytesPerState: end.bytesPerState,
    symmetry: end.symmetry,
  };
}
