/**
 * The differential test of the successors at real sizes (issue 27, item 1; issue 22,
 * item 4): on seeded random configurations, every state that a breadth-first search
 * reaches (all of them when the space fits the budget, the first `budget` in BFS order
 * when not) has the same successors, in the same order, from the spec's `step` over
 * `allActions`, from the general expanders (`binding/expanders.ts`, with and without their
 * fast call sites), and, in the fast family, from the emitted fast path (successors into a
 * slice, fingerprints with `apply`, and quiet successors keeping every conjoined invariant).
 *
 * The generator (test/support/real-sizes.ts, shared with the pool's test at real sizes)
 * draws 9 to 16 pages, requests longer than 8 pages, 9 or more requests, every allocator,
 * prefixes (which the fast path refuses: the general path takes them), every variant, and
 * the faults; its statistics are returned for the test to print, and the test asserts
 * that each of those was drawn.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { CONJOINED } from '../../binding/properties.ts';
import { expandersOf } from '../../binding/expanders.ts';
import { fastHashedOf, fastSuccessorsOf, inFastFamily } from '../../binding/successors.ts';
import { ScratchState } from '../../checker/scratch.ts';
import { Zobrist } from '../../checker/zobrist.ts';
import { allActions, compile, initial, Ph, phaseOf, step, type Mechanism, type Model, type State } from '../../spec/index.ts';
import { keyOf } from '../checker/orbits.ts';
import { bump, configOf, drawnConfig, type Drawn, type SizeStats } from '../support/real-sizes.ts';

/** What the draws covered, for the test to print and assert. */
export interface Coverage extends SizeStats {
  inFamily: number;
  states: number;
  complete: number;
  /** Family configurations with a request of 9 pages or more that fits the pool: where a fast path that scans at most 8 free pages is wrong. */
  familyPast8: number;
  /** Family states in which decode's owner check has failed some request: where the fast path's tag check is what is compared. */
  familyFailed: number;
  /** Family states in which a timed-out request's late write has landed (fault `early-free`). */
  familyLanded: number;
  /** Family states in which parts of a write land after D released the request (faults `early-free` and `torn-write`, without `revoke-writer`). */
  familyLanding: number;
  /** Family states in which a finished request's old table was released a second time (fault `stale-free`). */
  familyReleased: number;
}

/** An empty {@link Coverage}. */
export const coverage = (): Coverage => ({ configs: 0, inFamily: 0, states: 0, complete: 0, pages: {}, requestCounts: {}, longestRequest: {}, allocators: {}, variants: {}, withPrefix: 0, familyPast8: 0, familyFailed: 0, familyLanded: 0, familyLanding: 0, familyReleased: 0 });

/** Up to `budget` reachable states of `m`, in breadth-first order, and whether they are all of them. */
function explore(m: Model, budget: number): { states: State[]; complete: boolean } {
  const actions = allActions(m);
  const seen = new Set<string>();
  const states: State[] = [];
  const s0 = initial(m);
  seen.add(keyOf(s0));
  states.push(s0);
  for (let k = 0; k < states.length; k++) {
    for (const a of actions) {
      const t = step(m, states[k]!, a);
      if (t === undefined || seen.has(keyOf(t))) continue;
      if (states.length >= budget) return { states, complete: false };
      seen.add(keyOf(t));
      states.push(t);
    }
  }
  return { states, complete: true };
}

/** The successors of `s` from `step`, as `index:bytes`. */
function bySpec(m: Model, actions: ReturnType<typeof allActions>, s: State): string[] {
  const out: string[] = [];
  actions.forEach((a, i) => {
    const t = step(m, s, a);
    if (t !== undefined) out.push(`${i}:${keyOf(t)}`);
  });
  return out;
}

/** Checks one drawn configuration's states (`hardened` without the mechanisms `without`), and counts what it covered. */
export function agreeOn(d: Drawn, budget: number, seen: Coverage, without: readonly Mechanism[] = []): void {
  const m = compile(without.length === 0 ? configOf(d) : { ...configOf(d), without });
  const actions = allActions(m);
  const { states, complete } = explore(m, budget);
  const family = inFastFamily(m);
  record(d, m, family, states.length, complete, seen);
  const some = (phase: number): number => states.filter((s) => m.tableAt.some((_, r) => phaseOf(m, s, r) === phase)).length;
  if (family) seen.familyFailed += some(Ph.failed);
  if (family) seen.familyLanded += some(Ph.landed);
  if (family) seen.familyLanding += some(Ph.landing);
  if (family) seen.familyReleased += some(Ph.released);
  const scratch = new ScratchState(m.size);
  const general = [true, false].map((fast) => expandersOf(m, actions, fast));
  const plain = fastSuccessorsOf(m);
  expect(plain !== undefined, 'the fast path takes exactly the family').toBe(family);
  for (const s of states) {
    const want = bySpec(m, actions, s);
    for (const expanders of general) {
      const got: string[] = [];
      scratch.set(s);
      for (const e of expanders) e(scratch, (t, a) => got.push(`${a}:${keyOf(t)}`));
      agree(got, want);
    }
    if (plain === undefined) continue;
    const got: string[] = [];
    scratch.set(s);
    plain(scratch, (t, a) => got.push(`${a}:${keyOf(t)}`));
    agree(got, want);
  }
  if (family) agreePrints(m, states);
}

/**
 * `expect(got).toEqual(want)`, called only when they differ: the test compares millions
 * of successor lists, and vitest's matcher on each one cost more than the successors
 * themselves. A difference fails with the matcher's own diff.
 */
function agree(got: readonly string[], want: readonly string[]): void {
  if (got.length === want.length && got.every((x, i) => x === want[i])) return;
  expect(got).toEqual(want);
}

/** The fast path's fingerprints and `apply` against `step`, and each quiet successor's conjoined invariants against its parent's. */
function agreePrints(m: Model, states: readonly State[]): void {
  const actions = allActions(m);
  const hashed = fastHashedOf(m)!;
  const z = new Zobrist(m.size);
  const h = new Int32Array(2);
  const w = new Int32Array(2);
  for (const s of states) {
    z.hash(s, h, 0);
    const got: string[] = [];
    hashed.fingerprints(s, h[0]!, h[1]!, z, (a, h1, h2, quiet) => {
      const t = s.slice();
      hashed.apply(s, a, t);
      const want = step(m, s, actions[a]!)!;
      z.hash(want, w, 0);
      if (h1 !== w[0] || h2 !== w[1]) expect([h1, h2]).toEqual([w[0], w[1]]);
      got.push(`${a}:${keyOf(t)}`);
      if (quiet === true) for (const p of CONJOINED) if (p.holds(m, want) !== p.holds(m, s)) expect(p.holds(m, want), p.name).toBe(p.holds(m, s));
    });
    agree(got, bySpec(m, actions, s));
  }
}

/** Counts one configuration into the coverage. */
function record(d: Drawn, m: Model, family: boolean, states: number, complete: boolean, seen: Coverage): void {
  const longest = Math.max(...d.lengths);
  seen.configs++;
  seen.states += states;
  if (complete) seen.complete++;
  if (family) seen.inFamily++;
  if (family && longest >= 9 && d.lengths.some((l) => l >= 9 && l <= d.pages)) seen.familyPast8++;
  if (m.groups > 0) seen.withPrefix++;
  bump(seen.pages, d.pages);
  bump(seen.requestCounts, d.lengths.length);
  bump(seen.longestRequest, longest);
  bump(seen.allocators, d.allocator);
  bump(seen.variants, d.variant);
}

/** Runs the differential test over `runs` drawn configurations from `seed`; returns what they covered. */
export function differential(seed: number, runs: number, budget: number): Coverage {
  const seen = coverage();
  fc.assert(
    fc.property(drawnConfig, (d) => agreeOn(d, budget, seen)),
    { seed, numRuns: runs, endOnFailure: true },
  );
  return seen;
}

/** Prints the generator's statistics (for the closing note) and asserts what every run of the test must have drawn. */
export function report(label: string, c: Coverage): void {
  process.stdout.write(`${label}: ${JSON.stringify(c)}\n`);
  expect(Object.keys(c.allocators).sort()).toEqual(['any', 'lifo', 'sglang', 'sorted']);
  expect(Object.keys(c.variants).sort()).toEqual(['buggy', 'hardened', 'length-fix', 'owner-check']);
  expect(Object.keys(c.pages).map(Number).every((p) => p >= 9 && p <= 16)).toBe(true);
  expect(Object.keys(c.longestRequest).some((l) => Number(l) > 8)).toBe(true);
  expect(Object.keys(c.requestCounts).some((n) => Number(n) >= 9)).toBe(true);
  expect(c.withPrefix).toBeGreaterThan(0);
  // Where a fast path that scans at most 8 free pages would report a false deadlock (check --variant length-fix --pages 9 --prefill-limit 9 --requests 9,1).
  expect(c.familyPast8).toBeGreaterThan(0);
}
