/**
 * D's metadata slot, with fault `aux-torn`. Beside the KV pages, P writes each request's
 * first output token (and its logprobs) into a row of D's `MetadataBuffers`
 * (`disaggregation/utils.py`), with the request's `bootstrap_room` in a buffer of its own
 * (`bootstrap_room`, `get_buf`'s last item): separate RDMA writes, which land apart. D
 * takes the row at preallocation (`ReqToMetadataIdxAllocator.alloc` in
 * `DecodePreallocQueue.pop_preallocated`, which waits while no row is free), and trusts
 * the room alone: `_apply_metadata_gate` (`utils.py`) downgrades Success to Transferring
 * while the row's room is 0 ("metadata not landed"), `_commit_transfer_to_req`
 * (`decode.py`) aborts on a room that is not the request's and otherwise appends
 * `output_ids[idx][0]` to the request's output. `pop_transferred` then resets
 * `bootstrap_room[idx] = 0` and frees the row, and only the room: the payload stays, the
 * last holder's first token. So a room that lands before its payload passes the gate
 * and the check, and D commits the slot's previous holder's token as its own.
 *
 * The model has one slot (the smallest pool in which a row is reused): its holder, its
 * room and its payload (`state-slot.ts`). `allocate` takes it (and waits while another
 * request holds it), `prefill` or a silent `stub` posts the two parts, `landRoom` and
 * `landPayload` land them, `handoff` waits for the room and reads the payload, and every
 * end of the transfer (the commit, a refusal, a timeout) resets the room and frees the
 * slot. What the commit reads is recorded with the read of table position 0 (`reads.ts`):
 * the first output token is the request's answer, and another user's token there is a
 * leak as another user's page is. A timed-out request's late metadata is not modelled:
 * its parts are dropped with the timeout.
 */
import type { Model } from './model.ts';
import { bodyLabel } from './model.ts';
import { keptRecord, readRecord } from './reads.ts';
import { addObserved, auxHolderOf, auxPayloadOf, auxRoomOf, phaseOf, Ph, readRecordOf, setAuxHolder, setAuxPayload, setAuxRoom, setReadRecord, type State } from './state.ts';

/** Whether `r` holds the slot with its metadata write posted and still landing (`prefill` or a silent `stub` came). */
function posted(m: Model, s: State, r: number): boolean {
  const phase = phaseOf(m, s, r);
  return m.fault['aux-torn'] && (phase === Ph.writing || phase === Ph.written) && auxHolderOf(m, s) === bodyLabel(r);
}

/**
 * With fault `aux-torn`: the room part of the request's metadata write lands in D's slot
 * (P's `bootstrap_room` buffer, by row index).
 * @guard The request holds the slot, its write was posted, and its room has not landed.
 * @effect The slot's room is the request's.
 * @variant hardened With `room-lands-last`, only after the payload has landed: P writes
 * the room after the payload, fenced.
 */
export function landRoom(m: Model, s: State, r: number): State | undefined {
  if (!posted(m, s, r) || auxRoomOf(m, s) === bodyLabel(r)) return undefined;
  if (m.mechanism['room-lands-last'] && auxPayloadOf(m, s) !== bodyLabel(r)) return undefined;
  const t = s.slice();
  setAuxRoom(m, t, bodyLabel(r));
  return t;
}

/**
 * With fault `aux-torn`: the payload part of the request's metadata write (its first
 * output token, `output_ids[idx]`) lands in D's slot.
 * @guard The request holds the slot, its write was posted, and its payload has not landed.
 * @effect The slot's payload is the request's.
 */
export function landPayload(m: Model, s: State, r: number): State | undefined {
  if (!posted(m, s, r) || auxPayloadOf(m, s) === bodyLabel(r)) return undefined;
  const t = s.slice();
  setAuxPayload(m, t, bodyLabel(r));
  return t;
}

/** Whether `r` may take the slot at its allocation: always without `aux-torn`, else while nobody holds it. */
export function slotFree(m: Model, s: State): boolean {
  return !m.fault['aux-torn'] || auxHolderOf(m, s) === 0;
}

/** `r` takes the slot (under `aux-torn`). */
export function takeSlot(m: Model, t: State, r: number): void {
  if (m.fault['aux-torn']) setAuxHolder(m, t, bodyLabel(r));
}

/** Whether D's gate lets `r`'s Success through: always without `aux-torn`, else once the slot's room is `r`'s. */
export function roomLanded(m: Model, s: State, r: number): boolean {
  return !m.fault['aux-torn'] || auxRoomOf(m, s) === bodyLabel(r);
}

/** The commit reads the slot's payload as `r`'s first token: another's, or none, is recorded at position 0. */
export function readPayload(m: Model, s: State, t: State, r: number): void {
  if (!m.fault['aux-torn']) return;
  const label = auxPayloadOf(m, s);
  if (label === bodyLabel(r)) return;
  if (label !== 0) addObserved(m, t, r, label);
  setReadRecord(m, t, r, 0, keptRecord(m, r, 0, readRecordOf(m, s, r, 0), readRecord(label, 0, 0)));
}

/** The end of `r`'s transfer (`pop_transferred`): the room is reset to 0 and the slot freed, if `r` holds it; the payload stays. */
export function releaseSlot(m: Model, s: State, t: State, r: number): void {
  if (!m.fault['aux-torn'] || auxHolderOf(m, s) !== bodyLabel(r)) return;
  setAuxRoom(m, t, 0);
  setAuxHolder(m, t, 0);
}
