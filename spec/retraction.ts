/**
 * Retraction and resume: a running request gives its pages back and holds again later
 * (config `retraction`). Read from `sgl-project/sglang`, `python/sglang/srt/`:
 * - `managers/scheduler.py`, `Scheduler.update_running_batch`: when
 *   `ScheduleBatch.check_decode_mem` finds too few free pages for the running batch's next
 *   step, `ScheduleBatch.retract_decode` (`managers/schedule_batch.py`) picks running
 *   requests and calls `release_req` on each. On the decode side of P/D (`disaggregation_mode
 *   == "decode"`) `release_req` first calls `Req.offload_kv_cache`, which asks
 *   `DecodeKVCacheOffloadManager.offload_kv_cache`
 *   (`disaggregation/decode_kvcache_offload_manager.py`) to copy the request's KV to host
 *   memory, then `release_kv_cache(req, tree_cache, is_insert=False)` (`mem_cache/common.py`),
 *   the release of `release.ts`, then `req.reset_for_retract()`. The request goes back to
 *   the waiting queue.
 * - `disaggregation/decode.py`, `resume_retracted_reqs`: a retracted request is admitted
 *   again through `_pre_alloc(req, fail_on_oom=True)`, with no prefix match (prefix length
 *   0: `_required_alloc_tokens(fill_len, prefix_len=0)`), which allocates a new row and new
 *   pages for all of `fill_len` (`alloc_extend`, the same shortage test as a first
 *   allocation), then
 *   `Req.load_kv_cache` writes the host copy into the new pages, and the request decodes
 *   on from where it stopped. A request holds pages twice; `DecodeReqToTokenPool`'s
 *   `req_generation` counts one generation per request slot.
 *
 * In the model. `retract` takes a running request (handed off, or between two decode
 * steps): the copy reads every page of its table, then the release frees them (the
 * prefix cache keeps what it shares, and the request unlocks it), and the request is
 * `retracted`. `resume` takes a table of the same room again, every position a new page
 * by the allocation order (`hold.ts`; no prefix hit, as SGLang's resume matches no
 * prefix), loads the copy into them, a write of the request's own label at its positions
 * (under an owner check the load stamps the tags), and the request decodes on: its steps
 * and what it read so far are kept. Its prefix positions hold the prefix's content again,
 * loaded from the copy, in pages of its own.
 *
 * When. SGLang retracts when the running batch runs short of pages, and that batch
 * holds requests the model does not have: every moment is a moment at which some batch
 * may run short. So `retract` is enabled for any running request at any time: the
 * behaviours include every moment the real trigger can pick.
 *
 * The faults:
 * - `offload-after-free` (PR #30899): the copy is asynchronous, and the release does not
 *   wait for it. `retract` releases at once and the request is `offloading`; the copy
 *   reads the old pages later, in its own action `offload`, whoever holds them and
 *   whatever was written there since. `resume` waits for the copy
 *   (`ongoing_offload`), as SGLang does.
 * - `resume-stale` (PR #35957): `resume` takes the new pages and reports the request
 *   resumed, but the load does not happen (the state it would load from sits in a slot
 *   another request now holds); the pages keep what they held, and no write stamps them.
 *
 * Why the label needs no generation here. In code a tag names a request slot
 * (`req_pool_idx`), which the next request reuses, so "mine" must be (slot, generation).
 * In the model a label names the request, never reused, and a request's KV at a position
 * is the same in every hold (the copy saves it and the load restores it): the request's
 * own content at the right position is right whichever hold wrote it. What can go wrong
 * between holds is another user's content in the copy or in the new pages, which the
 * label shows.
 */
import { canAllocate, resumeTokens } from './allocator.ts';
import { takeHold, unlockPrefix } from './hold.ts';
import { enter } from './liveness.ts';
import { bodyLabel, type Model } from './model.ts';
import { releaseTable } from './release.ts';
import { addFlags, clearFlags, clearSaved, HIT, INSERTED, Ph, phaseOf, RESUMED, savedPageOf, savePage, setDepth, setTag, stepsOf, tablePage, tableRoom, writeContent, type State } from './state.ts';

/**
 * D retracts a running request (`retract_decode` → `release_req`): the copy to host memory
 * reads its pages (`offload_kv_cache`), then `release_kv_cache` frees them.
 * @guard Config `retraction` is on and the request is running: handed off, or between two
 * decode steps.
 * @effect The saved copy holds, per table position, what the page there holds now (its
 * content, position and fill; under an owner check its tag). Every page of the table but
 * the prefix pages it shares with the cache is then free, released by `release.ts`'s
 * calls, and the request unlocks the entry it shared. The request is retracted; it holds
 * nothing.
 * With fault `offload-after-free` the release comes first and the copy has not read
 * anything yet: the request is offloading.
 */
export function retract(m: Model, s: State, r: number): State | undefined {
  if (!m.retraction) return undefined;
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.handedOff && phase !== Ph.decoding) return undefined;
  const t = s.slice();
  const late = m.fault['offload-after-free'];
  if (!late) copyTable(m, s, t, r);
  releaseTable(m, s, t, r);
  unlockPrefix(m, s, t, r);
  // It shares nothing with the cache now: resume decides again whether it hits.
  clearFlags(m, t, r, HIT | INSERTED);
  setDepth(m, t, r, 0);
  enter(m, t, r, late ? 'offloading' : 'retracted');
  return t;
}

/**
 * With fault `offload-after-free`: the copy to host memory reads the retracted request's
 * old pages, after their release.
 * @guard The request is offloading.
 * @effect The saved copy holds what the old table's pages hold now, whoever holds them.
 * The request is retracted.
 */
export function offload(m: Model, s: State, r: number): State | undefined {
  if (!m.fault['offload-after-free'] || phaseOf(m, s, r) !== Ph.offloading) return undefined;
  const t = s.slice();
  copyTable(m, s, t, r);
  enter(m, t, r, 'retracted');
  return t;
}

/**
 * D resumes a retracted request (`resume_retracted_reqs` → `_pre_alloc` → `load_kv_cache`).
 * @guard The request is retracted, and the free list holds as many entries as its table
 * held pages (the allocation order's own test, as `allocate`'s).
 * @effect The request holds a new table of the pages the allocation order hands out,
 * their owner tags cleared, with no prefix hit. The load writes the saved copy into them,
 * position by position: each page's content is the copy's (label, position and fill). It
 * decodes on:
 * handed off again, or between two steps, with its steps and its reads kept; it is marked
 * resumed.
 * @variant owner-check The load stamps every page with the request's label.
 * @variant hardened With `copy-carries-tag`, the load restores the tag the copy read with
 * the content instead.
 * With fault `resume-stale` the load does not happen: the new pages keep their contents
 * and their cleared tags.
 */
export function resume(m: Model, s: State, r: number): State | undefined {
  if (!m.retraction || phaseOf(m, s, r) !== Ph.retracted) return undefined;
  const room = tableRoom(m, s, r);
  if (!canAllocate(m, s, room, undefined)) return undefined;
  const t = s.slice();
  // SGLang's resume matches no prefix: every position takes a page of its own.
  takeHold(m, s, t, r, { hit: false, shared: 0, need: room }, resumeTokens(m, s, r, room));
  if (!m.fault['resume-stale']) for (let i = 0; i < room; i++) load(m, s, t, r, i, tablePage(m, t, r, i));
  // After the load nobody reads the copy again: back to its initial value, so that states which differ only in a spent copy are one.
  clearSaved(m, t, r);
  addFlags(m, t, r, RESUMED);
  enter(m, t, r, stepsOf(m, s, r) > 0 ? 'decoding' : 'handedOff');
  return t;
}

/** The copy reads every page of `r`'s table in `s` into `r`'s saved copy in `t`. */
function copyTable(m: Model, s: State, t: State, r: number): void {
  const room = tableRoom(m, s, r);
  for (let i = 0; i < room; i++) savePage(m, t, r, i, tablePage(m, s, r, i), s);
}

/** The load writes `r`'s saved copy at position `i` into page `p`: a write labelled with `r` (or, under `copy-carries-tag`, with the tag the copy read). */
function load(m: Model, s: State, t: State, r: number, i: number, p: number): void {
  const copy = savedPageOf(m, s, r, i);
  writeContent(m, t, p, copy.label, copy.pos, copy.fill);
  if (!m.ownerCheck) return;
  if (m.mechanism['copy-carries-tag']) setTag(m, t, p, copy.tag, copy.tagFill);
  else setTag(m, t, p, bodyLabel(r), copy.fill);
}

