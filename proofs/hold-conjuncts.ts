/**
 * The z3 forms of the hold invariant's own conjuncts (`hold-invariant.ts` has the
 * executable forms and the prose, by the same names). They speak of who holds a page and
 * how far its holder's write has landed, never of a tag naming content in general: under
 * fault `torn-write` a tag and its content land apart, so that is true only of the pages
 * below, and the conjuncts say why.
 */
import type { ZConjunct } from './conjuncts.ts';
import { inWrite, writeLabel } from './encoding-transfer.ts';
import { at, holds, live, ownSlot, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';

const x = (xs: readonly Z[], k: number): Z => {
  const t = xs[k];
  if (t === undefined) throw new Error(`conjunct variable ${k} missing`);
  return t;
};

const inPhase = (v: Vocabulary, s: ZState, q: Z, ...phases: Parameters<Vocabulary['ph']>[0][]): F => v.ctx.Or(...phases.map((p) => at(s.phase, q).eq(v.ph(p))));

/** Whether `q`'s write has not finished landing: it is allocated (nothing posted yet) or writing. */
const unwritten = (v: Vocabulary, s: ZState, q: Z): F => inPhase(v, s, q, 'allocated', 'writing');

/** The hold invariant's conjuncts that the other invariants do not have, by name. */
export const HOLD_Z_CONJUNCTS: Readonly<Record<string, ZConjunct>> = {
  NoLateParts: {
    name: 'NoLateParts',
    vars: [['Req', 'request']],
    body: (v, s, xs, fault) => {
      const q = x(xs, 0);
      // without early-free nothing times a request out: only timeout leads to timedOut
      const timedOut = fault?.['early-free'] === false ? at(s.phase, q).eq(v.ph('timedOut')) : v.ctx.Bool.val(false);
      return v.ctx.Not(v.ctx.Or(at(s.phase, q).eq(v.ph('landing')), timedOut));
    },
  },
  FreeListUnheld: {
    name: 'FreeListUnheld',
    vars: [['Page', 'page']],
    body: (v, s, xs) => {
      if (s.free === undefined) return v.ctx.Bool.val(true);
      const p = x(xs, 0);
      const copies = at(s.free, p) as N;
      return v.ctx.And(copies.ge(0), copies.le(1), v.ctx.Implies(copies.ge(1), at(s.holder, p).eq(v.none)));
    },
  },
  UntaggedUntilLanded: {
    name: 'UntaggedUntilLanded',
    vars: [
      ['Req', 'request'],
      ['Slot', 'slot'],
    ],
    body: (v, s, xs) => {
      const [q, k] = [x(xs, 0), x(xs, 1)];
      const { And, Implies, Not } = v.ctx;
      const tagLanded = And(inPhase(v, s, q, 'writing'), inWrite(v, s, q, k), holds(s.tagLanded, q, k));
      return Implies(And(unwritten(v, s, q), ownSlot(v, s, q, k), Not(tagLanded)), at(s.tag, at(s.table, q, k)).eq(v.none));
    },
  },
  LandedPartsHold: {
    name: 'LandedPartsHold',
    vars: [
      ['Req', 'request'],
      ['Slot', 'slot'],
    ],
    body: (v, s, xs) => {
      const [q, k] = [x(xs, 0), x(xs, 1)];
      const { And, Implies } = v.ctx;
      const page = at(s.table, q, k);
      const label = writeLabel(v, q, k);
      return Implies(
        And(inPhase(v, s, q, 'writing'), inWrite(v, s, q, k)),
        And(Implies(holds(s.tagLanded, q, k), at(s.tag, page).eq(label)), Implies(holds(s.dataLanded, q, k), at(s.data, page).eq(label))),
      );
    },
  },
  OwnTagNamesContent: {
    name: 'OwnTagNamesContent',
    vars: [
      ['Req', 'request'],
      ['Slot', 'slot'],
    ],
    body: (v, s, xs) => {
      const [q, k] = [x(xs, 0), x(xs, 1)];
      const { And, Implies, Not } = v.ctx;
      const page = at(s.table, q, k);
      return Implies(
        And(live(v, at(s.phase, q)), Not(unwritten(v, s, q)), ownSlot(v, s, q, k), Not(at(s.tag, page).eq(v.none))),
        at(s.data, page).eq(at(s.tag, page)),
      );
    },
  },
  CacheTagNamesContent: {
    name: 'CacheTagNamesContent',
    vars: [['Page', 'page']],
    body: (v, s, xs) => {
      const p = x(xs, 0);
      const { And, Implies, Not } = v.ctx;
      return Implies(And(v.isPrefix(at(s.holder, p)), Not(at(s.tag, p).eq(v.none))), at(s.data, p).eq(at(s.tag, p)));
    },
  },
};
