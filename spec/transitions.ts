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
import { canAllocate, freeCopies, freeEntries, promptTokensTaken, put, takeInto, takeOne } from './allocator.ts';
import { enter } from './liveness.ts';
import { bodyLabel, groupOfLabel, isOverLong, mayReadAt, NO_PAGE, prefixLabel, prefixLength, type Model } from './model.ts';
import { keptRecord } from './reads.ts';
import {
  addFlags,
  cachedPage,
  entryCached,
  entryEmpty,
  dataPartsOf,
  holderOf,
  INSERTED,
  phaseOf,
  Ph,
  READ_LABEL,
  READ_UNHELD,
  readRecordOf,
  setHolder,
  setPartsLanded,
  setReadRecord,
  setSteps,
  setTablePage,
  setTag,
  sharedPages,
  sharesFirstPage,
  stepsOf,
  tablePage,
  tableRoom,
  tagOf,
  EVICTED_FOR,
  lockOf,
  setLock,
  tagPartsOf,
  writeContent,
  type State,
  addObserved,
} from './state.ts';
import { needsPage, positionsRead, readEnd, slotRecord, slotsReadAt, tagCovers, writeToken } from './slots.ts';
import { holdsKv, releaseTable } from './release.ts';
import { planHold, takeHold, unlockPrefix } from './hold.ts';
import { offload, resume, retract } from './retraction.ts';
import { allocFail } from './alloc-fail.ts';
import { abortCommit } from './abort-commit.ts';
import { writeCount, writeLabel, writePosition, writeSlots } from './writes.ts';

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
 * pages is its own action.
 * @variant owner-check The owner tags of the pages taken are cleared: a tag that is cheap
 * to clear is what makes "written during the current hold" checkable.
 */
export function allocate(m: Model, s: State, r: number, pages?: readonly number[]): State | undefined {
  if (phaseOf(m, s, r) !== Ph.new) return undefined;
  const plan = planHold(m, s, r, m.promptPages[r]!);
  // Under `any` the action names its pages: enabled when they are free and as many as needed.
  if (!canAllocate(m, s, plan.need, pages)) return undefined;
  const t = s.slice();
  takeHold(m, s, t, r, plan, promptTokensTaken(m, r, plan.need), pages);
  enter(m, t, r, 'allocated');
  return t;
}

/**
 * P computes the prompt's KV and writes it into D's pages by RDMA, page by page.
 * @guard The request fits P's memory (under the length rule, its tokens against the
 * prefill limit), and D allocated it; or, with fault `early-free`, D has already timed it
 * out and P does not know. With fault `auto-truncate`, also an over-long request: P cuts
 * it to the limit (`validate_input_length` with `allow_auto_truncate`).
 * @effect Every page of the table except the shared prefix pages receives the request's
 * data, written for its position; at its prefix's positions (when it has a prefix and
 * missed the cache) page `j` receives page `j` of its prefix's data. With token slots,
 * each page's slots past the prompt's end hold P's stale data (`slots.ts`); a truncated
 * prompt is written only up to the limit, and D is not told. The request is written; a timed-out request's write has landed in pages it no
 * longer holds. With fault `torn-write` the write is only posted: the request is
 * `writing` (a timed-out one `landing`) until every part has landed.
 * @variant owner-check Every page written is stamped with the label of what was written.
 * @variant hardened With `revoke-writer`, a timed-out request's write lands nowhere.
 */
export function prefill(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.allocated && phase !== Ph.timedOut) return undefined;
  if (isOverLong(m, r) && !m.fault['auto-truncate']) return undefined;
  const t = s.slice();
  postWrite(m, s, t, r, phase === Ph.timedOut);
  return t;
}

/**
 * P meets a prompt longer than its memory (`validate_input_length`, then
 * `set_finish_with_abort`, which shortens the prompt to one token "to skip the long
 * prefill").
 * @guard The request is too long for P (under the length rule), P does not truncate it
 * (fault `auto-truncate` is off), and D allocated it; or, with fault `early-free`, D has
 * already timed it out.
 * @effect With the silent stub (fault `silent-stub`): P writes a one-page dummy, the
 * request's data in its first own page only, and reports success as if every page were
 * written (posted part by part under `torn-write`, as `prefill`). Without it: P refuses
 * the request and tells D; nothing is written and the request is refused (a timed-out one
 * simply ends).
 * @variant length-fix Always refuses, whatever the faults: the fix of SGLang 0.5.22.
 * @variant owner-check The dummy page is stamped with the request's label.
 */
export function stub(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.allocated && phase !== Ph.timedOut) return undefined;
  if (!isOverLong(m, r) || m.fault['auto-truncate']) return undefined;
  const t = s.slice();
  if (!m.silentStub) {
    enter(m, t, r, phase === Ph.timedOut ? 'freed' : 'refused');
    return t;
  }
  postWrite(m, s, t, r, phase === Ph.timedOut);
  return t;
}

/**
 * With fault `torn-write`: the content part of the next page of the request's write lands
 * (pages in table order), by page id, whoever holds the page now.
 * @guard The request's write was posted and some content part has not landed.
 * @effect That page's content is the write's label, for the write's position. When it
 * was the write's last part, the request is written (a timed-out one: landed).
 */
export function landData(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.writing && phase !== Ph.landing) return undefined;
  const k = dataPartsOf(m, s, r);
  if (k >= writeCount(m, s, r)) return undefined;
  const t = s.slice();
  const i = writePosition(m, s, r, k);
  const p = tablePage(m, s, r, i);
  if (p !== NO_PAGE) writeContent(m, t, p, writeLabel(m, r, i), i, writeSlots(m, r, i));
  setPartsLanded(m, t, r, k + 1, tagPartsOf(m, s, r));
  finishIfLanded(m, t, r);
  return t;
}

/**
 * With fault `torn-write`, under an owner check: the tag part of the next page of the
 * request's write lands (pages in table order), by page id, whoever holds the page now.
 * @guard The request's write was posted and some tag part has not landed.
 * @effect That page's owner tag is the write's label. When it was the write's last part,
 * the request is written (a timed-out one: landed).
 */
export function landTag(m: Model, s: State, r: number): State | undefined {
  if (!m.ownerCheck) return undefined;
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.writing && phase !== Ph.landing) return undefined;
  const k = tagPartsOf(m, s, r);
  if (k >= writeCount(m, s, r)) return undefined;
  const t = s.slice();
  const i = writePosition(m, s, r, k);
  const p = tablePage(m, s, r, i);
  if (p !== NO_PAGE) setTag(m, t, p, writeLabel(m, r, i), writeSlots(m, r, i));
  setPartsLanded(m, t, r, dataPartsOf(m, s, r), k + 1);
  finishIfLanded(m, t, r);
  return t;
}

/**
 * P reports Success with the last chunk's metadata; D checks that the metadata landed and
 * commits the request. Nothing compares P's page count with D's allocation.
 * @guard P wrote the request (by `prefill` or by a silent `stub`), every part landed.
 * @effect The request is handed off to decode.
 */
export function handoff(m: Model, s: State, r: number): State | undefined {
  if (phaseOf(m, s, r) !== Ph.written) return undefined;
  const t = s.slice();
  enter(m, t, r, 'handedOff');
  return t;
}

/**
 * Config `tableGrowth`: D takes one more page for the token the next decode step writes
 * (`ScheduleBatch.prepare_for_decode` in `managers/schedule_batch.py` calls
 * `alloc_for_decode` in `mem_cache/common.py`, which calls the allocator's
 * `alloc_decode`; pages of one token: `alloc`). It is one page for one request: a batch
 * of one.
 * When no page can be had, SGLang does not fail the request: `Scheduler.update_running_batch`
 * (`managers/scheduler.py`) finds `ScheduleBatch.check_decode_mem` false (after evicting
 * from the prefix cache) and calls `ScheduleBatch.retract_decode`, which releases running
 * requests' pages and puts them back in the waiting queue (keeping at least one request);
 * should the allocation still fail, `alloc_for_decode` raises "Decode out of memory".
 * The model has no `retract` yet (issue 23, item 2): the request waits, its next
 * `decode` disabled, until a release frees a page; where nothing can, the search reports
 * a deadlock.
 * @guard Config `tableGrowth` is on, the request has taken at least one decode step and
 * not all of them, its next step's token falls past its table's last slot, and a page
 * can be had by the allocation order's own rule: a free-list entry (under `sglang`,
 * with the release list merged in and sorted when the free list is empty, `alloc_decode`'s
 * shortage test); under `any`, the page the action names is free.
 * @effect The page the allocation order hands out (under `sorted` the lowest free id,
 * under `lifo` the front of the list, under `sglang` the front of the sorted free list)
 * leaves the free list, is held by the request and joins its table as its next position.
 * Its contents stay as they were: the next decode step's token write fills its first slot.
 * @variant owner-check The page's owner tag is cleared when it is taken; the token's
 * write stamps it, and every later step checks it, as every page of the table.
 */
export function grow(m: Model, s: State, r: number, pages?: readonly number[]): State | undefined {
  if (!m.tableGrowth || phaseOf(m, s, r) !== Ph.decoding || !needsPage(m, s, r)) return undefined;
  if (!canAllocate(m, s, 1, pages)) return undefined;
  const t = s.slice();
  let p: number;
  if (pages !== undefined) {
    p = pages[0]!;
    takeOne(m, t, p);
  } else {
    const out = new Int32Array(1);
    takeInto(m, s, t, 1, out, 'decode');
    p = out[0]!;
  }
  setHolder(m, t, p, bodyLabel(r));
  if (m.ownerCheck) setTag(m, t, p, 0);
  setTablePage(m, t, r, tableRoom(m, s, r), p);
  return t;
}

/**
 * One decode step. Attention reads `req_to_token[row, :seq_len]` with `seq_len` from D's
 * own length, that is every page of the table, whoever wrote it; a request takes
 * `decodeSteps` such steps, one per generated token, and anything may happen between
 * two of them. With token slots it reads the slots up to its own length: the prompt's,
 * then one more per token decoded (`slots.ts`).
 * @guard The request was handed off, or has taken some but not all of its steps.
 * @effect The request has read every page of its table, up to its length: the content
 * label of each page joins its read set (a page never written adds nothing), and its read
 * record notes, per position, what was read there, the stale tail of a page included
 * (`reads.ts`, `slots.ts`). A read of a page the request does not hold at that moment is
 * recorded too. Every step after the first then writes the new token into the next slot
 * of its table (its content, for that position; with one slot per page, into its last
 * page). After the last step the request is decoded, before it `decoding`.
 * @variant owner-check Before reading, at every step, the tag of every page is compared
 * with the request's own label, and at each prefix position `j` with the label of its
 * prefix's page `j`. On
 * any other tag the request fails loudly and nothing is read at that step. The token
 * write stamps its page's tag.
 * @variant hardened With `tag-counts-tokens`, a page whose tag counts fewer written slots
 * than the step reads there fails the request loudly too.
 */
export function decode(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.handedOff && phase !== Ph.decoding) return undefined;
  // Under `tableGrowth` a step whose token has no page yet waits for `grow`.
  if (needsPage(m, s, r)) return undefined;
  const t = s.slice();
  if (m.ownerCheck && !tagsPass(m, s, r)) {
    enter(m, t, r, 'failed');
    return t;
  }
  readTable(m, s, t, r);
  const steps = stepsOf(m, s, r) + 1;
  if (steps > 1) writeToken(m, s, t, r);
  setSteps(m, t, r, steps);
  enter(m, t, r, steps >= m.decodeSteps ? 'decoded' : 'decoding');
  return t;
}

/**
 * D finishes the request and releases its pages (`release_kv_cache`): the page ids go
 * back to the free list (under `sglang`, to the release list) in SGLang's allocator calls,
 * in order: `cache_finished_req`'s `free` of the duplicates and of the tail, then
 * `free_segment` (`release.ts`); under `lifo` as one group (`free_group_begin/end`).
 * Nothing is zeroed.
 * @guard The request decoded, was refused, or failed. With fault `stale-free`, also a
 * request already freed (or whose late write landed): the abort path and the normal path
 * both release it. With fault `double-free`, the same second release while every page of
 * the old table is still free.
 * @effect Every page of the table except the shared prefix pages is free, whoever holds it
 * now; contents and tags stay. A page already free is left as it is, unless the free
 * list is a list (`double-free`): then it is there twice. With fault `segment-overlap`
 * the segment also frees the last page of the call before it, a second time. The request
 * is freed (released, for the second release).
 * @variant hardened With `release-checks-holder`, only the pages the request still holds
 * are freed: a stale release frees nothing that another request holds.
 */
export function free(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  const normal = holdsKv(m, s, r) && (phase === Ph.decoded || phase === Ph.refused || phase === Ph.failed);
  // The `holds_kv` guard returns early on a request that no longer holds: only a fault bypasses it.
  const again = phase === Ph.freed || phase === Ph.landed;
  const stale = again && (m.fault['stale-free'] || (m.fault['double-free'] && stillFree(m, s, r)));
  if (!normal && !stale) return undefined;
  const t = s.slice();
  release(m, s, t, r);
  if (normal) unlockPrefix(m, s, t, r);
  enter(m, t, r, normal ? 'freed' : 'released');
  return t;
}

/**
 * With fault `early-free`: D gives up waiting for the transfer and frees the request's
 * pages at once, while P's write is still in flight (SGLang #24527).
 * @guard Fault `early-free` is on, and the request is allocated but not yet written
 * (under `torn-write`, also while its parts are landing).
 * @effect Every page of the table except the shared prefix pages is free; the request is
 * timed out. Its `prefill` or `stub` stays enabled, and parts in flight stay in flight:
 * the write lands later, by page id.
 * @variant hardened With `revoke-writer`, P's access to the pages is revoked first: the
 * parts in flight are dropped (the request's write has landed, nowhere), and a write
 * posted later lands nowhere.
 */
export function timeout(m: Model, s: State, r: number): State | undefined {
  if (!m.fault['early-free']) return undefined;
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.allocated && phase !== Ph.writing) return undefined;
  const t = s.slice();
  release(m, s, t, r);
  unlockPrefix(m, s, t, r);
  if (phase === Ph.allocated) enter(m, t, r, 'timedOut');
  else enter(m, t, r, m.mechanism['revoke-writer'] ? 'landed' : 'landing');
  return t;
}

/**
 * The prefix cache evicts to make room (`RadixCache.evict`): D finds too few free pages
 * for the request's allocation and frees an unlocked cached prefix entry. SGLang evicts
 * whole leaf nodes of its radix tree, page aligned: it pops the evictable leaf of lowest
 * priority (lock count 0, no child), frees all the node's pages in one call (`free(x.value)`)
 * and goes on until it has freed enough, a parent becoming evictable once its last child
 * is gone. In the model every request with a prefix shares the whole prefix, so a
 * prefix's entry is one node of `k` pages and a leaf (the requests' own pages are never
 * inserted); one `evict` frees one entry, whole, and an allocation still short evicts
 * again. The priority (least recently used, by default) is abstracted to a fixed choice.
 * @guard Eviction is on, the request is new and its allocation finds fewer free pages
 * than it needs, and the cache holds pages, with lock count 0, of a prefix other than the
 * request's own (the request's own prefix is matched, and so locked, first). Or the
 * request is retracted and its resume finds fewer free pages than its table's room: its
 * resume matches no prefix (retraction.ts), so any unlocked entry may go, its own too.
 * @effect The entry that holds the lowest such page leaves the cache: all its pages go
 * back to the free list in one release (ascending, as every release), contents
 * untouched; the request is marked as the one evicted for.
 */
export function evict(m: Model, s: State, r: number): State | undefined {
  if (!m.eviction) return undefined;
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.new && phase !== Ph.retracted) return undefined;
  // A resume matches nothing: no entry of its own to protect.
  const g = phase === Ph.new ? (m.group[r] ?? -1) : -1;
  const need = phase === Ph.new ? (m.promptPages[r] ?? 0) - (g >= 0 && entryCached(m, s, g) ? prefixLength(m, r) : 0) : tableRoom(m, s, r);
  if (freeEntries(m, s) >= need) return undefined;
  let victim = -1;
  for (let p = m.firstPage; p < m.pages && victim < 0; p++) {
    const v = groupOfLabel(m, holderOf(m, s, p));
    if (v >= 0 && v !== g && lockOf(m, s, v) === 0) victim = v;
  }
  if (victim < 0) return undefined;
  const t = s.slice();
  const pages: number[] = [];
  for (let j = 0; j < (m.prefixPages[victim] ?? 1); j++) {
    const p = cachedPage(m, s, victim, j);
    if (p < 0) continue;
    setHolder(m, t, p, 0);
    pages.push(p);
  }
  put(m, s, t, pages);
  addFlags(m, t, r, EVICTED_FOR);
  return t;
}

/**
 * D inserts the request's prefix pages into the prefix cache (`cache_finished_req`), so
 * that a later request with the same prefix reuses them instead of computing them again.
 * @guard The request has a prefix, the cache holds no page of that prefix's entry, the
 * request still holds its own pages at every prefix position, and it decoded. With fault
 * `prefix-poison`, also a request that was refused or failed: those pages were never
 * written for the prefix.
 * @effect The pages at the prefix's positions `0 .. k-1` are held by the prefix cache
 * entry, page `j` as the entry's page `j`, no longer by the request; their content is
 * untouched. Under eviction the request locks the entry until its release.
 */
export function insert(m: Model, s: State, r: number): State | undefined {
  // The guards are conjuncts: the phase, cheapest and most often false, is tested first.
  const phase = phaseOf(m, s, r);
  const poison = m.fault['prefix-poison'] && (phase === Ph.refused || phase === Ph.failed);
  if (phase !== Ph.decoded && !poison) return undefined;
  const g = m.group[r] ?? -1;
  if (g < 0 || sharesFirstPage(m, s, r) || !entryEmpty(m, s, g)) return undefined;
  const k = prefixLength(m, r);
  for (let j = 0; j < k; j++) {
    const p = tablePage(m, s, r, j);
    if (p === NO_PAGE || holderOf(m, s, p) !== bodyLabel(r)) return undefined;
  }
  const t = s.slice();
  for (let j = 0; j < k; j++) setHolder(m, t, tablePage(m, s, r, j), prefixLabel(m, g, j));
  addFlags(m, t, r, INSERTED);
  // Under eviction the inserting request holds a lock on the entry until its own release.
  if (m.eviction) setLock(m, t, g, lockOf(m, s, g) + 1);
  return t;
}

/** A transition of one kind: the next state, or `undefined` when not enabled. */
export type Transition = (m: Model, s: State, r: number) => State | undefined;

/** Every action kind's transition: the one place a new kind is registered (its name goes in `ACTION_KINDS`). */
export const TRANSITIONS: Readonly<Record<ActionKind, Transition>> = { allocate, prefill, stub, handoff, grow, decode, free, timeout, insert, evict, landData, landTag, retract, offload, resume, allocFail, abortCommit };

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

/** A page receives a whole write: its content (label, for position `pos`, in its first `slots` slots), and under an owner check its tag. */
function writePage(m: Model, t: State, p: number, label: number, pos: number, slots: number): void {
  if (p === NO_PAGE) return;
  writeContent(m, t, p, label, pos, slots);
  if (m.ownerCheck) setTag(m, t, p, label, slots);
}

/**
 * P's write for request `r` (from `prefill` or a silent `stub`): lands whole, or, under
 * `torn-write`, is posted for its parts to land. A late write (`late`: D timed `r` out)
 * under `revoke-writer` lands nowhere.
 */
function postWrite(m: Model, s: State, t: State, r: number, late: boolean): void {
  if (late && m.mechanism['revoke-writer']) {
    enter(m, t, r, 'landed');
    return;
  }
  const count = writeCount(m, s, r);
  // A write of no page (a prompt cut to nothing) has no parts to land.
  if (m.fault['torn-write'] && count > 0) {
    setPartsLanded(m, t, r, 0, 0);
    enter(m, t, r, late ? 'landing' : 'writing');
    return;
  }
  for (let k = 0; k < count; k++) {
    const i = writePosition(m, s, r, k);
    writePage(m, t, tablePage(m, s, r, i), writeLabel(m, r, i), i, writeSlots(m, r, i));
  }
  enter(m, t, r, late ? 'landed' : 'written');
}

/** After a part landed: when every part of `r`'s write has, `r` is written (or, late, landed). */
function finishIfLanded(m: Model, t: State, r: number): void {
  const count = writeCount(m, t, r);
  if (dataPartsOf(m, t, r) < count) return;
  if (m.ownerCheck && tagPartsOf(m, t, r) < count) return;
  enter(m, t, r, phaseOf(m, t, r) === Ph.landing ? 'landed' : 'written');
}

/** The owner check: every page's tag is the request's own label, or at prefix position `j` its prefix's page `j` (and, under `tag-counts-tokens`, counts the slots read there). */
function tagsPass(m: Model, s: State, r: number): boolean {
  const end = readEnd(m, s, r);
  const len = positionsRead(m, end);
  for (let i = 0; i < len; i++) {
    const p = tablePage(m, s, r, i);
    if (!mayReadAt(m, r, i, tagOf(m, s, p)) || !tagCovers(m, s, p, slotsReadAt(m, i, end))) return false;
  }
  return true;
}

/** One read of `r`'s whole table, up to its length: the read set, the read record per position, and reads of pages `r` does not hold. */
function readTable(m: Model, s: State, t: State, r: number): void {
  const end = readEnd(m, s, r);
  const len = positionsRead(m, end);
  const shared = sharedPages(m, s, r);
  let unheld = false;
  for (let i = 0; i < len; i++) {
    const p = tablePage(m, s, r, i);
    const record = slotRecord(m, s, r, i, p, slotsReadAt(m, i, end));
    const label = record & READ_LABEL;
    if (label !== 0) addObserved(m, t, r, label);
    setReadRecord(m, t, r, i, keptRecord(m, r, i, readRecordOf(m, s, r, i), record));
    const holder = holderOf(m, s, p);
    const sharedOk = i < shared && mayReadAt(m, r, i, holder);
    if (holder !== bodyLabel(r) && !sharedOk) unheld = true;
  }
  if (unheld) addFlags(m, t, r, READ_UNHELD);
}

/** Releases `r`'s table as SGLang's `release_kv_cache` does: its allocator calls in order (`release.ts`). */
function release(m: Model, s: State, t: State, r: number): void {
  releaseTable(m, s, t, r);
}

/** Whether every page of `r`'s old table (except the shared prefix pages) is still free: nobody took it since. */
function stillFree(m: Model, s: State, r: number): boolean {
  const len = m.len[r] ?? 0;
  for (let i = sharedPages(m, s, r); i < len; i++) {
    const p = tablePage(m, s, r, i);
    if (p !== NO_PAGE && (holderOf(m, s, p) !== 0 || freeCopies(m, s, p) === 0)) return false;
  }
  return true;
}
