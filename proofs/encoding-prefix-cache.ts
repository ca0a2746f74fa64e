/**
 * insert as a z3 relation (spec/prefix-cache.ts): a request's prefix pages handed to its
 * prefix's cache entry. Its own file, as in the spec, because it is the one action that
 * makes the cache a page's holder (fault prefix-poison: from a request that failed);
 * evict, the other action of the cache, is not encoded (`encoding.ts`).
 */
import { at, forAll, holds, lambda, prefixSlot, put, shares, type F, type Vocabulary, type Z, type ZState } from './vocabulary.ts';
import { phaseIn, type Transition } from './encoding-kit.ts';
import type { Semantics } from './semantics.ts';

/**
 * insert(r): r's pages at its prefix's positions `k < plen` go to its prefix's cache entry,
 * page `k` as the entry's page `k`, if the entry holds no page yet. `slotOf[p]` is the
 * position whose page `p` is. Looser than the spec: a page at two positions becomes either
 * page of the entry (the spec: the later one's).
 */
export function insert(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx } = v;
  const { And, If, Implies, Not, Or, Bool } = ctx;
  const moved = ctx.Array.const('insert.moved', v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const('insert.slotOf', v.Page, v.Slot);
  const p = ctx.Const('p', v.Page);
  const k = ctx.Const('k', v.Slot);
  const g = v.group(r);
  const poison = sem.fault['prefix-poison'] ? phaseIn(v, s, r, 'refused', 'failed') : Bool.val(false);
  const entryPage = (l: Z): F => And(v.isPrefix(l), v.prefixGrp(l).eq(g), prefixSlot(v, r, v.prefixPos(l)));
  return {
    constraints: [
      v.hasPrefix(r),
      forAll(v, [p], Not(entryPage(at(s.holder, p)))),
      Not(shares(v, s, r)),
      forAll(v, [k], Implies(prefixSlot(v, r, k), And(at(s.holder, at(s.table, r, k)).eq(v.body(r)), holds(moved, at(s.table, r, k))))),
      forAll(v, [p], Implies(holds(moved, p), And(prefixSlot(v, r, at(slotOf, p)), at(s.table, r, at(slotOf, p)).eq(p)))),
      Or(phaseIn(v, s, r, 'decoded'), poison),
    ],
    post: { ...s, holder: lambda(v, [p], If(holds(moved, p), v.prefix(g, at(slotOf, p)), at(s.holder, p)) as Z), inserted: put(s.inserted, r, true) },
  };
}
