/**
 * The pool with D's per-request slots beside the pages (config `stateSlots`,
 * spec/state-slots.ts): the recurrent state slot (SGLang's `MambaPool` slot, taken with the
 * request's row by `HybridReqToTokenPool.alloc` in `DecodePreallocQueue._pre_alloc`) and
 * the metadata buffer row (`ReqToMetadataIdxAllocator.alloc` in `pop_preallocated`), on
 * TypedArrays sized once, one slot and one row per request slot of the pool.
 *
 * What happens to them, each time as the spec has it:
 * - `allocate` takes the lowest free state slot and the lowest free row; under fault
 *   `metadata-collision` the row is row 0, whoever holds it (an index on the allocator's
 *   free list twice), unless `hardened`'s `metadata-alloc-checks-holder` checks the holder.
 * - The write that lands (`prefill`, a silent `stub`; not a timed-out request's late one,
 *   whose state and metadata the spec drops) writes the request's label into both, as P's
 *   transfer writes the state and the first output token (`MetadataBuffers`).
 * - The commit (`handoff`, `_commit_transfer_to_req`) reads the row's token and frees the
 *   row if the request still holds it; under fault `state-slot-reuse` it frees the state
 *   slot too, unless `hardened`'s `slot-freed-with-request` keeps it for the request's end.
 * - Every decode step reads the state slot (the mamba kernels read `state_indices` at each
 *   forward), after the pages.
 * - `free` and `timeout` release the slot if still held, and a timeout the row too.
 * A read of a slot or row whose content is not the request's own is recorded at table
 * position 0, kept with the worst read there (spec/reads.ts), and its label joins what the
 * request read: `Isolation` and `Integrity` cover pages and slots together. Retraction keeps
 * the slot held. The pool stands for the spec only with `reuseSlots` off (a request per
 * pool slot); nothing allocates after construction. Without `stateSlots` it is its parent's,
 * `AuxPool` (aux-pool.ts, D's metadata slot under `aux-torn`) over `DraftPool` (draft-pool.ts),
 * whose page reads come first at a decode step.
 */
import { Ph } from '../spec/state.ts';
import type { PagePool } from './pool.ts';
import type { SteppingPoolOptions } from './stepping-pool.ts';
import { AuxPool } from './aux-pool.ts';
import { faultActs } from './options.ts';

/** The stepping pool with a draft model's KV (draft-pool.ts) and D's state slots and metadata rows, each where its config switch is on. */
export class SlotPool extends AuxPool {
  /** Per state slot: the serial of the request holding it (0 = free). */
  readonly stateHolder: Int32Array;
  /** Per state slot: whose state the last landed write put there (0 = never written). */
  readonly stateOf: Int32Array;
  /** Per metadata row: the serial of the request it was last handed to, until freed (0 = free). */
  readonly metaHolder: Int32Array;
  /** Per metadata row: whose first output token the last landed write put there (0 = never written). */
  readonly metaOf: Int32Array;
  /** Per request slot: its state slot plus one (0: none yet, or its request has ended). */
  readonly stateIdx: Int32Array;
  /** Per request slot: its metadata row plus one (0: none yet, or its commit has read it). */
  readonly metaIdx: Int32Array;
  /** Fault `state-slot-reuse` not stopped by `slot-freed-with-request`: the commit frees the state slot. */
  private readonly freesSlotAtCommit: boolean;
  /** Fault `metadata-collision` not stopped by `metadata-alloc-checks-holder`: every allocation gets row 0. */
  private readonly collides: boolean;
  /** Whether config `stateSlots` is on. */
  private readonly slotted: boolean;

  constructor(options: SteppingPoolOptions) {
    super(options);
    this.slotted = options.stateSlots === true;
    const n = options.slots;
    this.stateHolder = new Int32Array(n);
    this.stateOf = new Int32Array(n);
    this.metaHolder = new Int32Array(n);
    this.metaOf = new Int32Array(n);
    this.stateIdx = new Int32Array(n);
    this.metaIdx = new Int32Array(n);
    this.freesSlotAtCommit = faultActs(options, 'state-slot-reuse', 'slot-freed-with-request');
    this.collides = faultActs(options, 'metadata-collision', 'metadata-alloc-checks-holder');
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof SlotPool)) return;
    for (const key of ['stateHolder', 'stateOf', 'metaHolder', 'metaOf', 'stateIdx', 'metaIdx'] as const) this[key].set(other[key]);
  }

  /** Admits as the stepping pool does, and takes a state slot and a metadata row. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    if (!this.slotted) return true;
    const serial = this.serials[slot] ?? 0;
    const k = lowestFree(this.stateHolder);
    this.stateHolder[k] = serial;
    this.stateIdx[slot] = k + 1;
    const row = this.collides ? 0 : lowestFree(this.metaHolder);
    this.metaHolder[row] = serial;
    this.metaIdx[slot] = row + 1;
    return true;
  }

  /** P's write; when it lands as the request's (not late), its state and first token land in its slot and row. */
  override prefill(slot: number): boolean {
    return this.landedSlots(slot, super.prefill(slot));
  }

  /** P's stub; a silent one lands the request's state and first token as a prefill's does. */
  override stub(slot: number): boolean {
    return this.landedSlots(slot, super.stub(slot));
  }

  /** The commit: reads the row's first token, frees the row (and under `state-slot-reuse` the state slot). */
  override handoff(slot: number): boolean {
    if (!super.handoff(slot)) return false;
    if (!this.slotted) return true;
    const row = (this.metaIdx[slot] ?? 0) - 1;
    if (row >= 0) {
      this.readSlot(slot, this.metaOf[row] ?? 0);
      if (this.metaHolder[row] === this.serials[slot]) this.metaHolder[row] = 0;
      this.metaIdx[slot] = 0;
    }
    if (this.freesSlotAtCommit) this.releaseState(slot, false);
    return true;
  }

  /** The request's release frees its state slot too. */
  override free(slot: number): boolean {
    if (!super.free(slot)) return false;
    this.releaseState(slot, true);
    return true;
  }

  /** A timeout frees the state slot and the metadata row. */
  override timeout(slot: number): boolean {
    if (!super.timeout(slot)) return false;
    this.releaseState(slot, true);
    return true;
  }

  /** Under torn-write: the write's last part landed on a `writing` or early-committed request, and its state and first token land with it. */
  protected override writeLanded(s: number): void {
    if (this.slotted) this.landSlots(s);
  }

  /** A decode step's reads: the pages, then the state slot, whoever holds it now. */
  protected override readStep(s: number, end: number): void {
    super.readStep(s, end);
    if (!this.slotted) return;
    const k = (this.stateIdx[s] ?? 0) - 1;
    // Position 0 holds the pages' worst read now, so the state's read is compared with it (the spec's order).
    if (k >= 0) this.readSlot(s, this.stateOf[k] ?? 0);
  }

  /** After an accepted write: when it landed as the request's own (`written`), its state and first token into its slot and row. */
  private landedSlots(slot: number, accepted: boolean): boolean {
    if (!accepted || !this.slotted || this.phases[slot] !== Ph.written) return accepted;
    this.landSlots(slot);
    return true;
  }

  /** The request's state and first token land in its slot and row, whoever holds them now. */
  private landSlots(slot: number): void {
    const serial = this.serials[slot] ?? 0;
    const k = (this.stateIdx[slot] ?? 0) - 1;
    if (k >= 0) this.stateOf[k] = serial;
    const row = (this.metaIdx[slot] ?? 0) - 1;
    if (row >= 0) this.metaOf[row] = serial;
  }

  /** The end of slot `s`'s hold on its state slot (early, at the commit, under `state-slot-reuse`); at its end (`forget`) it forgets its slot, and frees and forgets its row. */
  private releaseState(s: number, forget: boolean): void {
    if (!this.slotted) return;
    const serial = this.serials[s] ?? 0;
    const k = (this.stateIdx[s] ?? 0) - 1;
    if (k >= 0 && this.stateHolder[k] === serial) this.stateHolder[k] = 0;
    if (!forget) return;
    this.stateIdx[s] = 0;
    const row = (this.metaIdx[s] ?? 0) - 1;
    if (row >= 0 && this.metaHolder[row] === serial) this.metaHolder[row] = 0;
    this.metaIdx[s] = 0;
  }
}

/** The lowest entry of `holders` nobody holds (the last one if all are held: one per request, so a new request always finds one). */
function lowestFree(holders: Int32Array): number {
  let k = 0;
  while (k < holders.length - 1 && holders[k] !== 0) k++;
  return k;
}
