/**
 * A release as SGLang makes it: not one call of the allocator, but two or three, in order.
 * Read from `sgl-project/sglang`, `python/sglang/srt/`:
 * - `mem_cache/common.py`, `release_kv_cache`: returns early when `not req.kv.holds_kv`
 *   (the idempotency guard), else calls the prefix cache's `cache_finished_req`, then
 *   `_release_overallocated_kv_indices`, which frees the rest of the row with
 *   `allocator.free_segment(indices, start_pos=ceil_align(start_p, page_size))`, then marks
 *   the request released (`mark_kv_released`), so that the guard stops a second release.
 * - `mem_cache/radix_cache.py`, `cache_finished_req`: one `free` of the duplicates (the
 *   pages `kv_indices[cache_protected_len:new_prefix_len]` that the tree already held when
 *   the request inserted its prefix; without insert, `kv_indices[cache_protected_len:len(keys)]`),
 *   then one `free` of the unaligned tail, `kv_indices[len(keys):]`, the page the committed
 *   tokens end in when they end mid-page.
 * - `mem_cache/allocator/paged.py`, `PagedTokenToKVPoolAllocator.free`: `torch.unique` of the
 *   call's pages (distinct, ascending), then `_release_page_ids`: under `need_sort` (P/D
 *   mode, allocator `sglang`) the pages are staged until an allocation runs short; otherwise
 *   (allocator `lifo`) prepended to the free list (`torch.cat((page_ids, free_pages))`).
 *   `free_segment` takes one page per page (`free_index[::page_size]`), with no `unique`:
 *   its contract is that "a page must be freed by only one call per group".
 * - `free_group_begin` / `free_group_end` (`allocator/base.py`, `paged.py`): the scheduler
 *   wraps a batch's results in a group (`managers/scheduler_output_processor_mixin.py`,
 *   `process_batch_result_decode`). Inside it, `free` only collects its pages and
 *   `free_segment` its page representatives; at the end the collected `free` pages are
 *   released as one call (one `unique`), then the segments' pages, not deduplicated. The
 *   debug check `_debug_check_no_duplicate_pages` runs there only under
 *   `SGLANG_DEBUG_MEMORY_POOL`, off by default.
 *
 * In the model. A table is the prompt's pages, reserved whole at `allocate`, and the tree
 * holds only a prefix, never a request's body. So one release of request `r`'s positions
 * `[shared, len)` is, in order:
 * 1. `free`, the duplicates: `r`'s own pages at its prefix's positions (a request that hit
 *    the cache, or inserted, shares them, and frees none);
 * 2. `free`, the tail: with token slots, the prompt's last page when the prompt ends
 *    mid-page (the committed tokens are taken at the prompt's end: decode's tokens stay
 *    inside the reserved table);
 * 3. `free_segment`, the segment: the pages between, a page-aligned run of the row; SGLang's
 *    tree would keep them (or `cache_finished_req` free them without insert), the model
 *    releases them with the request.
 * Under `lifo` the release is grouped: calls 1 and 2 join the free list as one
 * deduplicated, ascending batch, then the segment's pages in front of them. Under `sorted`,
 * `sglang` and `any` the free list (or release list) is a multiset of ids, and the calls'
 * order changes nothing.
 *
 * Fault `segment-overlap` (SGLang #38941, #38840): the segment starts one page early, on
 * the last page that an earlier call of the same release freed (the tail's, else the
 * duplicates' last page), as `free_segment` does when its `start_pos` is not aligned past
 * the tail. That page is freed twice within one release; a free list that keeps duplicates
 * holds it twice. A request with neither duplicates nor a tail has no earlier page to
 * share, and the fault changes nothing for it.
 *
 * The `holds_kv` guard and the faults of a second release. The guard is the model's
 * `free` guard: a request that no longer holds its pages is not released, and nothing
 * changes, so the early return is no transition at all. Faults `stale-free` and
 * `double-free` are a second release that the guard does not stop: the abort path and the
 * normal path both run, and the second one reaches the allocator with the old table
 * (in SGLang, a release path that frees without `release_kv_cache`, or before
 * `mark_kv_released`). `segment-overlap` needs no second release: the guard holds, and
 * the page is freed twice inside the one release it lets through.
 *
 * `hardened`'s `release-checks-holder` is checked page by page, in call order, and clears
 * the holder as it frees: the overlapping page's second free finds it held by nobody and
 * frees nothing (the checker shows that this suffices: test/spec/release.test.ts).
 */
import { put } from './allocator.ts';
import { bodyLabel, NO_PAGE, prefixLength, type Model } from './model.ts';
import { addFlags, holderOf, isLive, phaseOf, setHolder, sharedPages, tablePage, type State } from './state.ts';

/** The allocator function a call of a release goes through. */
export type ReleaseFn = 'free' | 'free_segment';

/** What SGLang frees with a call: `cache_finished_req`'s duplicates and tail, `free_segment`'s run. */
export type ReleasePart = 'duplicates' | 'tail' | 'segment';

/** One allocator call of a release: the table positions `[from, to)` it frees, and with the overlap one more. */
export interface ReleaseCall {
  /** The allocator function called. */
  readonly fn: ReleaseFn;
  /** What it frees. */
  readonly part: ReleasePart;
  /** The first table position of its run. */
  readonly from: number;
  /** One past its run's last position. */
  readonly to: number;
  /** With fault `segment-overlap`: the position of a page an earlier call already freed, which this call frees again; -1 otherwise. */
  readonly again: number;
}

/** The plain facts a release's calls follow from: the same for the spec, the pool and the scale reference. */
export interface ReleaseShape {
  /** Positions `[0, shared)` are the prefix cache's, freed by no call. */
  readonly shared: number;
  /** The request's prefix's length in pages (0 without a prefix). */
  readonly prefix: number;
  /** The table's length in pages. */
  readonly pages: number;
  /** The prompt's length in tokens. */
  readonly tokens: number;
  /** Token slots per page. */
  readonly pageSize: number;
  /** Whether fault `segment-overlap` is on. */
  readonly overlap: boolean;
}

/**
 * The calls of one release, in SGLang's order, empty ones left out: `free` of the
 * duplicates, `free` of the tail, `free_segment` of the rest (see the file's comment).
 */
export function releaseCalls(shape: ReleaseShape): ReleaseCall[] {
  const { shared, pages, pageSize } = shape;
  const dupEnd = Math.min(pages, Math.max(shared, shape.prefix));
  const tailFrom = pageSize > 1 && shape.tokens % pageSize !== 0 ? Math.max(dupEnd, pages - 1) : pages;
  const calls: ReleaseCall[] = [];
  if (dupEnd > shared) calls.push({ fn: 'free', part: 'duplicates', from: shared, to: dupEnd, again: -1 });
  if (tailFrom < pages) calls.push({ fn: 'free', part: 'tail', from: tailFrom, to: pages, again: -1 });
  // The overlap: the last page an earlier call freed (the tail's, else the duplicates' last).
  const last = calls.length === 0 ? -1 : calls[calls.length - 1]!.to - 1;
  if (tailFrom > dupEnd) calls.push({ fn: 'free_segment', part: 'segment', from: dupEnd, to: tailFrom, again: shape.overlap ? last : -1 });
  return calls;
}

/**
 * The batches the calls' pages join the free list in, as indices into the calls: one per
 * call, except under `lifo`, where the release is grouped (`free_group_end`): the `free`
 * calls as one batch, then the segment.
 */
export function releaseBatches(calls: readonly ReleaseCall[], grouped: boolean): number[][] {
  if (!grouped) return calls.map((_, k) => [k]);
  const frees = calls.flatMap((c, k) => (c.fn === 'free' ? [k] : []));
  const segments = calls.flatMap((c, k) => (c.fn === 'free_segment' ? [k] : []));
  return [frees, segments].filter((b) => b.length > 0);
}

/** Request `r`'s release in the model's terms. */
export function releaseShape(m: Model, s: State, r: number): ReleaseShape {
  return {
    shared: sharedPages(m, s, r),
    prefix: prefixLength(m, r),
    pages: m.len[r] ?? 0,
    tokens: m.tokens[r] ?? 0,
    pageSize: m.pageSize,
    overlap: m.fault['segment-overlap'],
  };
}

/** The `holds_kv` guard (`release_kv_cache`): whether request `r` still holds pages, so that a release reaches the allocator. */
export function holdsKv(m: Model, s: State, r: number): boolean {
  return isLive(phaseOf(m, s, r));
}

/** Request `r` freed a page twice within one release (fault `segment-overlap` fired); kept in its flags. */
export const OVERLAPPED = 16;

/**
 * Releases `r`'s table into `t` (a copy of `s`), call by call: each page's holder becomes
 * nobody, and the batches join the free list in order. Under `release-checks-holder` a
 * page is freed only while `r` still holds it, checked at its call. A page freed by two
 * calls marks `r` {@link OVERLAPPED}.
 */
export function releaseTable(m: Model, s: State, t: State, r: number): void {
  const calls = releaseCalls(releaseShape(m, s, r));
  const checked = m.mechanism['release-checks-holder'];
  // The pages this release has freed: a page at two positions of one table (after a
  // double free) goes back once, as in one `unique`d call; only the overlap frees twice.
  const freed: number[] = [];
  for (const batch of releaseBatches(calls, m.allocator === 'lifo')) {
    const pages: number[] = [];
    for (const k of batch) {
      const c = calls[k]!;
      // The page freed again comes first: `free_segment` starting one page early.
      for (let i = c.again >= 0 ? c.from - 1 : c.from; i < c.to; i++) {
        const p = tablePage(m, s, r, i < c.from ? c.again : i);
        if (p === NO_PAGE || (i >= c.from && freed.includes(p))) continue;
        freed.push(p);
        if (i < c.from) addFlags(m, t, r, OVERLAPPED);
        // The holder as the earlier calls left it: checked and cleared page by page.
        if (checked && holderOf(m, t, p) !== bodyLabel(r)) continue;
        setHolder(m, t, p, 0);
        pages.push(p);
      }
    }
    // Each batch reads the free list its predecessors left: `t` is both the state read and written.
    put(m, t, t, pages);
  }
}
