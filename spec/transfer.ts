/**
 * The transfer from P to D. P writes into D's pages (`prefill`, or `stub` for a prompt too
 * long for P), the write's parts land one at a time under `torn-write` (`landData`,
 * `landTag`), and the handoff commits it; under `premature-success` the handoff can come
 * before the last part has landed, and the rest land after it. `transitions.ts` says why
 * two parts per page write are enough; `writes.ts` says which pages a write covers, with what.
 */
import { canInsertPath, insertPath } from './radix.ts';
import { enter } from './liveness.ts';
import { isOverLong, NO_PAGE, type Model } from './model.ts';
import { dataPartsOf, phaseOf, Ph, setPartsLanded, setTag, tablePage, tagPartsOf, writeContent, type State } from './state.ts';
import { writeCount, writeLabel, writePosition, writeSlots } from './writes.ts';
import { sourceLabel, sourceRead } from './source-pages.ts';
import { readPayload, releaseSlot, roomLanded } from './aux.ts';
import { draftLanded, postDraft } from './draft.ts';
import { commitSlots, landSlots } from './state-slots.ts';

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
    releaseSlot(m, s, t, r);
    enter(m, t, r, phase === Ph.timedOut ? 'freed' : 'refused');
    return t;
  }
  postWrite(m, s, t, r, phase === Ph.timedOut);
  return t;
}

/**
 * With fault `torn-write`: the content part of the next page of the request's write lands
 * (pages in table order), by page id, whoever holds the page now.
 * @guard The request's write was posted and some content part has not landed. With fault
 * `premature-success`, also after D committed the request on P's early Success (handed
 * off, decoding, decoded or failed: the parts in flight do not stop at the commit).
 * @effect That page's content is the write's label, for the write's position (with P's
 * source pages, what the source page holds now: another user's KV after an early free,
 * `source-pages.ts`). When it was the write's last part, the request is written (a
 * timed-out or released one: landed; a committed one stays in its phase).
 */
export function landData(m: Model, s: State, r: number): State | undefined {
  if (!mayLand(m, s, r)) return undefined;
  const k = dataPartsOf(m, s, r);
  if (k >= writeCount(m, s, r)) return undefined;
  const t = s.slice();
  const i = writePosition(m, s, r, k);
  const p = tablePage(m, s, r, i);
  // With P's source pages, the part copies what the source page holds now (source-pages.ts).
  if (p !== NO_PAGE) writeContent(m, t, p, sourceLabel(m, s, r, i), i, writeSlots(m, r, i));
  setPartsLanded(m, t, r, k + 1, tagPartsOf(m, s, r));
  sourceRead(m, t, r);
  finishIfLanded(m, t, r);
  return t;
}

/**
 * With fault `torn-write`, under an owner check: the tag part of the next page of the
 * request's write lands (pages in table order), by page id, whoever holds the page now.
 * @guard The request's write was posted and some tag part has not landed (with fault
 * `premature-success`, also after D committed the request, as `landData`).
 * @effect That page's owner tag is the write's label. When it was the write's last part,
 * the request is written (a timed-out or released one: landed; a committed one stays).
 */
export function landTag(m: Model, s: State, r: number): State | undefined {
  if (!m.ownerCheck || !mayLand(m, s, r)) return undefined;
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
 * @guard P wrote the request (by `prefill` or by a silent `stub`), every part landed. With
 * fault `premature-success`, also while parts of the write are still landing: the sender's
 * Success came before the receiver could see them (D's `pop_transferred` in
 * `disaggregation/decode.py` commits on `KVPoll.Success`, which P's transfer engine
 * reports when its side of the write completed).
 * With fault `aux-torn`, D's gate also waits for the request's room in the metadata slot
 * (`aux.ts`). With config `draft`, D's Success waits for the draft part too (`draft.ts`).
 * @effect The request is handed off to decode. Under `radix`, D's `process_prebuilt` calls
 * `cache_unfinished_req` first: the request's prefix pages past its matched path enter the
 * tree as nodes (a node already there replaces the request's page, which is freed), and the
 * request locks its path to the prefix's end (spec/radix.ts). With `aux-torn`, the commit
 * reads the slot's payload as the request's first token (another's, or none, is a read of
 * position 0), then resets the room and frees the slot.
 * @variant hardened With `commit-counts-landed`, D commits only once every part has
 * landed, by its own count of receiver-side completions: the early Success is ignored.
 */
export function handoff(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  const early = phase === Ph.writing && m.fault['premature-success'] && !m.mechanism['commit-counts-landed'];
  if ((phase !== Ph.written && !early) || !roomLanded(m, s, r) || !draftLanded(m, s, r)) return undefined;
  const t = s.slice();
  if (m.radix && canInsertPath(m, s, r)) insertPath(m, s, t, r);
  readPayload(m, s, t, r);
  releaseSlot(m, s, t, r);
  commitSlots(m, s, t, r);
  enter(m, t, r, 'handedOff');
  return t;
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
  // With a draft model, the write's draft part (draft.ts).
  postDraft(m, s, t, r, late);
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
  if (!late) landSlots(m, t, r);
  enter(m, t, r, late ? 'landed' : 'written');
}

/** After a part landed: when every part of `r`'s write has, `r` is written (or, late, landed); a request D already committed stays in its phase. */
function finishIfLanded(m: Model, t: State, r: number): void {
  const phase = phaseOf(m, t, r);
  // The slots' part lands with the write's last part (state-slots.ts); a late write's is dropped.
  if ((phase === Ph.writing || isCommitted(phase)) && !partsInFlight(m, t, r)) landSlots(m, t, r);
  if (phase !== Ph.writing && phase !== Ph.landing) return;
  if (partsInFlight(m, t, r)) return;
  enter(m, t, r, phase === Ph.landing ? 'landed' : 'written');
}

/** Whether some part of `r`'s posted write has not landed: a content part, or under an owner check a tag part. Meaningful only once the write was posted; without `torn-write` a write lands whole, and nothing is ever in flight. */
export function partsInFlight(m: Model, s: State, r: number): boolean {
  if (!m.fault['torn-write']) return false;
  const count = writeCount(m, s, r);
  return dataPartsOf(m, s, r) < count || (m.ownerCheck && tagPartsOf(m, s, r) < count);
}

/** Whether D committed `r` (handed off, decoding, decoded, or failed by decode's check): where, under `premature-success`, parts of its write may still be in flight. */
export function isCommitted(phase: number): boolean {
  return phase === Ph.handedOff || phase === Ph.decoding || phase === Ph.decoded || phase === Ph.failed;
}

/** Whether parts of `r`'s write can land in its phase: posted and not yet written, released with parts in flight (`landing`), or committed early (`premature-success`). */
function mayLand(m: Model, s: State, r: number): boolean {
  const phase = phaseOf(m, s, r);
  return phase === Ph.writing || phase === Ph.landing || (m.fault['premature-success'] && isCommitted(phase));
}
