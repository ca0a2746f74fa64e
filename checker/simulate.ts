/**
 * Simulation: seeded random walks through any {@link Checkable} model, for state spaces
 * past exhaustive reach (TLC's `-simulate`, SPIN's swarm, Quint's `run`). Each run is a
 * walk from an initial state that takes one enabled action after another, chosen by the
 * run's own random generator, until it reaches the depth, a state where nothing is
 * enabled, or a violation. Every invariant is checked at every state; witnesses are
 * counted by the runs that reach them.
 *
 * Runs are numbered, and run `k` depends only on `k` (the caller's `random(k)` builds its
 * generator from the seed and `k`), so a set of runs can be split anywhere (shards) and
 * merged back: counts add up, and for each invariant the violation kept is the one of the
 * lowest-numbered run, whatever the split. A violation is shortened against the model by
 * delta debugging (see `shrink.ts`) before it is reported.
 *
 * The checker reads no clock and owns no randomness: the caller passes the generator.
 */
import { describeAction, enabledActions, invariantsToCheck, type Checkable, type ModelProperty } from './model.ts';
import { DEFAULTS, endTestOf } from './options.ts';
import { runActions } from './replay.ts';
import { shrinkActions } from './shrink.ts';
import { DEADLOCK, type Trace } from './types.ts';

/** What to simulate. */
export interface SimulateOptions {
  /** The run numbers to do (a shard's share of `0 .. runs-1`). */
  readonly runs: readonly number[];
  /** The longest walk, in actions. */
  readonly depth: number;
  /** Run `k`'s random generator: each call returns a uniform 32-bit unsigned integer. */
  readonly random: (run: number) => () => number;
  /** Report a state with nothing enabled that is not a legitimate end as `Deadlock`; default true. */
  readonly deadlock?: boolean;
  /** Called after each run with the number of runs done. */
  readonly onProgress?: (done: number) => void;
  /** The invariants to check, by name; default every invariant the model checks by default. */
  readonly invariants?: readonly { readonly name: string }[];
  /** An action's group (the process it acts for): shortening drops whole groups first (`shrink.ts`). */
  readonly groupOf?: (action: number) => number;
}

/** The first violation of one invariant: the lowest-numbered run that broke it, its walk, and the walk shortened. */
export interface SimulatedViolation<A> {
  /** The invariant's name, or `Deadlock`. */
  readonly invariant: string;
  /** The run that found it. */
  readonly run: number;
  /** Actions in the walk as found. */
  readonly foundLength: number;
  /** The shortened walk: no single action can be dropped and still reach the violation. */
  readonly trace: Trace<A>;
}

/** What a set of runs found; results of disjoint sets of runs merge with {@link mergeSimulations}. */
export interface SimulationResult<A> {
  /** Number of runs done. */
  readonly runs: number;
  /** Actions taken over all runs. */
  readonly steps: number;
  /** Runs that ended in a violation. */
  readonly violatingRuns: number;
  /** Per witness of the model: whether it applies, and how many runs reached it. */
  readonly witnesses: readonly { readonly name: string; readonly applies: boolean; readonly runsReached: number }[];
  /** Per invariant broken: the violation of the lowest-numbered run, shortened; in the model's property order, `Deadlock` last. */
  readonly violations: readonly SimulatedViolation<A>[];
}

/** Does the runs of `options` on `model`. */
export function simulate<A>(model: Checkable<A>, options: SimulateOptions): SimulationResult<A> {
  const invariants = invariantsToCheck(model, options.invariants);
  const witnesses = model.properties.filter((p) => p.kind === 'sometimes');
  const isEnd = endTestOf(model, { deadlock: options.deadlock ?? DEFAULTS.deadlock });
  const reached = new Int32Array(witnesses.length);
  const first = new Map<string, { run: number; path: number[] }>();
  const start = model.initialStates()[0];
  if (start === undefined) throw new Error('checker: the model has no initial state');
  let steps = 0;
  let violatingRuns = 0;
  const enabled: number[] = [];
  const hit = new Uint8Array(witnesses.length);
  for (const [done, run] of options.runs.entries()) {
    const next = options.random(run);
    hit.fill(0);
    const path: number[] = [];
    let s = start.slice();
    let broken = brokenInvariant(invariants, s);
    markWitnesses(witnesses, s, hit);
    while (broken === undefined && path.length < options.depth) {
      enabledActions(model, s, enabled);
      if (enabled.length === 0) {
        if (isEnd !== undefined && !isEnd(s)) broken = DEADLOCK;
        break;
      }
      const a = enabled[next() % enabled.length]!;
      const t = model.nextState(s, a);
      if (t === undefined) throw new Error(`checker: ${describeAction(model, a)} was listed as enabled but has no next state`);
      s = t.slice();
      path.push(a);
      broken = brokenInvariant(invariants, s);
      markWitnesses(witnesses, s, hit);
    }
    steps += path.length;
    for (let w = 0; w < witnesses.length; w++) reached[w] = reached[w]! + hit[w]!;
    if (broken !== undefined) {
      violatingRuns++;
      const known = first.get(broken);
      if (known === undefined || run < known.run) first.set(broken, { run, path });
    }
    options.onProgress?.(done + 1);
  }
  const order = violationOrder(model);
  const violations = [...first.entries()]
    .sort((x, y) => order.indexOf(x[0]) - order.indexOf(y[0]))
    .map(([invariant, { run, path }]) => ({
      invariant,
      run,
      foundLength: path.length,
      trace: runActions(model, start, shrinkActions(model, start, path, invariant, options.groupOf)),
    }));
  return {
    runs: options.runs.length,
    steps,
    violatingRuns,
    witnesses: witnesses.map((w, k) => ({ name: w.name, applies: w.applies !== false, runsReached: reached[k]! })),
    violations,
  };
}

/** The order of a simulation's violations: the model's invariants in its property order, then `Deadlock` (what {@link mergeSimulations} sorts by). */
export function violationOrder<A>(model: Checkable<A>): string[] {
  return [...model.properties.filter((p) => p.kind === 'always').map((p) => p.name), DEADLOCK];
}

/**
 * Combines the results of disjoint sets of runs of one model: the same as one simulation of
 * all their runs. `order` is the model's {@link violationOrder}: a part lists only the
 * invariants its own runs broke, so no part's order says where another part's go.
 */
export function mergeSimulations<A>(parts: readonly SimulationResult<A>[], order: readonly string[]): SimulationResult<A> {
  const head = parts[0];
  if (head === undefined) throw new Error('checker: nothing to merge');
  const best = new Map<string, SimulatedViolation<A>>();
  for (const p of parts) {
    for (const v of p.violations) {
      const known = best.get(v.invariant);
      if (known === undefined || v.run < known.run) best.set(v.invariant, v);
    }
  }
  // A name the order does not list (another model's) goes last, rather than being lost.
  const rank = (name: string): number => (order.includes(name) ? order.indexOf(name) : order.length);
  return {
    runs: parts.reduce((n, p) => n + p.runs, 0),
    steps: parts.reduce((n, p) => n + p.steps, 0),
    violatingRuns: parts.reduce((n, p) => n + p.violatingRuns, 0),
    witnesses: head.witnesses.map((w, k) => ({ ...w, runsReached: parts.reduce((n, p) => n + (p.witnesses[k]?.runsReached ?? 0), 0) })),
    violations: [...best.values()].sort((x, y) => rank(x.invariant) - rank(y.invariant)),
  };
}

/** The first invariant that `s` breaks, by name. */
function brokenInvariant(invariants: readonly ModelProperty[], s: Uint8Array): string | undefined {
  for (const p of invariants) if (!p.holds(s)) return p.name;
  return undefined;
}

function markWitnesses(witnesses: readonly ModelProperty[], s: Uint8Array, hit: Uint8Array): void {
  for (let w = 0; w < witnesses.length; w++) if (hit[w] === 0 && witnesses[w]!.applies !== false && witnesses[w]!.holds(s)) hit[w] = 1;
}
