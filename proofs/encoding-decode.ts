/**
 * decode as a z3 relation (spec/decode-steps.ts): one step's owner check, the labels and
 * read records it adds, and the token it writes. Its own file because it is where the
 * invariants' read set and read records change, and the only relation with a severity
 * order between two records.
 */
import { at, forAll, holds, lambda, leaks, mayReadAt, put, type Arr, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';
import { phaseIn, setPhase, type Transition } from './encoding-kit.ts';
import type { Semantics } from './semantics.ts';

/**
 * decode(r), one step: with the owner check, every slot's tag must be r's own label, or its
 * prefix's at slot 0, or r fails and reads nothing; otherwise the label of every page in the
 * table joins r's read set, and the read record of every position keeps the worse of what
 * it held and what this step read there (`spec/reads.ts`). `slotOf[l]` is the slot whose
 * page gave label `l`, constrained to name such a slot whenever there is one: a label joins
 * exactly when some slot's page holds it. Every step after the first then writes r's token
 * into its last page. The READ_UNHELD flag is not encoded: nothing reads it.
 */
export function decode(v: Vocabulary, sem: Semantics, s: ZState, r: Z): Transition {
  const { ctx, none } = v;
  const { And, Implies, If, Not, Or } = ctx;
  const ok = ctx.Bool.const('decode.ok');
  const slotOf = ctx.Array.const('decode.slotOf', v.Label, v.Slot);
  const k = ctx.Const('k', v.Slot);
  const q = ctx.Const('q', v.Req);
  const l = ctx.Const('l', v.Label);
  const p = ctx.Const('p', v.Page);
  const page = (x: Z): Z => at(s.table, r, x);
  const checked = forAll(v, [k], Implies(v.inTable(r, k), mayReadAt(v, r, k, at(s.tag, page(k)))));
  const gainedVia = (x: Z, from: Z): F => And(Not(x.eq(none)), v.inTable(r, from), at(s.data, page(from)).eq(x));
  const gained = gainedVia(l, at(slotOf, l));
  const l2 = ctx.Const('l2', v.Label);
  const read = v.rd(at(s.data, page(k)), And(Not(at(s.data, page(k)).eq(none)), Not(at(s.dataPos, page(k)).eq(k))));
  const old = at(s.rec, r, k);
  const kept = If(Not(v.isRd(old)), read, If(severity(v, r, k, read).gt(severity(v, r, k, old)), read, old)) as Z;
  const steps = (at(s.steps, r) as N).add(1);
  const token = And(ok, steps.gt(1));
  const lastPage = page(v.last(r));
  return {
    constraints: [
      phaseIn(v, s, r, 'handedOff', 'decoding'),
      sem.ownerCheck ? ok.eq(checked) : ok,
      // slotOf names a slot holding the label whenever one does: every label in the table is read
      forAll(v, [l2, k], Implies(gainedVia(l2, k), gainedVia(l2, at(slotOf, l2)))),
    ],
    post: {
      ...s,
      read: lambda(v, [q, l], Or(holds(s.read, q, l), And(ok, q.eq(r), gained))),
      rec: lambda(v, [q, k], If(And(ok, q.eq(r), v.inTable(r, k)), kept, at(s.rec, q, k)) as Z),
      steps: If(ok, put(s.steps, r, steps), s.steps) as Arr,
      data: lambda(v, [p], If(And(token, p.eq(lastPage)), v.body(r), at(s.data, p)) as Z),
      dataPos: lambda(v, [p], If(And(token, p.eq(lastPage)), v.last(r), at(s.dataPos, p)) as Z),
      tag: sem.ownerCheck ? lambda(v, [p], If(And(token, p.eq(lastPage)), v.body(r), at(s.tag, p)) as Z) : s.tag,
      phase: setPhase(s, r, If(ok, If(steps.ge(v.decodeSteps), v.ph('decoded'), v.ph('decoding')), v.ph('failed')) as Z),
    },
  };
}

/** How bad read record `x` of `r` at position `k` is: 0 correct (or unread), 1 garbage (Integrity), 2 a leak (Isolation). */
function severity(v: Vocabulary, r: Z, k: Z, x: Z): N {
  const { If, Or, Not, And, Int } = v.ctx;
  const bad = And(v.isRd(x), Or(v.rdLabel(x).eq(v.none), v.rdMisplaced(x), Not(mayReadAt(v, r, k, v.rdLabel(x)))));
  return If(leaks(v, r, k, x), Int.val(2), If(bad, Int.val(1), Int.val(0))) as N;
}
