/**
 * P's write as z3 relations (spec/transfer.ts and spec/writes.ts): prefill and stub, the
 * handoff that follows them, and under fault torn-write the posted write whose parts land
 * one at a time (landData, landTag). Together because they share what a write is: its
 * write set (`inWrite`), the label it puts at each slot (`writeLabel`) and whether it
 * lands at all (`revoke-writer`). The hold invariant's conjuncts read the first two.
 */
import { at, firstOwnSlot, forAll, holds, lambda, ownSlot, prefixSlot, put, slotLabel, type Arr, type F, type Vocabulary, type Z, type ZState } from './vocabulary.ts';
import { phaseIn, setPhase, type Transition } from './encoding-kit.ts';
import type { Semantics } from './semantics.ts';

/**
 * prefill(r): every own slot (all but a shared slot 0) is written, by page id, whoever
 * holds the page now. `slotOf[p]` is the slot whose write page `p` got. Looser than the
 * spec: a page named by two slots gets either slot's label (the spec: the later one's).
 */
export function prefill(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx } = v;
  const { And, Implies, If } = ctx;
  const written = ctx.Array.const('prefill.written', v.Page, ctx.Bool.sort());
  const slotOf = ctx.Array.const('prefill.slotOf', v.Page, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const p = ctx.Const('p', v.Page);
  const label = (x: Z): Z => slotLabel(v, r, at(slotOf, x));
  const lands = landsAnywhere(v, sem, s, r);
  if (sem.fault['torn-write']) return { constraints: [v.len(r).le(v.limit), phaseIn(v, s, r, 'allocated', 'timedOut')], post: posted(v, s, r, lands) };
  return {
    constraints: [
      v.len(r).le(v.limit),
      phaseIn(v, s, r, 'allocated', 'timedOut'),
      forAll(v, [k], Implies(ownSlot(v, s, r, k), holds(written, at(s.table, r, k)))),
      forAll(v, [p], Implies(holds(written, p), And(ownSlot(v, s, r, at(slotOf, p)), at(s.table, r, at(slotOf, p)).eq(p)))),
    ],
    post: {
      ...s,
      data: lambda(v, [p], If(And(lands, holds(written, p)), label(p), at(s.data, p))),
      dataPos: lambda(v, [p], If(And(lands, holds(written, p)), at(slotOf, p), at(s.dataPos, p))),
      tag: sem.ownerCheck ? lambda(v, [p], If(And(lands, holds(written, p)), label(p), at(s.tag, p))) : s.tag,
      phase: setPhase(s, r, If(phaseIn(v, s, r, 'timedOut'), v.ph('landed'), v.ph('written')) as Z),
    },
  };
}

/** stub(r): the silent stub writes r's data into its first own page only; otherwise P refuses. */
export function stub(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { If } = v.ctx;
  const guard = [v.len(r).gt(v.limit), phaseIn(v, s, r, 'allocated', 'timedOut')];
  const late = phaseIn(v, s, r, 'timedOut');
  if (!sem.silentStub) {
    return { constraints: guard, post: { ...s, phase: setPhase(s, r, If(late, v.ph('freed'), v.ph('refused')) as Z) } };
  }
  const slot = firstOwnSlot(v, s, r);
  const page = at(s.table, r, slot);
  const lands = landsAnywhere(v, sem, s, r);
  if (sem.fault['torn-write']) return { constraints: guard, post: posted(v, s, r, lands) };
  return {
    constraints: guard,
    post: {
      ...s,
      data: If(lands, put(s.data, page, v.body(r)), s.data) as Arr,
      dataPos: If(lands, put(s.dataPos, page, slot), s.dataPos) as Arr,
      tag: sem.ownerCheck ? (If(lands, put(s.tag, page, v.body(r)), s.tag) as Arr) : s.tag,
      phase: setPhase(s, r, If(late, v.ph('landed'), v.ph('written')) as Z),
    },
  };
}

/** handoff(r): P reported Success; D commits. */
export function handoff(v: Vocabulary, s: ZState, r: Z): Transition {
  return { constraints: [phaseIn(v, s, r, 'written')], post: { ...s, phase: setPhase(s, r, v.ph('handedOff')) } };
}

/**
 * Fault torn-write: P's write is posted, none of its parts landed yet; the request is
 * writing (landing, when D already timed it out). A late write that does not land at all
 * (`revoke-writer`) leaves the request landed.
 */
function posted(v: Vocabulary, s: ZState, r: Z, lands: F): ZState {
  const { ctx } = v;
  const { If, And } = ctx;
  const q = ctx.Const('q', v.Req);
  const k = ctx.Const('k', v.Slot);
  const reset = (a: Arr): Arr => lambda(v, [q, k], If(And(lands, q.eq(r)), ctx.Bool.val(false), at(a, q, k)) as Z);
  const late = phaseIn(v, s, r, 'timedOut');
  return {
    ...s,
    dataLanded: reset(s.dataLanded),
    tagLanded: reset(s.tagLanded),
    phase: setPhase(s, r, If(lands, If(late, v.ph('landing'), v.ph('writing')), v.ph('landed')) as Z),
  };
}

/** Whether slot `k` is in r's write set: its first own slot for a stub, every own slot for a prefill. */
export function inWrite(v: Vocabulary, s: ZState, r: Z, k: Z): F {
  const { If, And } = v.ctx;
  const first = firstOwnSlot(v, s, r);
  return If(v.len(r).gt(v.limit), And(v.inTable(r, k), k.eq(first)), ownSlot(v, s, r, k)) as F;
}

/** What r's write puts at slot `k`: page `k` of its prefix's content at a prefix position of a prefill, else its own. */
export function writeLabel(v: Vocabulary, r: Z, k: Z): Z {
  const { If, And } = v.ctx;
  return If(And(prefixSlot(v, r, k), v.len(r).le(v.limit)), v.prefix(v.group(r), k), v.body(r)) as Z;
}

/**
 * landData(r) / landTag(r), fault torn-write: one part of r's write not yet landed lands,
 * by page id, whoever holds the page now. Looser than the spec: any such part, not the
 * next in table order. When every part of both streams (content only, without an owner
 * check) has landed, r is written (landed, when it was timed out).
 */
export function land(v: Vocabulary, sem: Semantics, s: ZState, r: Z, part: 'data' | 'tag'): Transition {
  const { ctx } = v;
  const { And, If, Implies, Not } = ctx;
  const k = ctx.Const(`${part}.part`, v.Slot);
  const k2 = ctx.Const('k2', v.Slot);
  const p = ctx.Const('p', v.Page);
  const flags = part === 'data' ? s.dataLanded : s.tagLanded;
  const after = put(flags, r, k, true);
  const page = at(s.table, r, k);
  const dataLanded = part === 'data' ? after : s.dataLanded;
  const tagLanded = part === 'tag' ? after : s.tagLanded;
  const done = forAll(v, [k2], Implies(inWrite(v, s, r, k2), And(holds(dataLanded, r, k2), sem.ownerCheck ? holds(tagLanded, r, k2) : ctx.Bool.val(true))));
  const finished = If(phaseIn(v, s, r, 'landing'), v.ph('landed'), v.ph('written')) as Z;
  const enabled = sem.fault['torn-write'] && (part === 'data' || sem.ownerCheck);
  return {
    constraints: [ctx.Bool.val(enabled), phaseIn(v, s, r, 'writing', 'landing'), inWrite(v, s, r, k), Not(holds(flags, r, k))],
    post: {
      ...s,
      ...(part === 'data'
        ? {
            data: lambda(v, [p], If(p.eq(page), writeLabel(v, r, k), at(s.data, p)) as Z),
            dataPos: lambda(v, [p], If(p.eq(page), k, at(s.dataPos, p)) as Z),
          }
        : { tag: sem.ownerCheck ? lambda(v, [p], If(p.eq(page), writeLabel(v, r, k), at(s.tag, p)) as Z) : s.tag }),
      dataLanded,
      tagLanded,
      phase: setPhase(s, r, If(done, finished, at(s.phase, r)) as Z),
    },
    ...(enabled ? {} : { never: true as const }),
  };
}

/** Whether r's write lands at all: not a late one under `revoke-writer`, whose access was revoked at the timeout. */
function landsAnywhere(v: Vocabulary, sem: Semantics, s: ZState, r: Z): F {
  return sem.mechanism['revoke-writer'] ? v.ctx.Not(phaseIn(v, s, r, 'timedOut')) : v.ctx.Bool.val(true);
}
