/**
 * The allocation of a new request's page table, at admission. What taking a table means
 * (a hit on the prefix's cache entry, the rest in the allocation order) is `hold.ts`'s,
 * shared with `resume`; the order itself is `allocator.ts`'s.
 */
import { canAllocate, promptTokensTaken } from './allocator.ts';
import { enter } from './liveness.ts';
import type { Model } from './model.ts';
import { phaseOf, Ph, type State } from './state.ts';
import { planHold, takeHold } from './hold.ts';
import { slotFree, takeSlot } from './aux.ts';
import { takeSlots } from './state-slots.ts';
import { postLoad } from './loadback.ts';

/**
 * D reserves pages for the whole prompt (`alloc_extend`) and sends their ids to P. Which
 * free pages it gets is the allocation order's (docs/ALLOCATOR.md): under `sorted` the
 * lowest free ids, the pages that the previous request just freed, with that request's
 * KV data still in them; under `sglang` the front of a sorted free list that recently
 * freed pages join only when it runs short.
 * @guard The request is new, and the free list (with `sglang`'s release list) holds
 * enough entries: its length, less its prefix's length when its prefix is cached.
 * @effect The request holds the pages the allocation order hands out, in the order taken,
 * as its page table; they leave the free list. On a prefix-cache hit the cached prefix
 * pages come first, page `j` of the entry at position `j`, and are shared, not taken.
 * Page contents are not touched.
 * Under allocator `any` the action names the pages it takes, and every choice of free
 * pages is its own action. With fault `aux-torn` it also takes D's one metadata slot, and
 * waits while another request holds it (`aux.ts`); with `stateSlots`, a state slot and a
 * metadata row (`state-slots.ts`). With `loadback`, a prefix that missed D's cache but is
 * in host memory gets pages of the request's own, and a load is posted into them
 * (`loadback.ts`).
 * @variant owner-check The owner tags of the pages taken are cleared: a tag that is cheap
 * to clear is what makes "written during the current hold" checkable.
 */
export function allocate(m: Model, s: State, r: number, pages?: readonly number[]): State | undefined {
  if (phaseOf(m, s, r) !== Ph.new) return undefined;
  const plan = planHold(m, s, r, m.promptPages[r]!);
  // Under `any` the action names its pages: enabled when they are free and as many as needed.
  if (!canAllocate(m, s, plan.need, pages) || !slotFree(m, s)) return undefined;
  const t = s.slice();
  takeHold(m, s, t, r, plan, promptTokensTaken(m, r, plan.need), pages);
  takeSlot(m, t, r);
  takeSlots(m, s, t, r);
  postLoad(m, s, t, r, plan.hit);
  enter(m, t, r, 'allocated');
  return t;
}
