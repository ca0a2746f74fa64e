/**
 * The encoding's helper predicates over the vocabulary (`vocabulary.ts`): which slots are
 * a request's prefix, shared or own pages, what it may read, what is a leak, and which
 * phases are live. The invariants (`conjuncts.ts`) and the relations are written with them.
 */
import { isLive, PHASES } from '../spec/index.ts';
import { holds } from './arrays.ts';
import type { F, Vocabulary, Z, ZState } from './vocabulary-types.ts';

/** Whether slot `k` is one of request `r`'s prefix positions (`k < plen(group(r))`; none without a prefix). */
export function prefixSlot(v: Vocabulary, r: Z, k: Z): F {
  return v.ctx.And(v.hasPrefix(r), v.inPrefix(v.group(r), k));
}

/** Whether request `r` may read label `l`: its own data, or any page of its prefix's. */
export function mayRead(v: Vocabulary, r: Z, l: Z): F {
  const { Or, And } = v.ctx;
  return Or(l.eq(v.body(r)), And(v.isPrefix(l), v.prefixGrp(l).eq(v.group(r)), prefixSlot(v, r, v.prefixPos(l))));
}

/** Whether request `r` may read label `l` at table position `k`: its own data anywhere, page `k` of its prefix only at position `k < plen`. */
export function mayReadAt(v: Vocabulary, r: Z, k: Z, l: Z): F {
  const { Or, And } = v.ctx;
  return Or(l.eq(v.body(r)), And(prefixSlot(v, r, k), l.eq(v.prefix(v.group(r), k))));
}

/** Whether read record `x` of `r` at position `k` is a leak (`spec/reads.ts`, verdict `isolation`). */
export function leaks(v: Vocabulary, r: Z, k: Z, x: Z): F {
  const { And, Not } = v.ctx;
  const l = v.rdLabel(x);
  return And(v.isRd(x), Not(l.eq(v.none)), Not(mayReadAt(v, r, k, l)));
}

/** Whether `r` shares its first pages with the prefix cache (HIT or INSERTED). */
export function shares(v: Vocabulary, s: ZState, r: Z): F {
  return v.ctx.Or(holds(s.hit, r), holds(s.inserted, r));
}

/** Whether slot `k` of `r`'s table is a shared prefix page: a prefix position of a request that shares. */
export function sharedSlot(v: Vocabulary, s: ZState, r: Z, k: Z): F {
  return v.ctx.And(shares(v, s, r), prefixSlot(v, r, k));
}

/** Whether slot `k` of `r`'s table is one of its own pages: in its table, and not a shared prefix page. */
export function ownSlot(v: Vocabulary, s: ZState, r: Z, k: Z): F {
  const { And, Not } = v.ctx;
  return And(v.inTable(r, k), Not(sharedSlot(v, s, r, k)));
}

/** r's first own slot: past the shared prefix pages (`plen`) when it shares them, else slot 0. */
export function firstOwnSlot(v: Vocabulary, s: ZState, r: Z): Z {
  const { If, And } = v.ctx;
  return If(And(shares(v, s, r), v.hasPrefix(r)), v.firstOwn(v.group(r)), v.slot0) as Z;
}

/** What prefill writes into slot `k` of `r`'s table: page `k` of the prefix's data at a prefix position, else r's own. */
export function slotLabel(v: Vocabulary, r: Z, k: Z): Z {
  return v.ctx.If(prefixSlot(v, r, k), v.prefix(v.group(r), k), v.body(r)) as Z;
}

/** Whether a phase is one in which the request holds its table (`isLive` in `state.ts`). */
export function live(v: Vocabulary, phase: Z): F {
  return v.ctx.Or(...PHASES.filter((_, code) => isLive(code)).map((p) => phase.eq(v.ph(p))));
}
