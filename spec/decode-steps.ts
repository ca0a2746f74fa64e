/**
 * A request's decode steps, and under `tableGrowth` the page a step takes first for the
 * token it writes. Each step reads (and under an owner check checks) the whole table.
 * What a step reads in a page's slots is `slots.ts`'s; what a read record means is
 * `reads.ts`'s.
 */
import { canAllocate, takeInto, takeOne } from './allocator.ts';
import { enter } from './liveness.ts';
import { bodyLabel, mayReadAt, type Model } from './model.ts';
import { keptRecord } from './reads.ts';
import { readDraft } from './draft.ts';
import { addFlags, holderOf, phaseOf, Ph, READ_LABEL, READ_UNHELD, readRecordOf, setHolder, setReadRecord, setSteps, setTablePage, setTag, sharedPages, stepsOf, tablePage, tableRoom, tagOf, type State, addObserved } from './state.ts';
import { readState } from './state-slots.ts';
import { loadLetsDecode } from './loadback.ts';
import { needsPage, positionsRead, readEnd, slotRecord, slotsReadAt, tagCovers, writeToken } from './slots.ts';

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
 * @guard The request was handed off, or has taken some but not all of its steps. With
 * `loadback`, its load from host memory has landed (under `read-before-load` it does not wait).
 * @effect The request has read every page of its table, up to its length: the content
 * label of each page joins its read set (a page never written adds nothing), and its read
 * record notes, per position, what was read there, the stale tail of a page included
 * (`reads.ts`, `slots.ts`). A read of a page the request does not hold at that moment is
 * recorded too. Every step after the first then writes the new token into the next slot
 * of its table (its content, for that position; with one slot per page, into its last
 * page). After the last step the request is decoded, before it `decoding`. With config
 * `draft`, speculative decode reads each page's draft KV beside its content, into the same
 * read set and record, and the token write writes the token's draft KV too (`draft.ts`). With `stateSlots`
 * each step also reads the request's state slot (`state-slots.ts`).
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
  // With `loadback`, the forward waits for the request's load from host memory (loadback.ts).
  if (!loadLetsDecode(m, s, r)) return undefined;
  const t = s.slice();
  if (m.ownerCheck && !tagsPass(m, s, r)) {
    enter(m, t, r, 'failed');
    return t;
  }
  readTable(m, s, t, r);
  readState(m, s, t, r);
  const steps = stepsOf(m, s, r) + 1;
  if (steps > 1) writeToken(m, s, t, r);
  setSteps(m, t, r, steps);
  enter(m, t, r, steps >= m.decodeSteps ? 'decoded' : 'decoding');
  return t;
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
    // Speculative decode reads the draft KV beside the target's (draft.ts).
    readDraft(m, s, t, r, i, p);
    const holder = holderOf(m, s, p);
    const sharedOk = i < shared && mayReadAt(m, r, i, holder);
    if (holder !== bodyLabel(r) && !sharedOk) unheld = true;
  }
  if (unheld) addFlags(m, t, r, READ_UNHELD);
}
