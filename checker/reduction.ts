/**
 * How a search with partial-order reduction (`Checkable.reduction`, docs/POR.md) becomes a
 * result. The reduced graph keeps every violation and every witness's value, but not the
 * length of the shortest path to a violation: a breadth-first search there finds a
 * shortest trace of the reduced graph, which may be longer than the whole graph's. So a
 * violation found with the reduction is found again by the plain search, which stops at
 * its own first violation (no deeper than the reduced one, since the reduced trace is an
 * execution of the whole graph too): the traces, and for a search that stops at its first
 * violation the whole result, are exactly those of `por: false`. A search that goes on
 * after violations runs the plain search only until it has met every invariant the
 * reduced one found violated.
 */
import type { Checkable, Reduction } from './model.ts';
import type { Settings } from './options.ts';
import type { CheckResult, Violation } from './types.ts';

/** The reduction a search uses: the model's, when `por` is asked for. */
export function reductionIn<A>(model: Checkable<A>, settings: Pick<Settings, 'por'>): Reduction | undefined {
  return settings.por ? model.reduction : undefined;
}

/** Per property of `model`, whether `isOpen` says it is still open: what the level's reducer must keep. */
export function openProperties<A>(model: Checkable<A>, isOpen: (name: string) => boolean): boolean[] {
  return model.properties.map((p) => isOpen(p.name));
}

/** What one search does beyond its options: reduce, and, going on after violations, stop once these (invariant names, or `Deadlock`) are all found. */
export interface SearchPlan {
  readonly reduction?: Reduction | undefined;
  readonly until?: readonly string[] | undefined;
}

/** The plan of the plain search that re-finds the reduced search's violations: for a search that goes on after them, until it has met each. */
export function replanPlain<A>(reduced: CheckResult<A>, keepGoing: boolean): SearchPlan {
  return keepGoing ? { until: reduced.violations.map((v) => v.invariant) } : {};
}

/** The reduced search's result with what the reduction did; with `plain`, the plain search's traces (see the file's comment). */
export function reducedResult<A>(reduced: CheckResult<A>, plain: CheckResult<A> | undefined, keepGoing: boolean): CheckResult<A> {
  const report = {
    states: reduced.distinctStates,
    depth: reduced.depth,
    violations: reduced.violations.map((v) => ({ invariant: v.invariant, depth: v.depth })),
    ...(plain === undefined ? {} : { plainStates: plain.distinctStates }),
  };
  if (plain === undefined) return { ...reduced, reduction: report };
  // A plain search cut by a state budget keeps the reduced traces it did not reach (shortest in the reduced graph only), and counts
  // the states it stored: a caller that runs under a budget (the command line's main thread) sees that it was reached.
  const stored = plain.verdict === 'incomplete' ? Math.max(reduced.distinctStates, plain.distinctStates) : reduced.distinctStates;
  if (plain.violations.length === 0) return { ...reduced, distinctStates: stored, reduction: report };
  if (!keepGoing) return { ...plain, reduction: report };
  // The plain search stops once it has met every violation the reduced one found.
  const found = new Set(plain.violations.map((v) => v.invariant));
  const violations: Violation<A>[] = [...plain.violations, ...reduced.violations.filter((v) => !found.has(v.invariant))];
  return { ...reduced, distinctStates: stored, violations, reduction: report };
}
