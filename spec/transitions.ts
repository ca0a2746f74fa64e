/**
 * The transitions of the model. Each action is a pure function from a state to the next
 * state, or `undefined` when the action is not enabled: guards first, then effects on a
 * copy; whatever an action does not mention stays as it was. Enabledness is defined here
 * and nowhere else: the checker, the tests and the implementation's harness all ask
 * {@link isEnabled} or {@link step}. A transition never writes its input: it returns a
 * copy with its effects. A request changes phase only through `enter`
 * (`liveness.ts`), which also resets what dies with the phase.
 * Effects are written through the named setters of `state.ts` (a phase, a holder, a write
 * with its label and position).
 *
 * P's write. `prefill` and `stub` are where P writes D's pages; what they write, page by
 * page, is the request's write set (`writes.ts`). Without fault `torn-write` a write
 * lands whole in the action that makes it. With it, the action only posts the write, and
 * every page write is two parts that land one at a time, in separate actions:
 * `landData` (the content) and `landTag` (the owner tag, where there is one). The two
 * streams of one write are independent of each other and of everything else.
 *
 * Why two parts per page write is enough. In real code a page write is many RDMA writes
 * (per layer, per 16 KB slice, over several NICs) and the tag is one more. What the
 * properties and the owner check can tell apart about a page is only: is any of its
 * content not the reader's own for this position, and what does its tag say. Splitting
 * the content into k slices changes the first only at the moment the first foreign
 * slice lands, or the last own one: a content part that lands at that moment reaches the
 * same verdicts. The tag is one word, written by one atomic RDMA write. So two parts per
 * page, landing in any order against every other action, reach every verdict that more
 * parts could. Within one stream the pages land in table order: a counterexample needs
 * only one bad page, and the earlier pages of the same stream can always land just
 * before it.
 */
import type { Action, ActionKind } from './actions.ts';
import type { Model } from './model.ts';
import type { State } from './state.ts';
import { allocate } from './allocation.ts';
import { decode, grow } from './decode-steps.ts';
import { free, timeout } from './freeing.ts';
import { evict, insert } from './prefix-cache.ts';
import { offload, resume, retract } from './retraction.ts';
import { allocFail } from './alloc-fail.ts';
import { abortCommit } from './abort-commit.ts';
import { abortSource } from './source-pages.ts';
import { landDraft } from './draft.ts';
import { landPayload, landRoom } from './aux.ts';
import { evictHost, loadBack } from './loadback.ts';
import { handoff, landData, landTag, prefill, stub } from './transfer.ts';

// The actions, one file per group; the registry below gathers them.
export * from './allocation.ts';
export * from './transfer.ts';
export * from './decode-steps.ts';
export * from './freeing.ts';
export * from './prefix-cache.ts';

/** A transition of one kind: the next state, or `undefined` when not enabled. */
export type Transition = (m: Model, s: State, r: number) => State | undefined;

/** Every action kind's transition: the one place a new kind is registered (its name goes in `ACTION_KINDS`). */
export const TRANSITIONS: Readonly<Record<ActionKind, Transition>> = { allocate, prefill, stub, handoff, grow, decode, free, timeout, insert, evict, landData, landTag, retract, offload, resume, allocFail, abortCommit, abortSource, landRoom, landPayload, landDraft, loadBack, evictHost };

/** Takes action `a` in state `s`: the next state, or `undefined` when `a` is not enabled. */
export function step(m: Model, s: State, a: Action): State | undefined {
  // Under allocator `any` an allocation (and a grow) names its pages; every other action is a kind and a request.
  if (a.kind === 'allocate') return allocate(m, s, a.r, a.pages);
  return a.kind === 'grow' ? grow(m, s, a.r, a.pages) : TRANSITIONS[a.kind](m, s, a.r);
}

/** Whether action `a` is enabled in state `s`. */
export function isEnabled(m: Model, s: State, a: Action): boolean {
  return step(m, s, a) !== undefined;
}
