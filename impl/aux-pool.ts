/**
 * The pool with D's metadata slot landing apart from its room (fault `aux-torn`,
 * spec/aux.ts): P writes a request's first output token into a row of D's `MetadataBuffers`
 * and its `bootstrap_room` into a buffer of its own, two RDMA writes that land apart; D's
 * `_apply_metadata_gate` and `_commit_transfer_to_req` trust the room alone, and
 * `pop_transferred` resets the room and frees the row but leaves the payload. As the spec
 * has it, one slot (the smallest pool in which a row is reused), in three numbers:
 * - `allocate` takes the slot, and waits (refuses) while another request holds it; a refusal
 *   for want of pages still merges `sglang`'s release list, as the spec's `allocFail`.
 * - Once the request's write was posted (`writing` or `written`), `landRoom` and
 *   `landPayload` land its room and its first token, each once; under `hardened`'s
 *   `room-lands-last` the room only after the payload.
 * - `handoff` waits for the request's room, then reads the payload as its first token
 *   (another's, or none, is a read of table position 0, kept with the worst read there) and
 *   frees the slot, its room reset. A refusal and a timeout free it too.
 * Without the fault the pool is its parent's, `DraftPool`; `SlotPool` extends it, so the
 * commit reads the payload before the metadata row, the spec's order.
 */
import { hasMechanism } from '../spec/behaviour.ts';
import { Ph } from '../spec/state.ts';
import type { PagePool } from './pool.ts';
import type { SteppingPoolOptions } from './stepping-pool.ts';
import { DraftPool } from './draft-pool.ts';
import { faultActs } from './options.ts';

/** The draft pool with D's one metadata slot under `aux-torn`. */
export class AuxPool extends DraftPool {
  /** The slot's holder, its room and its payload (serials; 0 = nobody, not landed, never written), in that order. */
  readonly aux: Int32Array;
  /** Fault `aux-torn`. */
  private readonly torn: boolean;
  /** `hardened`'s `room-lands-last`: the room lands only after the payload. */
  private readonly roomLast: boolean;

  constructor(options: SteppingPoolOptions) {
    super(options);
    this.torn = faultActs(options, 'aux-torn');
    this.roomLast = hasMechanism(options.variant, 'room-lands-last');
    this.aux = new Int32Array(3);
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (other instanceof AuxPool) this.aux.set(other.aux);
  }

  /** Admits as the draft pool does, taking the slot; refuses while another request holds it. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!this.torn) return super.allocate(slot, length, prefix, tokens);
    if (this.aux[0] !== 0) {
      const g = prefix ?? -1;
      const need = length - (g >= 0 && this.entryCached(g) ? (this.prefixLengths[g] ?? 1) : 0);
      // Short of pages too: the parent refuses, merging sglang's release list as the spec's allocFail does.
      if (this.freePages < need) super.allocate(slot, length, prefix, tokens);
      return false;
    }
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    this.aux[0] = this.serials[slot] ?? 0;
    return true;
  }

  /** Fault `aux-torn`: the room of the slot's metadata write lands. False when not posted, landed already, or (room-lands-last) before the payload. */
  landRoom(slot: number): boolean {
    const serial = this.serials[this.slotIndex(slot)] ?? 0;
    if (!this.metaPosted(slot) || this.aux[1] === serial || (this.roomLast && this.aux[2] !== serial)) return false;
    this.aux[1] = serial;
    return true;
  }

  /** Fault `aux-torn`: the payload (first output token) of the slot's metadata write lands. False when not posted, or landed already. */
  landPayload(slot: number): boolean {
    const serial = this.serials[this.slotIndex(slot)] ?? 0;
    if (!this.metaPosted(slot) || this.aux[2] === serial) return false;
    this.aux[2] = serial;
    return true;
  }

  /** D's gate waits for the request's room; the commit reads the payload, then frees the slot. */
  override handoff(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.torn && this.aux[1] !== this.serials[s]) return false;
    if (!super.handoff(slot)) return false;
    if (!this.torn) return true;
    this.readSlot(s, this.aux[2] ?? 0);
    this.releaseAux(s);
    return true;
  }

  /** P's stub; a refusal ends the transfer, and frees the slot. */
  override stub(slot: number): boolean {
    if (!super.stub(slot)) return false;
    const phase = this.phases[slot];
    if (phase === Ph.refused || phase === Ph.freed) this.releaseAux(slot);
    return true;
  }

  /** A timeout frees the slot (its late metadata is not modelled). */
  override timeout(slot: number): boolean {
    if (!super.timeout(slot)) return false;
    this.releaseAux(slot);
    return true;
  }

  /** A read of `label` from one of slot `s`'s slots or rows: another's, or none, is a read of position 0, kept if worse than what is recorded there. */
  protected readSlot(s: number, label: number): void {
    if (label === this.serials[s]) return;
    if (label !== 0) this.see(s, label);
    const at = s * this.options.maxLength;
    if ((this.readCounts[s] ?? 0) === 0 || this.severity(s, 0, label, 0) > this.severity(s, 0, this.reads[at] ?? 0, this.readPositions[at] ?? 0)) {
      this.reads[at] = label;
      this.readPositions[at] = 0;
    }
    this.readCounts[s] = Math.max(this.readCounts[s] ?? 0, 1);
  }

  /** Whether the slot's request holds the metadata slot with its write posted (`writing` or `written`). */
  private metaPosted(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    return this.torn && (phase === Ph.writing || phase === Ph.written) && this.aux[0] === this.serials[s];
  }

  /** The end of the slot's transfer: the room reset and the slot freed, if its request holds it; the payload stays. */
  private releaseAux(s: number): void {
    if (!this.torn || this.aux[0] !== this.serials[s]) return;
    this.aux[0] = 0;
    this.aux[1] = 0;
  }
}
