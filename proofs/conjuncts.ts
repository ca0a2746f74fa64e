/**
 * The invariants of `invariant.ts` as z3 formulas, conjunct by conjunct and by the same
 * names. A conjunct is a body over a few variables; it is asserted universally quantified
 * for the pre-state and denied with named witnesses for the post-state, so that a
 * counterexample to induction says which page or request breaks it.
 */
import type { Sort } from 'z3-solver';
import type { Fault } from '../spec/index.ts';
import { HOLD_Z_CONJUNCTS } from './hold-conjuncts.ts';
import type { Invariant } from './invariant.ts';
import { at, forAll, leaks, live, ownSlot, prefixSlot, shares, slotLabel, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';

/** The sort of a conjunct's variable. */
export type VarSort = 'Page' | 'Req' | 'Label' | 'Slot';

/** A conjunct for z3: `∀ vars. body(s, vars)`. */
export interface ZConjunct {
  /** The name, as in `invariant.ts` (or `Isolation`). */
  readonly name: string;
  /** Its variables' sorts, and the names its witnesses print under. */
  readonly vars: readonly (readonly [VarSort, string])[];
  /** The body, over a state and one term per variable (and, for the few that depend on them, the faults switched on). */
  readonly body: (v: Vocabulary, s: ZState, xs: readonly Z[], fault?: Faults) => F;
}

/** The faults switched on, as the encoding's semantics has them. */
export type Faults = Readonly<Record<Fault, boolean>>;

const x = (xs: readonly Z[], k: number): Z => {
  const t = xs[k];
  if (t === undefined) throw new Error(`conjunct variable ${k} missing`);
  return t;
};

/**
 * Isolation (spec/properties.ts): no read record is a leak: what a request read at each
 * position is its own data, or its prefix's at the prefix's position (or nothing written).
 */
export const ISOLATION: ZConjunct = {
  name: 'Isolation',
  vars: [
    ['Req', 'reader'],
    ['Slot', 'position'],
  ],
  body: (v, s, xs) => v.ctx.Implies(v.inTable(x(xs, 0), x(xs, 1)), v.ctx.Not(leaks(v, x(xs, 0), x(xs, 1), at(s.rec, x(xs, 0), x(xs, 1))))),
};

/**
 * The part of TypeOK that the sorts do not give: a request's decode steps are a count,
 * and, without fault `torn-write` (`torn` false), no request is `writing` or `landing`: a
 * write then lands whole, and nothing enters those phases. Part of every invariant; not
 * numbered.
 */
export function typeOk(torn: boolean): ZConjunct {
  return {
    name: 'TypeOK',
    vars: [['Req', 'request']],
    body: (v, s, xs) => {
      const q = x(xs, 0);
      const inFlight = v.ctx.Or(at(s.phase, q).eq(v.ph('writing')), at(s.phase, q).eq(v.ph('landing')));
      const steps = (at(s.steps, q) as N).ge(0);
      return torn ? steps : v.ctx.And(v.ctx.Not(inFlight), steps);
    },
  };
}

const written = (v: Vocabulary, s: ZState, q: Z): F =>
  v.ctx.Or(...(['written', 'handedOff', 'decoding', 'decoded'] as const).map((p) => at(s.phase, q).eq(v.ph(p))));

/** Every strengthening conjunct, by name. */
const CONJUNCTS: Readonly<Record<string, ZConjunct>> = {
  ...HOLD_Z_CONJUNCTS,
  TagNamesContent: {
    name: 'TagNamesContent',
    vars: [['Page', 'page']],
    body: (v, s, xs) => {
      const p = x(xs, 0);
      return v.ctx.Implies(v.ctx.Not(at(s.tag, p).eq(v.none)), at(s.data, p).eq(at(s.tag, p)));
    },
  },
  NewIsBlank: {
    name: 'NewIsBlank',
    vars: [['Req', 'request']],
    body: (v, s, xs) => v.ctx.Implies(at(s.phase, x(xs, 0)).eq(v.ph('new')), v.ctx.Not(shares(v, s, x(xs, 0)))),
  },
  NoLateWrite: {
    name: 'NoLateWrite',
    vars: [['Req', 'request']],
    body: (v, s, xs) => v.ctx.Not(at(s.phase, x(xs, 0)).eq(v.ph('timedOut'))),
  },
  OwnPagesHeld: {
    name: 'OwnPagesHeld',
    vars: [
      ['Req', 'request'],
      ['Slot', 'slot'],
    ],
    body: (v, s, xs) => {
      const [q, i] = [x(xs, 0), x(xs, 1)];
      return v.ctx.Implies(v.ctx.And(live(v, at(s.phase, q)), ownSlot(v, s, q, i)), at(s.holder, at(s.table, q, i)).eq(v.body(q)));
    },
  },
  SharedPageCached: {
    name: 'SharedPageCached',
    vars: [['Req', 'request']],
    body: (v, s, xs) => {
      const q = x(xs, 0);
      const k = v.ctx.Const('shared.k', v.Slot);
      return v.ctx.Implies(
        v.ctx.And(live(v, at(s.phase, q)), shares(v, s, q)),
        v.ctx.And(v.hasPrefix(q), forAll(v, [k], v.ctx.Implies(prefixSlot(v, q, k), at(s.holder, at(s.table, q, k)).eq(v.prefix(v.group(q), k))))),
      );
    },
  },
  CacheHoldsPrefix: {
    name: 'CacheHoldsPrefix',
    vars: [['Page', 'page']],
    body: (v, s, xs) => {
      const p = x(xs, 0);
      return v.ctx.Implies(v.isPrefix(at(s.holder, p)), at(s.data, p).eq(at(s.holder, p)));
    },
  },
  WrittenHoldsOwn: {
    name: 'WrittenHoldsOwn',
    vars: [
      ['Req', 'request'],
      ['Slot', 'slot'],
    ],
    body: (v, s, xs) => {
      const [q, i] = [x(xs, 0), x(xs, 1)];
      return v.ctx.Implies(v.ctx.And(written(v, s, q), ownSlot(v, s, q, i)), at(s.data, at(s.table, q, i)).eq(slotLabel(v, q, i)));
    },
  },
  DistinctSlots: {
    name: 'DistinctSlots',
    vars: [
      ['Req', 'request'],
      ['Slot', 'slot'],
      ['Slot', 'other slot'],
    ],
    body: (v, s, xs) => {
      const [q, i, j] = [x(xs, 0), x(xs, 1), x(xs, 2)];
      const { And, Implies, Not } = v.ctx;
      return Implies(
        And(live(v, at(s.phase, q)), ownSlot(v, s, q, i), ownSlot(v, s, q, j), Not(i.eq(j))),
        Not(at(s.table, q, i).eq(at(s.table, q, j))),
      );
    },
  },
};

/**
 * The z3 conjuncts of an invariant: Isolation first, then TypeOK (which lets writes be in
 * flight under fault `torn-write`), then the strengthening, less the conjunct numbered
 * `drop`; each bound to the faults switched on (none, when not given).
 */
export function zConjuncts(inv: Invariant, drop?: number, fault?: Faults): ZConjunct[] {
  const out = [ISOLATION, typeOk(fault?.['torn-write'] ?? false)];
  for (const c of inv.conjuncts) {
    if (c.id === drop) continue;
    const z = CONJUNCTS[c.name];
    if (z === undefined) throw new Error(`conjunct ${c.name} has no z3 encoding`);
    out.push({ ...z, body: (v, s, xs) => z.body(v, s, xs, fault) });
  }
  return out;
}

/** The sort of a variable kind. */
export function sortOf(v: Vocabulary, kind: VarSort): Sort<'main'> {
  return v[kind];
}

/** `∀ vars. body(s)`. */
export function assertHolds(v: Vocabulary, c: ZConjunct, s: ZState): F {
  const vars = c.vars.map(([kind], k) => v.ctx.Const(`${c.name}.${k}`, sortOf(v, kind)) as Z);
  return forAll(v, vars, c.body(v, s, vars));
}

/** The witnesses of a denial, and the denial `¬body(s, witnesses)`. */
export function deny(v: Vocabulary, c: ZConjunct, s: ZState): { witnesses: Z[]; formula: F } {
  const witnesses = c.vars.map(([kind], k) => v.ctx.Const(`cti.${c.name}.${k}`, sortOf(v, kind)) as Z);
  return { witnesses, formula: v.ctx.Not(c.body(v, s, witnesses)) };
}
