/**
 * D's per-request slots beside the pages in a log (config `stateSlots`): the recurrent state
 * slot and the metadata buffer row, as spec/state-slots.ts has them, kept beside a logged
 * pool. What SGLang does (`python/sglang/srt/`): `DecodePreallocQueue._pre_alloc`
 * (`disaggregation/decode.py`) takes the request's row of `req_to_token_pool`, and with a
 * hybrid model (`HybridReqToTokenPool`, `mem_cache/memory_pool.py`) a `MambaPool` slot with
 * it; `pop_preallocated` takes a metadata buffer index
 * (`req_to_metadata_buffer_idx_allocator.alloc()`) and `send_metadata(..., state_indices)`
 * sends both to P; P's transfer writes the state and the first output token there; the
 * commit (`pop_transferred` → `_commit_transfer_to_req`) reads the row and frees its index;
 * every decode step reads the state slot; `release_kv_cache` → `req_to_token_pool.free`
 * returns the state slot at the request's end.
 *
 * Why the ids are the log's, not the spec's lowest free one: the spec takes the lowest free
 * slot as a symmetry reduction (which free slot a request gets changes no verdict), while
 * SGLang's allocators are a free list (`MambaPool`) and a deque (`ReqToMetadataIdxAllocator`).
 * So a logged id is taken as logged, as pages are under `allocator: "any"`: it must be free
 * (else the line deviates), except a metadata row under fault `metadata-collision`, which
 * may be one another request holds (an index on the deque twice). An allocation that names
 * none takes the lowest free id, or under the fault row 0, as the spec does.
 *
 * Holders and contents are keyed by the logged id in maps: ids are SGLang's indices, not
 * bounded by the window, and a state's maps hold only the slots in use.
 */

/** A logged allocation's ids: the state slot and the metadata row it names (either may be left out). */
export interface SlotPick {
  /** The state slot (`MambaPool` index) the log names. */
  readonly state?: number;
  /** The metadata buffer index the log names. */
  readonly row?: number;
}

/** D's state slots and metadata rows of one possible state; request slots are the pool's. */
export class SlotLedger {
  /** Per state slot id: the serial of the request holding it (absent = free). */
  private readonly stateHolder = new Map<number, number>();
  /** Per state slot id: whose state the last landed write put there (absent = never written). */
  private readonly stateOf = new Map<number, number>();
  /** Per metadata row: the serial of the request it was last handed to, until freed. */
  private readonly metaHolder = new Map<number, number>();
  /** Per metadata row: whose first output token the last landed write put there. */
  private readonly metaOf = new Map<number, number>();
  /** Per request slot: its state slot plus one (0: none, or its request has ended). */
  private readonly stateIdx: Int32Array;
  /** Per request slot: its state slot plus one, kept after the request ends (the release line names it). */
  private readonly lastState: Int32Array;
  /** Per request slot: its metadata row plus one (0: none yet, or its commit has read it). */
  private readonly metaIdx: Int32Array;
  /** Per request slot: what its commit read from its row (0 until it commits, or never written). */
  private readonly rowRead: Int32Array;

  constructor(slots: number, private readonly collides: boolean, readonly freesAtCommit: boolean) {
    this.stateIdx = new Int32Array(slots);
    this.lastState = new Int32Array(slots);
    this.metaIdx = new Int32Array(slots);
    this.rowRead = new Int32Array(slots);
  }

  /** Makes this ledger equal to `other`'s. */
  copyFrom(other: SlotLedger): void {
    for (const key of ['stateHolder', 'stateOf', 'metaHolder', 'metaOf'] as const) {
      this[key].clear();
      for (const [k, v] of other[key]) this[key].set(k, v);
    }
    for (const key of ['stateIdx', 'lastState', 'metaIdx', 'rowRead'] as const) this[key].set(other[key]);
  }

  /** Whether two ledgers hold the same (compared only when the set of states holds several). */
  same(other: SlotLedger): boolean {
    const eqMap = (a: Map<number, number>, b: Map<number, number>): boolean => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
    const eq = (a: Int32Array, b: Int32Array): boolean => a.every((v, i) => b[i] === v);
    return eqMap(this.stateHolder, other.stateHolder) && eqMap(this.stateOf, other.stateOf) && eqMap(this.metaHolder, other.metaHolder) && eqMap(this.metaOf, other.metaOf) && eq(this.stateIdx, other.stateIdx) && eq(this.metaIdx, other.metaIdx);
  }

  /** Why an allocation cannot take the logged ids (one is held; a held row is allowed under `metadata-collision`), or `undefined`. */
  refusalOf(pick: SlotPick): string | undefined {
    if (pick.state !== undefined && this.stateHolder.has(pick.state)) return `state slot ${pick.state} is still held by another request`;
    if (pick.row !== undefined && !this.collides && this.metaHolder.has(pick.row)) return `metadata row ${pick.row} is still held by another request`;
    return undefined;
  }

  /** `allocate`'s part: request slot `s` (serial `serial`) takes its state slot and metadata row, the logged ones or the lowest free (row 0 under `metadata-collision`). */
  take(s: number, serial: number, pick: SlotPick): void {
    const k = pick.state ?? lowestFree(this.stateHolder);
    this.stateHolder.set(k, serial);
    this.stateIdx[s] = k + 1;
    this.lastState[s] = k + 1;
    const row = pick.row ?? (this.collides ? 0 : lowestFree(this.metaHolder));
    this.metaHolder.set(row, serial);
    this.metaIdx[s] = row + 1;
    this.rowRead[s] = 0;
  }

  /** The write's part, when it landed as the request's own: its state into its slot, its first token into its row, whoever holds them now. */
  land(s: number, serial: number): void {
    const k = (this.stateIdx[s] ?? 0) - 1;
    if (k >= 0) this.stateOf.set(k, serial);
    const row = (this.metaIdx[s] ?? 0) - 1;
    if (row >= 0) this.metaOf.set(row, serial);
  }

  /** The commit's part: reads the row (kept for {@link rowReadOf}) and frees it if still held; under `state-slot-reuse` frees the state slot too. */
  commit(s: number, serial: number): void {
    const row = (this.metaIdx[s] ?? 0) - 1;
    if (row >= 0) {
      this.rowRead[s] = this.metaOf.get(row) ?? 0;
      if (this.metaHolder.get(row) === serial) this.metaHolder.delete(row);
      this.metaIdx[s] = 0;
    }
    if (this.freesAtCommit) this.release(s, serial, false);
  }

  /** The end of `s`'s hold on its state slot; at the request's end (`forget`) it forgets the slot, and frees and forgets its row. */
  release(s: number, serial: number, forget: boolean): void {
    const k = (this.stateIdx[s] ?? 0) - 1;
    if (k >= 0 && this.stateHolder.get(k) === serial) this.stateHolder.delete(k);
    if (!forget) return;
    this.stateIdx[s] = 0;
    const row = (this.metaIdx[s] ?? 0) - 1;
    if (row >= 0 && this.metaHolder.get(row) === serial) this.metaHolder.delete(row);
    this.metaIdx[s] = 0;
  }

  /** Request slot `s`'s state slot (the last it took, kept after its end), or -1. */
  stateSlotOf(s: number): number {
    return (this.lastState[s] ?? 0) - 1;
  }

  /** Whether request slot `s`'s request (serial `serial`) still holds its state slot. */
  holdsState(s: number, serial: number): boolean {
    const k = this.stateSlotOf(s);
    return k >= 0 && this.stateHolder.get(k) === serial;
  }

  /** What a decode step of `s` reads from its state slot now: whose state it holds (0: never written, or no slot). */
  stateRead(s: number): number {
    const k = (this.stateIdx[s] ?? 0) - 1;
    return k < 0 ? 0 : (this.stateOf.get(k) ?? 0);
  }

  /** Request slot `s`'s metadata row while it holds it, or -1. */
  rowOf(s: number): number {
    return (this.metaIdx[s] ?? 0) - 1;
  }

  /** What `s`'s commit read from its metadata row: whose first token (0: never written). */
  rowReadOf(s: number): number {
    return this.rowRead[s] ?? 0;
  }
}

/** The lowest id nobody holds. */
function lowestFree(holders: Map<number, number>): number {
  let k = 0;
  while (holders.has(k)) k++;
  return k;
}
