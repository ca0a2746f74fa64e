/**
 * The pool whose writes land in parts (fault `torn-write`, spec/transfer.ts): P's RDMA write
 * of a request is many one-sided writes, one per page and, under an owner check, one more
 * for the page's tag (one word, one atomic write), and they complete in any order relative
 * to D's own actions. As the spec has it, on TypedArrays sized once:
 * - `prefill` and a silent `stub` post the write: per part `k`, in table order, the position,
 *   the label and the slots it fills, recorded where the whole write would have landed (the
 *   parent's `write`); the request is `writing` (a timed-out one `landing`). A write of no
 *   page lands at once, and a late write under `revoke-writer` lands nowhere, as before.
 * - `landData` lands the next content part, `landTag` under an owner check the next tag part,
 *   each by table position into the page there now, whoever holds it; when the last part
 *   lands the request is `written` (a `landing` one `landed`), and `writeLanded` tells the
 *   subclasses (slot-pool.ts lands the state slot and metadata row then).
 * - `timeout` (fault `early-free`) also takes a `writing` request: its parts stay in flight
 *   (`landing`), or under `revoke-writer` are dropped (`landed`).
 * - Fault `premature-success`: `handoff` also commits a `writing` request (P's Success came
 *   before the receiver saw every part; D's `pop_transferred` commits on `KVPoll.Success`),
 *   unless `hardened`'s `commit-counts-landed`; parts go on landing after the commit, the last
 *   one landing the state slot and row, and a release with parts in flight leaves the request
 *   `landing`. P's write starts past a hit's prefix pages only (an insert after the commit
 *   moves no part).
 * - P's source pages (config `sourcePages`, spec/source-pages.ts): a content part copies what
 *   the write's source page holds when it lands. Fault `source-early-free` adds `abortSource`:
 *   P aborts the request while content parts are still to land and frees its source pages,
 *   which P's next prefill reuses, so every later content part lands another user's KV (the
 *   stale label), unless `hardened`'s `hold-source` keeps them to the transfer's end; the
 *   last content part ends the transfer's hold either way.
 * Without the faults the pool is its parent's, `SteppingPool`. `draft-pool.ts` extends it.
 */
import { hasMechanism } from '../spec/behaviour.ts';
import { HIT, Ph } from '../spec/state.ts';
import { faultActs, NO_PAGE, STALE_DATA } from './options.ts';
import type { PagePool } from './pool.ts';
import { SteppingPool, type SteppingPoolOptions } from './stepping-pool.ts';

/** The stepping pool, its writes landing part by part under `torn-write`. */
export class TornPool extends SteppingPool {
  /** Per request slot: the content parts of its posted write that have landed. */
  readonly dataParts: Int32Array;
  /** Per request slot: the tag parts that have landed (under an owner check). */
  readonly tagParts: Int32Array;
  /** Per request slot: how many parts its write has (one per page written). */
  protected readonly partCount: Int32Array;
  /** Per part, `maxLength` per slot: its table position, its label, and the slots it fills. */
  private readonly partPos: Int32Array;
  private readonly partLabel: Int32Array;
  private readonly partSlots: Int32Array;
  /** Fault `torn-write`. */
  private readonly tearing: boolean;
  /** Per request slot: 1 while P has freed the source pages of its write in flight (`abortSource`). */
  readonly sourceFreed: Uint8Array;
  /** Fault `source-early-free` with config `sourcePages`: `abortSource` is enabled. */
  private readonly abortsSource: boolean;
  /** `hardened`'s `hold-source`: a freed source page is not reused before the transfer ends. */
  private readonly holdsSource: boolean;
  /** Fault `premature-success`: parts may land after the commit. */
  private readonly premature: boolean;
  /** Fault `premature-success` not stopped by `commit-counts-landed`: the commit may come before the last part. */
  private readonly commitsEarly: boolean;
  /** The slot whose write is being posted (its page writes are recorded as parts), or -1. */
  private posting = -1;

  constructor(options: SteppingPoolOptions) {
    super(options);
    this.tearing = faultActs(options, 'torn-write');
    this.premature = faultActs(options, 'premature-success');
    this.commitsEarly = faultActs(options, 'premature-success', 'commit-counts-landed');
    this.abortsSource = options.sourcePages === true && faultActs(options, 'source-early-free');
    this.holdsSource = hasMechanism(options.variant, 'hold-source');
    this.sourceFreed = new Uint8Array(options.slots);
    const n = options.slots;
    this.dataParts = new Int32Array(n);
    this.tagParts = new Int32Array(n);
    this.partCount = new Int32Array(n);
    const parts = this.tearing ? n * options.maxLength : 0;
    this.partPos = new Int32Array(parts);
    this.partLabel = new Int32Array(parts);
    this.partSlots = new Int32Array(parts);
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof TornPool)) return;
    for (const key of ['dataParts', 'tagParts', 'partCount', 'partPos', 'partLabel', 'partSlots'] as const) this[key].set(other[key]);
    this.sourceFreed.set(other.sourceFreed);
  }

  /** P's write, posted part by part under `torn-write`. */
  override prefill(slot: number): boolean {
    return this.posted(slot, () => super.prefill(slot));
  }

  /** P's silent stub's one page, posted as a one-part write under `torn-write`. */
  override stub(slot: number): boolean {
    return this.posted(slot, () => super.stub(slot));
  }

  /** With `early-free`, also a request whose parts are landing: they stay in flight (`landing`), or under `revoke-writer` are dropped. */
  override timeout(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (!this.tearing || !this.behaviour.earlyFree || this.phases[s] !== Ph.writing) return super.timeout(slot);
    this.release(s);
    this.unlock(s);
    this.phases[s] = this.behaviour.revokeWriter ? Ph.landed : Ph.landing;
    return true;
  }

  /** P's Success; under `premature-success` (without `commit-counts-landed`) also while parts are landing. */
  override handoff(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (!this.commitsEarly || this.phases[s] !== Ph.writing) return super.handoff(slot);
    this.phases[s] = Ph.handedOff;
    return true;
  }

  /** The release; under `premature-success` a committed request with parts in flight is `landing`, its parts landing later. */
  override free(slot: number): boolean {
    const s = this.slotIndex(slot);
    const inFlight = this.premature && committed(this.phases[s] ?? 0) && this.partsInFlight(s);
    if (!super.free(slot)) return false;
    if (inFlight && this.phases[s] === Ph.freed) this.phases[s] = Ph.landing;
    return true;
  }

  /** Fault `torn-write`: the next content part of the slot's write lands in the page at its position. False when none is in flight. */
  landData(slot: number): boolean {
    const s = this.slotIndex(slot);
    const k = this.dataParts[s] ?? 0;
    if (!this.inFlight(s) || k >= (this.partCount[s] ?? 0)) return false;
    const at = s * this.options.maxLength + k;
    const i = this.partPos[at] ?? 0;
    const p = this.tables[s * this.options.maxLength + i] ?? NO_PAGE;
    // With P's source pages, the part copies what the source holds now: another user's KV once it was freed and reused.
    const label = this.sourceFreed[s] === 1 && !this.holdsSource ? STALE_DATA : (this.partLabel[at] ?? 0);
    if (p !== NO_PAGE) [this.data[p], this.position[p], this.fill[p]] = [label, i, this.partSlots[at] ?? 0];
    this.dataParts[s] = k + 1;
    if (k + 1 >= (this.partCount[s] ?? 0)) this.sourceFreed[s] = 0;
    this.finishIfLanded(s);
    return true;
  }

  /** Fault `source-early-free`: P aborts the slot's request while content parts are still to land, and frees its source pages. False when nothing is in flight, or they were freed already. */
  abortSource(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (!this.abortsSource || (phase !== Ph.writing && phase !== Ph.landing)) return false;
    if ((this.dataParts[s] ?? 0) >= (this.partCount[s] ?? 0) || this.sourceFreed[s] === 1) return false;
    this.sourceFreed[s] = 1;
    return true;
  }

  /** Fault `torn-write` under an owner check: the next tag part of the slot's write lands. False when none is in flight. */
  landTag(slot: number): boolean {
    const s = this.slotIndex(slot);
    const k = this.tagParts[s] ?? 0;
    if (!this.behaviour.ownerCheck || !this.inFlight(s) || k >= (this.partCount[s] ?? 0)) return false;
    const at = s * this.options.maxLength + k;
    const p = this.tables[s * this.options.maxLength + (this.partPos[at] ?? 0)] ?? NO_PAGE;
    if (p !== NO_PAGE) [this.tag[p], this.tagFill[p]] = [this.partLabel[at] ?? 0, this.partSlots[at] ?? 0];
    this.tagParts[s] = k + 1;
    this.finishIfLanded(s);
    return true;
  }

  /** Under `premature-success`, P's write starts past a hit's prefix pages only: an insert after an early commit moves none of its parts. */
  protected override firstWritten(s: number): number {
    if (!this.premature) return super.firstWritten(s);
    return ((this.flags[s] ?? 0) & HIT) !== 0 ? (this.prefixLengths[this.groups[s] ?? 0] ?? 1) : 0;
  }

  /** While a write is posted, a page write is recorded as its next part; otherwise it lands. */
  protected override write(p: number, label: number, pos: number, slots: number): void {
    const s = this.posting;
    if (s < 0) return super.write(p, label, pos, slots);
    const k = this.partCount[s] ?? 0;
    const at = s * this.options.maxLength + k;
    [this.partPos[at], this.partLabel[at], this.partSlots[at]] = [pos, label, slots];
    this.partCount[s] = k + 1;
  }

  /** Called once the last part of a `writing` (now `written`) or early-committed request's write has landed; subclasses land what comes with it. */
  protected writeLanded(_s: number): void {}

  /** Runs P's write `post` for slot `slot`; under `torn-write` its page writes become parts, and a write with parts is in flight. */
  private posted(slot: number, post: () => boolean): boolean {
    if (!this.tearing) return post();
    const s = this.slotIndex(slot);
    const before = this.partCount[s] ?? 0;
    this.partCount[s] = 0;
    this.posting = s;
    let accepted = false;
    try {
      accepted = post();
    } finally {
      this.posting = -1;
      // A refused write posted nothing: the parts of an earlier one stay as they were.
      if (!accepted) this.partCount[s] = before;
    }
    if (!accepted || (this.partCount[s] ?? 0) === 0) return accepted;
    this.dataParts[s] = 0;
    this.tagParts[s] = 0;
    this.phases[s] = this.phases[s] === Ph.landed ? Ph.landing : Ph.writing;
    return true;
  }

  /** Whether parts of the slot's write can land: it is `writing`, `landing` after a timeout or release, or under `premature-success` committed. */
  private inFlight(s: number): boolean {
    const phase = this.phases[s] ?? 0;
    return phase === Ph.writing || phase === Ph.landing || (this.premature && committed(phase));
  }

  /** Whether some part of the slot's posted write has not landed (a tag part only under an owner check). */
  private partsInFlight(s: number): boolean {
    const count = this.partCount[s] ?? 0;
    return (this.dataParts[s] ?? 0) < count || (this.behaviour.ownerCheck && (this.tagParts[s] ?? 0) < count);
  }

  /** After a part landed: once every part has, a `writing` request is written, a `landing` one landed; a committed one stays, and with a `writing` one its state lands. */
  private finishIfLanded(s: number): void {
    if (this.partsInFlight(s)) return;
    const phase = this.phases[s];
    if (phase === Ph.landing) {
      this.phases[s] = Ph.landed;
      return;
    }
    if (phase === Ph.writing) this.phases[s] = Ph.written;
    this.writeLanded(s);
  }
}

/** Whether D committed a request in `phase` (handed off, decoding, decoded, or failed by decode's check), where under `premature-success` parts may still land. */
function committed(phase: number): boolean {
  return phase === Ph.handedOff || phase === Ph.decoding || phase === Ph.decoded || phase === Ph.failed;
}
