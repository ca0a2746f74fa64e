/**
 * The proof obligations and their discharge by z3. For an invariant Inv (Isolation and
 * its strengthening) and each action A:
 *
 *     init:  Init(s) ⇒ Inv(s)
 *     A:     Inv(s) ∧ A(s, s') ⇒ Inv(s')        for an arbitrary acting request r
 *
 * Each is checked by asking z3 for a model of its negation: `unsat` proves it for every
 * number of pages, requests and prefixes; `sat` is a counterexample to induction, a state
 * satisfying Inv from which one step of A breaks it, read back in the spec's words.
 */
import type { Solver } from 'z3-solver';
import { type Fault, type Mechanism, type Variant } from '../spec/index.ts';
import { assertHolds, deny, zConjuncts, type ZConjunct } from './conjuncts.ts';
import { checkConformance, type ConformanceReport, type StepFn } from './conformance.ts';
import { readCounterexample, type Counterexample } from './counterexample.ts';
import { initial, transition } from './encoding.ts';
import { semanticsOf } from './semantics.ts';
import { invariantFor, LENGTH_FIX_INVARIANT, OWNER_CHECK_INVARIANT, type Invariant } from './invariant.ts';
import { at, forAll, freshState, holds, type Bounds, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';
import type { Z3Session } from './z3.ts';
import { PROOF_ACTIONS, PROOF_FAULTS, type ProofFault } from './coverage.ts';
import { solve } from './z3-cleanups.ts';

export { PROOF_FAULTS } from './coverage.ts';

/**
 * The faults under which the owner check alone keeps Isolation: every fault of the
 * proof but `torn-write`, whose parts land apart and break `owner-check`'s proof at
 * `timeout` (a write's parts still in flight when D frees its pages); `prove`'s default
 * for `owner-check` and `buggy`. `hardened` is proved with every fault of the proof
 * ({@link PROOF_FAULTS}).
 */
export const OWNER_CHECK_FAULTS: readonly ProofFault[] = PROOF_FAULTS.filter((f) => f !== 'torn-write');

/** What an obligation came to. */
export type Verdict = 'proved' | 'counterexample' | 'unknown';

/** The obligations, in order: the base case, then one per action the encoding has (proofs/coverage.ts names them). */
export const OBLIGATIONS = ['init', ...PROOF_ACTIONS] as const;

/** One of {@link OBLIGATIONS}. */
export type ObligationName = (typeof OBLIGATIONS)[number];

/** The outcome of one obligation. */
export interface ObligationResult {
  /** `init` or the action's kind. */
  readonly name: ObligationName;
  /** proved (unsat), counterexample (sat) or unknown (z3 gave up). */
  readonly result: Verdict;
  /** Wall-clock time of z3's checks (the bounded search, then the proof), in milliseconds. */
  readonly ms: number;
  /** Set when the action's guard is false for this variant and faults: proved because it never happens. */
  readonly vacuous?: true;
  /** The counterexample to induction, when there is one. */
  readonly counterexample?: Counterexample;
  /** When unknown: z3's reason for each attempt (`timeout`, `(incomplete quantifiers)`, ...). */
  readonly unknownReasons?: readonly string[];
  /** How many times z3 was asked over the unbounded sorts (more than once after an unknown that was not a timeout). */
  readonly attempts?: number;
}

/** What to prove. */
export interface ProveOptions {
  /** The variant whose transitions are encoded. */
  readonly variant: Variant;
  /** The faults switched on. */
  readonly faults: readonly Fault[];
  /** Drop strengthening conjunct N (1-based) from the invariant, to see what then fails. */
  readonly drop?: number;
  /** Only these obligations (default: all). */
  readonly only?: readonly ObligationName[];
  /** z3's time limit per obligation (default 60 s). */
  readonly timeoutMs?: number;
  /**
   * Check the encoding against the spec's `step` first (`conformance.ts`; default true).
   * Only tests that prove the same encoding many times switch it off.
   */
  readonly checkEncoding?: boolean;
  /** Search the bounded universe for a counterexample first (default true); only tests of obligations that hold switch it off. */
  readonly bounded?: boolean;
  /** Ask for the tidiest counterexample (default true); only tests that pin which obligations fail, not how, switch it off. */
  readonly tidy?: boolean;
  /** The spec's step function to check the encoding against (default the spec's own; a test hands in a mutant). */
  readonly step?: StepFn;
  /** Mechanisms of `hardened` switched off, in the spec's model and the encoding alike, to see which obligation then fails. */
  readonly without?: readonly Mechanism[];
  /** Hears the encoding check's progress: action kinds compared, of how many (a progress line's figures). */
  readonly onEncoding?: (done: number, of: number) => void;
}

/** The outcome of a proof attempt. */
export interface ProofReport {
  /** The variant. */
  readonly variant: Variant;
  /** The faults switched on. */
  readonly faults: readonly Fault[];
  /** Mechanisms of `hardened` switched off, if any. */
  readonly without?: readonly Mechanism[];
  /** The invariant tried. */
  readonly invariant: Invariant;
  /** The conjunct dropped, if any. */
  readonly dropped?: { readonly id: number; readonly name: string };
  /** The encoding checked against the spec's `step`, unless switched off. */
  readonly conformance?: ConformanceReport;
  /** Each obligation's outcome. */
  readonly obligations: readonly ObligationResult[];
  /** Whether the encoding agrees with `step` and every obligation was proved. */
  readonly proved: boolean;
}

/** Checks the obligations of `options.variant`'s invariant one by one. */
export async function prove(z3: Z3Session, options: ProveOptions): Promise<ProofReport> {
  const invariant = invariantFor(options.variant, options.faults);
  const dropped = invariant.conjuncts.find((c) => c.id === options.drop);
  if (options.drop !== undefined && dropped === undefined) throw new RangeError(`the ${invariant.name} invariant has no conjunct ${options.drop}`);
  const conformance = options.checkEncoding === false ? undefined : await conformanceOf(z3, options);
  const obligations: ObligationResult[] = [];
  for (const name of options.only ?? OBLIGATIONS) obligations.push(await discharge(z3, options, invariant, name));
  return {
    variant: options.variant,
    faults: options.faults,
    ...(options.without?.length ? { without: options.without } : {}),
    invariant,
    ...(dropped === undefined ? {} : { dropped: { id: dropped.id, name: dropped.name } }),
    ...(conformance === undefined ? {} : { conformance }),
    obligations,
    proved: obligations.every((o) => o.result === 'proved') && (conformance?.mismatches.length ?? 0) === 0,
  };
}

/**
 * Conformance reports of the spec's own step, by variant and faults. The check is
 * deterministic and depends on nothing but the spec and the encoding, so one run per
 * process and semantics is enough, whichever z3 session asks.
 */
const checked = new Map<string, Promise<ConformanceReport>>();

/** The encoding checked against `step` for these options' variant and faults (once per process for the spec's own step). */
function conformanceOf(z3: Z3Session, options: ProveOptions): Promise<ConformanceReport> {
  const without = options.without ?? [];
  if (options.step !== undefined) return checkConformance(z3, options.variant, options.faults, options.step, undefined, without, options.onEncoding);
  const key = `${options.variant}|${[...new Set(options.faults)].sort().join(',')}|${[...without].sort().join(',')}`;
  const report = checked.get(key) ?? checkConformance(z3, options.variant, options.faults, undefined, undefined, without, options.onEncoding);
  checked.set(key, report);
  return report;
}

/** The bounded universe searched for a counterexample before the unbounded proof is tried. */
export const SEARCH_BOUNDS: Bounds = { pages: 2, requests: 2, groups: 1, slots: 2 };

/**
 * Checks one obligation. First (unless `bounded` is false) in a small bounded universe, where every quantifier
 * expands and z3 answers at once: a model there is a counterexample to induction (a finite model of the negation
 * is a model of it). Then over the unbounded sorts, where `unsat` is the proof. The order only saves time: z3's
 * model finder can spend minutes on a model that the bounded search finds in milliseconds.
 */
async function discharge(z3: Z3Session, options: ProveOptions, inv: Invariant, name: ObligationName): Promise<ObligationResult> {
  const start = performance.now();
  const timeoutMs = options.timeoutMs ?? 60_000;
  // Each solver is released as soon as it has answered: z3's WebAssembly heap is fixed (2 GiB), and the collector,
  // which does not see it fill, would free solvers too late for a process that proves many times (the tests).
  const found = options.bounded === false ? undefined : await searchBounded(z3, options, inv, name, timeoutMs, start);
  if (found !== undefined) return found;
  let vacuous = false; // the same in both universes: whether the variant's guard rules the action out
  const reasons: string[] = [];
  for (let seed = 0; seed < ATTEMPTS; seed++) {
    const unbounded = query(z3.v, options, inv, name, timeoutMs, seed);
    vacuous = unbounded.vacuous;
    const base = { name, ...(vacuous ? { vacuous: true as const } : {}) };
    try {
      const sat = await solve(unbounded.solver);
      const ms = Math.round(performance.now() - start);
      const tries = seed === 0 ? {} : { attempts: seed + 1 };
      if (sat === 'sat') return { ...base, result: 'counterexample', ms, counterexample: read(unbounded, name), ...tries };
      if (sat === 'unsat') return { ...base, result: 'proved', ms, ...tries };
      const reason = unbounded.solver.reasonUnknown();
      reasons.push(reason);
      if (!retryable(reason)) break;
    } finally {
      unbounded.solver.release();
    }
  }
  return { name, ...(vacuous ? { vacuous: true as const } : {}), result: 'unknown', ms: Math.round(performance.now() - start), unknownReasons: reasons, attempts: reasons.length };
}

/** The obligation in the bounded universe: its tidiest counterexample, if it has one there. */
async function searchBounded(z3: Z3Session, options: ProveOptions, inv: Invariant, name: ObligationName, timeoutMs: number, start: number): Promise<ObligationResult | undefined> {
  const bounded = query(z3.bounded(SEARCH_BOUNDS), options, inv, name, timeoutMs);
  try {
    if ((await solve(bounded.solver)) !== 'sat') return undefined;
    // a counterexample exists: ask for the tidiest one (unless told not to: each preference is another check)
    if (options.tidy !== false) for (const assumptions of preferences(bounded.v, bounded.pre, inv)) if ((await solve(bounded.solver, ...assumptions)) === 'sat') break;
    const base = { name, ...(bounded.vacuous ? { vacuous: true as const } : {}) };
    return { ...base, result: 'counterexample', ms: Math.round(performance.now() - start), counterexample: read(bounded, name) };
  } finally {
    bounded.solver.release();
  }
}

/**
 * How many times an obligation is put to z3 over the unbounded sorts, each with another
 * random seed, while z3 answers unknown for a reason other than its time limit. Its
 * quantifier instantiation is incomplete and depends on the order of terms, which in
 * z3's JavaScript binding depends on when the collector frees earlier terms: the same
 * obligation that is proved in 0.2 s can come back "(incomplete quantifiers)" in another
 * run. An unknown is never a proof and never a counterexample; another seed often settles it.
 */
const ATTEMPTS = 3;

/** Whether an unknown is worth another seed: not when z3 ran out of time (or was stopped), which another seed would only repeat. */
export function retryable(reason: string): boolean {
  return !/timeout|canceled|cancelled/.test(reason);
}

/**
 * What makes a counterexample easy to read: the pre-state keeps the ownership discipline
 * (tables held by their requests, distinct, shared pages cached, new requests blank, none
 * timed out). Only a preference: when no such counterexample exists, any will do.
 */
const TIDY: readonly string[] = ['NewIsBlank', 'NoLateWrite', 'OwnPagesHeld', 'SharedPageCached', 'CacheHoldsPrefix', 'DistinctSlots'];

/**
 * The preferences, strongest first: tidy and without prefixes, tidy, none (which is known
 * to be satisfiable). For the hold invariant, whose counterexamples are about writes in
 * flight, first also: nobody has read anything or taken a decode step yet, and every tag
 * names its page's content (what a state before any torn write looks like).
 */
function preferences(v: Vocabulary, pre: ZState, inv: Invariant): F[][] {
  const { ctx } = v;
  const tidy = zConjuncts(LENGTH_FIX_INVARIANT)
    .filter((c) => TIDY.includes(c.name))
    .map((c) => assertHolds(v, c, pre));
  const q = ctx.Const('q', v.Req);
  const k = ctx.Const('k', v.Slot);
  const l = ctx.Const('l', v.Label);
  const plain = [...tidy, forAll(v, [q], ctx.Not(v.hasPrefix(q)))];
  if (inv.name !== 'hold') return [plain, tidy, []];
  const unread = forAll(v, [q, k, l], ctx.And((at(pre.steps, q) as N).eq(0), at(pre.rec, q, k).eq(v.unread), ctx.Not(holds(pre.read, q, l))));
  const tagged = zConjuncts(OWNER_CHECK_INVARIANT).filter((c) => c.name === 'TagNamesContent').map((c) => assertHolds(v, c, pre));
  // a late write's counterexample starts from a timed-out request, which tidy rules out
  const tidyLate = zConjuncts(LENGTH_FIX_INVARIANT)
    .filter((c) => TIDY.includes(c.name) && c.name !== 'NoLateWrite')
    .map((c) => assertHolds(v, c, pre));
  const noPrefix = forAll(v, [q], ctx.Not(v.hasPrefix(q)));
  return [[...tidyLate, noPrefix, unread, ...tagged], [...tidyLate, noPrefix, unread], plain, tidy, [unread, ...tagged], []];
}

/** The negation of one obligation in a solver of its own, with what is needed to read a model back. */
interface Query {
  /** The vocabulary it is stated in. */
  readonly v: Vocabulary;
  /** The solver holding the negation. */
  readonly solver: Solver<'main'>;
  /** One denial per conjunct of the post-state; the negation is their disjunction. */
  readonly denials: readonly { readonly conjunct: ZConjunct; readonly witnesses: Z[]; readonly formula: F }[];
  /** The pre-state. */
  readonly pre: ZState;
  /** The post-state (the pre-state itself for `init`). */
  readonly post: ZState;
  /** The acting request. */
  readonly r: Z;
  /** Whether the action can never be taken in this variant. */
  readonly vacuous: boolean;
}

/** Asserts the negation of obligation `name` over vocabulary `v`. */
function query(v: Vocabulary, options: ProveOptions, inv: Invariant, name: ObligationName, timeoutMs: number, seed = 0): Query {
  const { ctx } = v;
  const sem = semanticsOf(options.variant, options.faults, options.without);
  const conjuncts = zConjuncts(inv, options.drop, sem.fault);
  const pre = freshState(v, 's', sem.ownerCheck, sem.multiset);
  const r = ctx.Const('r', v.Req);
  const solver = new ctx.Solver();
  solver.set('timeout', timeoutMs);
  if (seed > 0) solver.set('random_seed', seed);
  solver.add(...v.axioms);
  let vacuous = false;
  let post = pre;
  if (name === 'init') {
    solver.add(...initial(v, pre));
  } else {
    for (const c of conjuncts) solver.add(assertHolds(v, c, pre));
    const t = transition(v, sem, name, pre, r);
    vacuous = t.never === true;
    solver.add(...t.constraints);
    post = t.post;
  }
  const denials = conjuncts.map((c) => ({ conjunct: c, ...deny(v, c, post) }));
  solver.add(ctx.Or(...denials.map((d) => d.formula)));
  return { v, solver, denials, pre, post, r, vacuous };
}

/** The counterexample in the solver's model: the first conjunct that the model denies. */
function read(q: Query, name: ObligationName): Counterexample {
  const model = q.solver.model();
  const broken = q.denials.find((d) => model.eval(d.formula, true).toString() === 'true');
  if (broken === undefined) throw new Error('a model of the negation denies no conjunct');
  return readCounterexample({ v: q.v, model, action: name, r: q.r, pre: q.pre, post: q.post, conjunct: broken.conjunct, witnesses: broken.witnesses });
}
