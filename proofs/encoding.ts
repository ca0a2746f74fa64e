/**
 * The spec's transitions (`spec/transitions.ts`) as z3 relations between a pre-state `s`
 * and a post-state built from it, for an arbitrary acting request `r`: this file holds the
 * initial state and the dispatch by kind; each action's relation is in the file of its
 * group, as in the spec (`encoding-allocation.ts`, `encoding-transfer.ts`,
 * `encoding-decode.ts`, `encoding-freeing.ts`, `encoding-prefix-cache.ts`), built from
 * `encoding-kit.ts`, with what the variant and faults switch on from `semantics.ts`.
 *
 * Each action gives its guards, then its effects; whatever it does not mention is the
 * pre-state's array itself. Where the spec is deterministic in a way that needs a bounded
 * loop (which free pages, which page a write lands in), the encoding chooses with fresh
 * symbols, constrained by what the spec guarantees. Where it is looser than the spec, the
 * comment says so; every such place only adds behaviours, and an invariant preserved by a
 * larger transition relation is preserved by the spec's.
 */
import { match } from 'ts-pattern';
import type { ActionKind } from '../spec/index.ts';
import { isProofKind } from './coverage.ts';
import { allocate } from './encoding-allocation.ts';
import { decode } from './encoding-decode.ts';
import { free, timeout } from './encoding-freeing.ts';
import type { Transition } from './encoding-kit.ts';
import { insert } from './encoding-prefix-cache.ts';
import { handoff, land, prefill, stub } from './encoding-transfer.ts';
import type { Semantics } from './semantics.ts';
import { at, forAll, holds, type F, type N, type Vocabulary, type Z, type ZState } from './vocabulary.ts';

/** The initial state: every page free and never written, every request new with nothing read. Tables are left arbitrary. */
export function initial(v: Vocabulary, s: ZState): F[] {
  const { ctx, none } = v;
  const p = ctx.Const('p', v.Page);
  const q = ctx.Const('q', v.Req);
  const l = ctx.Const('l', v.Label);
  const k = ctx.Const('k', v.Slot);
  return [
    forAll(v, [p], ctx.And(at(s.holder, p).eq(none), at(s.data, p).eq(none), at(s.tag, p).eq(none))),
    forAll(v, [q], ctx.And(at(s.phase, q).eq(v.ph('new')), ctx.Not(holds(s.hit, q)), ctx.Not(holds(s.inserted, q)))),
    forAll(v, [q, l], ctx.Not(holds(s.read, q, l))),
    forAll(v, [q], (at(s.steps, q) as N).eq(0)),
    forAll(v, [q, k], at(s.rec, q, k).eq(v.unread)),
    // every page on the free list at most once (looser than the spec: its pages from the first id on, exactly once)
    ...(s.free === undefined ? [] : [forAll(v, [p], ctx.And((at(s.free, p) as N).ge(0), (at(s.free, p) as N).le(1)))]),
  ];
}

/** The transition of `kind`, taken by request `r` in state `s`. */
export function transition(v: Vocabulary, sem: Semantics, kind: ActionKind, s: ZState, r: Z): Transition {
  // A kind the proof does not cover (proofs/coverage.ts: evict, grow, retraction's) never happens in the configurations it is about.
  if (!isProofKind(kind)) return evictNever(v, s);
  return match(kind)
    .with('allocate', () => allocate(v, sem, s, r))
    .with('prefill', () => prefill(v, sem, s, r))
    .with('stub', () => stub(v, sem, s, r))
    .with('handoff', () => handoff(v, s, r))
    .with('decode', () => decode(v, sem, s, r))
    .with('free', () => free(v, sem, s, r))
    .with('timeout', () => timeout(v, sem, s, r))
    .with('insert', () => insert(v, sem, s, r))
    .with('landData', () => land(v, sem, s, r, 'data'))
    .with('landTag', () => land(v, sem, s, r, 'tag'))
    .exhaustive();
}

/**
 * evict(r), and every kind the proof does not cover (proofs/coverage.ts): not encoded. The
 * spec enables evict only with config `eviction` (grow with `tableGrowth`, retraction's
 * with `retraction`), and the proof is about configurations without it (the prefix cache
 * there holds a page for good), so the action never happens.
 */
function evictNever(v: Vocabulary, s: ZState): Transition {
  return { constraints: [v.ctx.Bool.val(false)], post: s, never: true };
}
