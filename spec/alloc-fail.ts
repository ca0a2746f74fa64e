/**
 * A failed allocation attempt (`allocFail`): D asks its allocator for a request's pages and
 * gets none, and the attempt still leaves a mark. Read from `sgl-project/sglang`,
 * `python/sglang/srt/mem_cache/allocator/paged.py` (`PagedTokenToKVPoolAllocator`, at
 * commit 0122d6f6317ad9dad94da758354db698d65b9b84): `alloc_extend` runs its shortage test
 * (`extend_num_tokens // page_size + bs + 1 > len(free_pages)`, spec/behaviour.ts's
 * `sglangShort`) and, when it finds the free list short, calls `merge_and_sort_free`
 * before it counts the pages it needs and returns `None` when they are still too many;
 * `alloc` (pages of one token) merges when it needs more than the free list holds, then
 * returns `None` the same way. So under the `sglang` order a failed attempt merges and
 * sorts the release list into the free list, and every later allocation takes its pages
 * from that merged list.
 *
 * Why the attempt fails exactly when `allocate` is not enabled. After a merge the free
 * list holds every free entry, so the attempt fails when the request needs more pages than
 * the free list and the release list hold together; without a merge it cannot fail, since
 * the shortage test asks for more pages than the allocation takes. And a request that fails
 * for want of pages always merges: it needs more than the free list alone holds, which the
 * test counts as short.
 *
 * Why `check` does not explore it. In SGLang's D a failed attempt does not happen:
 * `DecodePreallocQueue.pop_preallocated` admits a request only when its allocatable budget
 * (`available_size`, the release list included) covers it, and `_pre_alloc` asserts that
 * the allocation succeeded. The action is the spec's word for an attempt that some caller
 * makes without that check (an adapter driven by `mbt`, a log's `allocFail` line), so that
 * the merge it leaves is in the state; `kindPresent` leaves it out of the search, and the
 * state counts of every configuration stay as they were.
 *
 * Under `sorted`, `lifo` and `any` a failed attempt changes nothing, and is no transition;
 * nor under `sglang` when the release list is empty.
 */
import type { Action } from './actions.ts';
import { freeEntries, mergeAndSort, releasedEntries } from './allocator.ts';
import { planHold } from './hold.ts';
import type { Model } from './model.ts';
import { phaseOf, Ph, type State } from './state.ts';

/**
 * D's allocator refuses the request's pages, after merging its release list into its
 * free list (`alloc_extend` or `alloc` returning `None`).
 * @guard The allocation order is `sglang`, the request is new, the free list and the
 * release list together hold fewer entries than it needs (its prompt's pages, less those
 * `allocate` would share: its cached prefix's, or the radix tree's matched path), and the
 * release list is not empty.
 * @effect The release list is merged into the free list and sorted (`merge_and_sort_free`);
 * the request stays new, nothing is held, and no page's contents change.
 */
export function allocFail(m: Model, s: State, r: number): State | undefined {
  if (m.releaseAt < 0 || phaseOf(m, s, r) !== Ph.new) return undefined;
  // The pages `allocate` would take: past the cached prefix, or past the radix tree's matched path (hold.ts).
  const need = planHold(m, s, r, m.promptPages[r] ?? 0).need;
  if (freeEntries(m, s) >= need || releasedEntries(m, s) === 0) return undefined;
  const t = s.slice();
  mergeAndSort(m, s, t);
  return t;
}

/**
 * What an attempt of action `a` that the spec does not enable leaves behind, where it
 * leaves something: for an `allocate` refused for want of pages, the state of its
 * `allocFail`; otherwise `undefined` (a refused action changes nothing). A harness that
 * drives an implementation asks this after the implementation refused an action, as a
 * refused `allocate` of SGLang's allocator has already merged.
 */
export function afterRefusal(m: Model, s: State, a: Action): { readonly action: Action; readonly state: State } | undefined {
  if (a.kind !== 'allocate') return undefined;
  const state = allocFail(m, s, a.r);
  return state === undefined ? undefined : { action: { kind: 'allocFail', r: a.r }, state };
}
