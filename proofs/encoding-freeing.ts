/**
 * free and timeout as z3 relations (spec/freeing.ts): both give a request's own pages back
 * to the free list through one release, normal, stale, doubled or early. Together because
 * the faults that make a release wrong (stale-free, double-free, early-free) and the
 * mechanism that guards it (release-checks-holder) are all in that one release.
 */
import { at, forAll, holds, lambda, ownSlot, type F, type Vocabulary, type Z, type ZState } from './vocabulary.ts';
import { copies, phaseIn, setPhase, type Transition } from './encoding-kit.ts';
import type { Semantics } from './semantics.ts';

/** The pages of r's own slots go back to the free list, whoever holds them now. */
function release(v: Vocabulary, sem: Semantics, s: ZState, r: Z, name: string): Transition {
  const { ctx, none } = v;
  const { And, Implies, If } = ctx;
  const freed = ctx.Array.const(`${name}.released`, v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const(`${name}.slotOf`, v.Page, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const p = ctx.Const('p', v.Page);
  // under release-checks-holder, only pages r still holds
  const held = (x: Z): F => (sem.mechanism['release-checks-holder'] ? at(s.holder, x).eq(v.body(r)) : ctx.Bool.val(true));
  return {
    constraints: [
      forAll(v, [k], Implies(And(ownSlot(v, s, r, k), held(at(s.table, r, k))), holds(freed, at(s.table, r, k)))),
      forAll(v, [p], Implies(holds(freed, p), And(ownSlot(v, s, r, at(slotOf, p)), at(s.table, r, at(slotOf, p)).eq(p), held(p)))),
    ],
    post: {
      ...s,
      holder: lambda(v, [p], If(holds(freed, p), none, at(s.holder, p))),
      // a multiset free list gains a copy of every page released (once per release: the spec deduplicates within one call)
      ...(s.free === undefined ? {} : { free: lambda(v, [p], If(holds(freed, p), copies(s.free, p).add(1), copies(s.free, p)) as Z) }),
    },
  };
}

/**
 * free(r): the normal release, or (fault stale-free) a second one of an old table, or
 * (fault double-free) the same while its pages are still free. The free list stays a set
 * here; the duplicate hand-out that follows in the spec is encoded in `allocate`, which
 * under double-free may take any page.
 */
export function free(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const normal = phaseIn(v, s, r, 'decoded', 'refused', 'failed');
  const k = v.ctx.Const('k', v.Slot);
  // Double-free's second release: while every page of the old table is still free.
  const stillFree = forAll(v, [k], v.ctx.Implies(ownSlot(v, s, r, k), at(s.holder, at(s.table, r, k)).eq(v.none)));
  const stale = sem.fault['stale-free']
    ? phaseIn(v, s, r, 'freed', 'landed')
    : sem.fault['double-free']
      ? v.ctx.And(phaseIn(v, s, r, 'freed', 'landed'), stillFree)
      : v.ctx.Bool.val(false);
  const rel = release(v, sem, s, r, 'free');
  return {
    constraints: [v.ctx.Or(normal, stale), ...rel.constraints],
    post: { ...rel.post, phase: setPhase(s, r, v.ctx.If(normal, v.ph('freed'), v.ph('released')) as Z) },
  };
}

/** timeout(r), fault early-free: D frees r's pages while P's write is in flight (posted, or with parts landing). */
export function timeout(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const rel = release(v, sem, s, r, 'timeout');
  const { If } = v.ctx;
  const torn = sem.mechanism['revoke-writer'] ? v.ph('landed') : v.ph('landing');
  return {
    constraints: [v.ctx.Bool.val(sem.fault['early-free']), phaseIn(v, s, r, 'allocated', 'writing'), ...rel.constraints],
    post: { ...rel.post, phase: setPhase(s, r, If(phaseIn(v, s, r, 'allocated'), v.ph('timedOut'), torn) as Z) },
    ...(sem.fault['early-free'] ? {} : { never: true as const }),
  };
}
