/**
 * allocate as a z3 relation (spec/allocation.ts): the pages a request takes, from the free
 * list or, on a hit, from its prefix's cache entry. Its own file, as in the spec, because
 * it is the one action whose choice of pages the encoding leaves open (any free pages, any
 * order), and the double-free fault's multiset free list changes it most.
 */
import { at, forAll, holds, lambda, prefixSlot, put, type F, type Vocabulary, type Z, type ZState } from './vocabulary.ts';
import { copies, setPhase, type Transition } from './encoding-kit.ts';
import type { Semantics } from './semantics.ts';

/**
 * allocate(r). Looser than the spec: any free pages, not the lowest ones (every allocation
 * order at once), and a hit may be passed over although the prefix is cached (the spec
 * always takes the cached page). With fault double-free, pages with a copy on the free
 * list, held or not; two slots take the same page only if it is there twice, and each
 * taken page loses at least one copy (the spec: as many as the slots that took it).
 */
export function allocate(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx, none } = v;
  const { And, Implies, If, Not, Or } = ctx;
  const hit = ctx.Bool.const('allocate.hit');
  const row = ctx.Array.const('allocate.row', v.Slot, v.Page);
  const taken = ctx.Array.const('allocate.taken', v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const('allocate.slotOf', v.Page, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const k2 = ctx.Const('k2', v.Slot);
  const p = ctx.Const('p', v.Page);
  const q = ctx.Const('q', v.Req);
  const takenSlot = (x: Z): F => And(v.inTable(r, x), Not(And(hit, prefixSlot(v, r, x))));
  const freeAfter = s.free === undefined ? undefined : ctx.Array.const('allocate.free', v.Page, ctx.Int.sort());
  return {
    constraints: [
      at(s.phase, r).eq(v.ph('new')),
      // On a hit, each prefix position k is a page held as page k of r's prefix's cache entry, shared, not taken.
      Implies(hit, And(v.hasPrefix(r), forAll(v, [k], Implies(prefixSlot(v, r, k), at(s.holder, at(row, k)).eq(v.prefix(v.group(r), k)))))),
      // Every other slot takes a free page, each a different one. With fault double-free any
      // page may sit on the free list more than once, so the taken pages are any pages at all.
      ...(s.free !== undefined && freeAfter !== undefined
        ? [
            forAll(v, [k], Implies(takenSlot(k), And(copies(s.free, at(row, k)).ge(1), holds(taken, at(row, k))))),
            forAll(v, [k, k2], Implies(And(takenSlot(k), takenSlot(k2), Not(k.eq(k2)), at(row, k).eq(at(row, k2))), copies(s.free, at(row, k)).ge(2))),
            forAll(v, [p], If(holds(taken, p), And(copies(freeAfter, p).ge(0), copies(freeAfter, p).le(copies(s.free, p).sub(1))), copies(freeAfter, p).eq(copies(s.free, p))) as F),
          ]
        : [
            forAll(v, [k], Implies(takenSlot(k), And(at(s.holder, at(row, k)).eq(none), holds(taken, at(row, k))))),
            forAll(v, [k, k2], Implies(And(takenSlot(k), takenSlot(k2), Not(k.eq(k2))), Not(at(row, k).eq(at(row, k2))))),
          ]),
      // And nothing else is taken.
      forAll(v, [p], Implies(holds(taken, p), And(takenSlot(at(slotOf, p)), at(row, at(slotOf, p)).eq(p)))),
    ],
    post: {
      ...s,
      holder: lambda(v, [p], If(holds(taken, p), v.body(r), at(s.holder, p))),
      tag: sem.ownerCheck ? lambda(v, [p], If(holds(taken, p), none, at(s.tag, p))) : s.tag,
      table: lambda(v, [q, k], If(q.eq(r), at(row, k), at(s.table, q, k))),
      hit: put(s.hit, r, Or(holds(s.hit, r), hit)),
      phase: setPhase(s, r, v.ph('allocated')),
      ...(freeAfter === undefined ? {} : { free: freeAfter }),
    },
  };
}
