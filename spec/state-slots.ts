/**
 * D's per-request slots beside the pages (config `stateSlots`): the recurrent state slot
 * and the metadata buffer row. Read from `sgl-project/sglang`, `python/sglang/srt/`:
 * - `disaggregation/decode.py`, `DecodePreallocQueue._pre_alloc`: `req_to_token_pool.alloc`
 *   takes the request's row, and with a hybrid model (`HybridReqToTokenPool` /
 *   `HybridMambaDecodeReqToTokenPool`, `mem_cache/memory_pool.py`) a `MambaPool` slot with
 *   it, the request's recurrent state (`req_index_to_mamba_index_mapping`);
 *   `pop_preallocated` then takes a metadata buffer index
 *   (`req_to_metadata_buffer_idx_allocator.alloc()`, a `ReqToMetadataIdxAllocator`: a
 *   deque of free indices, `alloc` pops one, `free` appends it back, nothing checks that an
 *   index is not already out) and sends both to P (`send_metadata(..., state_indices)`).
 * - P writes the state into D's slot and the first output token into D's row
 *   (`MetadataBuffers`, `disaggregation/utils.py`) with the KV transfer; D's commit
 *   (`pop_transferred`, `_commit_transfer_to_req`) reads the row's token into the
 *   request's output and frees the index; every decode step of a hybrid model reads the
 *   state slot (the mamba kernels read `state_indices` each forward); the slot goes back
 *   to `MambaPool` when the request ends (`release_kv_cache` → `req_to_token_pool.free`).
 * - SGLang #22716 (and #17259): two requests in flight with one metadata index, one's first
 *   token appended to the other's output. PRs #22811 and #31108 move the state slots'
 *   lifetime; #35957 is the same class on retraction's load (`resume-stale`).
 *
 * In the model. Each pool has one slot per request (the running batch's size), and an
 * allocation takes the lowest free one, so without a fault no allocation waits and no two
 * requests share a slot. `allocate` takes a state slot and a metadata row; the write
 * (`prefill`, a silent `stub`, or the last part under `torn-write`) writes the request's
 * label into both, as the pages' content; the commit (`handoff`) reads the row and frees
 * it; every `decode` step reads the state slot; `free` (and `timeout`) releases the slot.
 * A read of a slot or row whose content is not the request's own is recorded as a read of
 * table position 0 (`reads.ts`), so `Isolation` and `Integrity` cover pages and slots
 * together: another user's state is a leak as another user's page is, a slot never written
 * is garbage. A timed-out request's late state and metadata are not modelled (dropped with
 * the timeout, as `aux.ts` drops late metadata). Retraction keeps the slot held.
 *
 * Faults. `state-slot-reuse`: the commit frees the state slot with the metadata row, while
 * the request still decodes; the next allocation takes it and its transfer writes another
 * user's state there. `metadata-collision`: the metadata allocator hands out index 0 (an
 * index on its free list twice) whoever holds it. Mechanisms (`hardening.ts`):
 * `slot-freed-with-request` and `metadata-alloc-checks-holder`.
 */
import type { Model } from './model.ts';
import { bodyLabel } from './model.ts';
import { keptRecord, readRecord } from './reads.ts';
import { addObserved, poolOf, readRecordOf, setPool, setReadRecord, type PoolVariable, type State } from './state.ts';

/** Whether D's slots are modelled (config `stateSlots`). */
export function hasStateSlots(m: Model): boolean {
  return m.config.stateSlots === true;
}

/**
 * Whether two requests can be in flight together: the two shortest prompts fit D's pages
 * at once. Both faults need it: a slot is reused, or a row shared, only by a request
 * allocated while another still holds pages (a prefix hit that shares pages is not
 * counted, so this can say no where sharing would fit).
 */
export function twoInFlight(m: Model): boolean {
  const lengths = Array.from(m.promptPages).sort((a, b) => a - b);
  return lengths.length >= 2 && lengths[0]! + lengths[1]! <= m.config.pages;
}

/** The lowest slot of `holders` nobody holds (one exists: the pool has a slot per request). */
function lowestFree(m: Model, s: State, holders: PoolVariable): number {
  let k = 0;
  while (k < m.n - 1 && poolOf(m, s, holders, k) !== 0) k++;
  return k;
}

/**
 * `allocate`'s part (`_pre_alloc`, `pop_preallocated`): `r` takes the lowest free state slot
 * and a metadata row: the lowest free one, or with fault `metadata-collision` row 0,
 * whoever holds it.
 * @variant hardened With `metadata-alloc-checks-holder`, the allocator hands out only a row
 * nobody holds.
 */
export function takeSlots(m: Model, s: State, t: State, r: number): void {
  if (!hasStateSlots(m)) return;
  const k = lowestFree(m, s, 'stateHolder');
  setPool(m, t, 'stateHolder', k, bodyLabel(r));
  setPool(m, t, 'stateIdx', r, k + 1);
  const collide = m.fault['metadata-collision'] && !m.mechanism['metadata-alloc-checks-holder'];
  const row = collide ? 0 : lowestFree(m, s, 'metaHolder');
  setPool(m, t, 'metaHolder', row, bodyLabel(r));
  setPool(m, t, 'metaIdx', r, row + 1);
}

/** The write's part, when `r`'s write has landed whole: its state into its slot, its first token into its row, whoever holds them now. */
export function landSlots(m: Model, t: State, r: number): void {
  if (!hasStateSlots(m)) return;
  const k = poolOf(m, t, 'stateIdx', r);
  if (k > 0) setPool(m, t, 'stateOf', k - 1, bodyLabel(r));
  const row = poolOf(m, t, 'metaIdx', r);
  if (row > 0) setPool(m, t, 'metaOf', row - 1, bodyLabel(r));
}

/** A read of content `label` from one of `r`'s slots: another's, or none, joins its read set and its read record at position 0 (kept with what the step read there already, in `t`). */
function readSlot(m: Model, t: State, r: number, label: number): void {
  if (label === bodyLabel(r)) return;
  if (label !== 0) addObserved(m, t, r, label);
  setReadRecord(m, t, r, 0, keptRecord(m, r, 0, readRecordOf(m, t, r, 0), readRecord(label, 0, 0)));
}

/**
 * The commit's part (`_commit_transfer_to_req`, then `pop_transferred` frees the index): `r`
 * reads its row's first token and frees the row if it holds it. With fault
 * `state-slot-reuse` the state slot is freed with it, though `r` goes on decoding from it.
 * @variant hardened With `slot-freed-with-request`, the commit frees the row only: the slot
 * goes back with the request's pages.
 */
export function commitSlots(m: Model, s: State, t: State, r: number): void {
  if (!hasStateSlots(m)) return;
  const row = poolOf(m, s, 'metaIdx', r);
  if (row > 0) {
    readSlot(m, t, r, poolOf(m, s, 'metaOf', row - 1));
    if (poolOf(m, s, 'metaHolder', row - 1) === bodyLabel(r)) setPool(m, t, 'metaHolder', row - 1, 0);
    setPool(m, t, 'metaIdx', r, 0);
  }
  if (m.fault['state-slot-reuse'] && !m.mechanism['slot-freed-with-request']) releaseState(m, s, t, r, false);
}

/** A decode step's part: `r` reads its state slot, whoever holds it now. */
export function readState(m: Model, s: State, t: State, r: number): void {
  if (!hasStateSlots(m)) return;
  const k = poolOf(m, s, 'stateIdx', r);
  if (k > 0) readSlot(m, t, r, poolOf(m, s, 'stateOf', k - 1));
}

/**
 * The end of `r`'s hold (`free`, `timeout`; early, at the commit, under `state-slot-reuse`):
 * its state slot goes back to the pool if `r` still holds it, and at the end `r` forgets it
 * (`forget`); a timeout frees its metadata row too.
 */
export function releaseState(m: Model, s: State, t: State, r: number, forget: boolean): void {
  if (!hasStateSlots(m)) return;
  const k = poolOf(m, s, 'stateIdx', r);
  if (k > 0 && poolOf(m, s, 'stateHolder', k - 1) === bodyLabel(r)) setPool(m, t, 'stateHolder', k - 1, 0);
  if (!forget) return;
  setPool(m, t, 'stateIdx', r, 0);
  const row = poolOf(m, s, 'metaIdx', r);
  if (row > 0 && poolOf(m, s, 'metaHolder', row - 1) === bodyLabel(r)) setPool(m, t, 'metaHolder', row - 1, 0);
  setPool(m, t, 'metaIdx', r, 0);
}
