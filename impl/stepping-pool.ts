/**
 * The pool with a request's whole life on D as the spec has it: decode in `decodeSteps`
 * steps (spec/decode-steps.ts), the table growing page by page (`grow`, config
 * `tableGrowth`), and retraction and resume (config `retraction`, spec/retraction.ts), on
 * the TypedArray state of `serving-pool.ts`. The model-based test drives it (impl/drive.ts
 * builds it for a configuration with any of the three); `validate-log` keeps
 * `ServingPool`, whose log says what each later step read.
 *
 * How it differs from `ServingPool`, each time as the spec does:
 * - Decode steps. Every step reads, and under an owner check checks, the slots up to the
 *   request's length: the prompt's, then one more per token decoded. A step after the
 *   first writes its token into the next slot (SGLang's forward writes the new token's KV
 *   into `req_to_token[row, seq_len]`). Between two steps the request is `decoding`. What
 *   a position read is kept as the worst read there over the steps (spec/reads.ts), and the
 *   labels read are the union of every step's.
 * - Growth. `grow` takes the page for the next step's token (SGLang's `alloc_decode` in
 *   `prepare_for_decode`) and writes nothing: the step writes the token after it reads.
 * - Retraction. A running request (handed off, or between two steps) is retracted; the
 *   release also unlocks its prefix and forgets its hit, as `release_kv_cache` drops the
 *   request's prefix node. `resume` takes new pages only when enough are free, merging no
 *   release list on a refusal (the spec's `resume` is simply not enabled then), and marks
 *   the request resumed.
 * Nothing allocates after construction.
 */
import { EVICTED_FOR, HIT, INSERTED, Ph, READ_UNHELD, RESUMED } from '../spec/state.ts';
import { prefixLabelOf, STALE_DATA } from './options.ts';
import { ServingPool, type ServingPoolOptions } from './serving-pool.ts';

/** {@link SteppingPool.severity} of a read: content not written for the reader there (garbage), and another user's. */
const GARBAGE = 1;
const ANOTHER_USERS = 2;

/** The serving pool's options, and how many decode steps a request takes. */
export interface SteppingPoolOptions extends ServingPoolOptions {
  /** Decode steps per request (the spec's `decodeSteps`); 1 when left out. */
  readonly decodeSteps?: number;
  /** D's state slots and metadata rows beside the pages (config `stateSlots`, impl/slot-pool.ts); off when left out. */
  readonly stateSlots?: boolean;
  /** A draft model's KV beside every page (config `draft`, impl/draft-pool.ts); off when left out. */
  readonly draft?: boolean;
  /** P's source pages (config `sourcePages`, impl/torn-pool.ts): a torn write's content parts read them when they land; off when left out. */
  readonly sourcePages?: boolean;
}

/** The pool with decode steps, growth and retraction, each as the spec has it. */
export class SteppingPool extends ServingPool {
  /** Decode steps per request. */
  private readonly stepsPerRequest: number;
  /** Per slot: the decode steps taken (kept across a retraction). */
  private readonly stepsTaken: Int32Array;
  /** Per slot: the distinct labels its steps read, `seenCounts[slot]` of them from `slot * seenWidth`. */
  private readonly seen: Int32Array;
  private readonly seenCounts: Int32Array;
  private readonly seenWidth: number;

  constructor(readonly stepping: SteppingPoolOptions) {
    super(stepping);
    this.stepsPerRequest = stepping.decodeSteps ?? 1;
    this.stepsTaken = new Int32Array(stepping.slots);
    // A step reads at most a table's worth of labels, the stale one among them; with state slots also its state slot, and the commit its metadata row.
    // With a draft model each step reads a draft label per page besides.
    const perStep = stepping.maxLength * (stepping.draft === true ? 2 : 1);
    this.seenWidth = perStep * this.stepsPerRequest + 1 + (stepping.stateSlots === true ? this.stepsPerRequest + 1 : 0);
    this.seen = new Int32Array(stepping.slots * this.seenWidth);
    this.seenCounts = new Int32Array(stepping.slots);
  }

  /** Admits as `PagePool.allocate` does; a new admission has taken no step and read nothing. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    this.stepsTaken[slot] = 0;
    this.seenCounts[slot] = 0;
    return true;
  }

  /** The decode steps the slot's request has taken. */
  override steps(slot: number): number {
    return this.stepsTaken[this.slotIndex(slot)] ?? 0;
  }

  /** The labels the slot's steps have read, each once, in the order first read. */
  override labelsRead(slot: number): number[] {
    const s = this.slotIndex(slot);
    return Array.from(this.seen.subarray(s * this.seenWidth, s * this.seenWidth + (this.seenCounts[s] ?? 0)));
  }

  /** The pages the slot's table may hold: under `tableGrowth` the prompt's and its tokens' (spec/model.ts's `len`). */
  protected override tableCapacity(s: number): number {
    if (this.stepping.tableGrowth !== true) return this.lengths[s] ?? 0;
    const pageSize = this.options.pageSize ?? 1;
    return Math.ceil(((this.tokens[s] ?? 0) + this.stepsPerRequest - 1) / pageSize);
  }

  /** The slot its next token goes to: after the prompt and the tokens its earlier steps wrote (spec/slots.ts). */
  protected nextSlot(s: number): number {
    return (this.tokens[s] ?? 0) + Math.max(0, (this.stepsTaken[s] ?? 0) - 1);
  }

  /** How many slots, from the first, the next step reads: its prompt and the tokens decoded so far, within the table. */
  private readEnd(s: number): number {
    return Math.min(this.nextSlot(s), this.tableCapacity(s) * (this.options.pageSize ?? 1));
  }

  /** Under `tableGrowth`: whether the next step (not the first) writes its token past the table's last page, so `grow` comes first. */
  private needsPage(s: number): boolean {
    if (this.stepping.tableGrowth !== true || (this.stepsTaken[s] ?? 0) === 0) return false;
    const i = Math.floor(this.nextSlot(s) / (this.options.pageSize ?? 1));
    return i < this.tableCapacity(s) && i >= (this.lengths[s] ?? 0);
  }

  /** Config `tableGrowth`: one more page for the next step's token, by the allocation order's `alloc_decode`; its tag cleared, nothing written. */
  override grow(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.phases[s] !== Ph.decoding || !this.needsPage(s) || this.freePages < 1) return false;
    const length = this.lengths[s] ?? 0;
    const at = s * this.options.maxLength + length;
    this.takePages(at, 1, undefined, true);
    const p = this.tables[at] ?? 0;
    this.takeHolder(p, this.serials[s] ?? 0);
    if (this.behaviour.ownerCheck) this.clearTag(p);
    this.lengths[s] = length + 1;
    return true;
  }

  /** One decode step: the owner check (a failure fails the request loudly), the reads, then after the first step the token's write. */
  override decode(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if ((phase !== Ph.handedOff && phase !== Ph.decoding) || this.needsPage(s)) return false;
    const end = this.readEnd(s);
    if (this.behaviour.ownerCheck && !this.tagsPass(s, end)) {
      this.phases[s] = Ph.failed;
      return true;
    }
    this.readStep(s, end);
    const steps = (this.stepsTaken[s] ?? 0) + 1;
    if (steps > 1) this.writeToken(s);
    this.stepsTaken[s] = steps;
    this.phases[s] = steps >= this.stepsPerRequest ? Ph.decoded : Ph.decoding;
    return true;
  }

  /** The label request `s` may read at position `i` besides its own: its prefix's page `i`, at a prefix position (0 elsewhere). */
  private prefixAt(s: number, i: number): number {
    const g = this.groups[s] ?? -1;
    return g >= 0 && i < (this.prefixLengths[g] ?? 1) ? prefixLabelOf(this.prefixSlot(g, i)) : 0;
  }

  /** The owner check over the first `end` slots: every page's tag may be read there, and under `tag-counts-tokens` counts the slots read. */
  private tagsPass(s: number, end: number): boolean {
    const pageSize = this.options.pageSize ?? 1;
    const base = s * this.options.maxLength;
    const serial = this.serials[s] ?? 0;
    for (let i = 0; i < Math.ceil(end / pageSize); i++) {
      const p = this.tables[base + i] ?? 0;
      const t = this.tag[p] ?? 0;
      if (t !== serial && (t === 0 || t !== this.prefixAt(s, i))) return false;
      if (this.behaviour.tagCountsTokens && (this.tagFill[p] ?? 0) < Math.min(pageSize, end - i * pageSize)) return false;
    }
    return true;
  }

  /** Pages another request's data was read from by the slot's steps: the positions whose worst read kept is another user's ({@link severity}); `PagePool`'s count is not kept here. */
  override foreignReads(slot: number): number {
    return this.readsOf(this.slotIndex(slot), ANOTHER_USERS);
  }

  /** Pages the slot's steps read that were not written for it there (never written, or misplaced), counted as {@link foreignReads} is. */
  override garbageReads(slot: number): number {
    return this.readsOf(this.slotIndex(slot), GARBAGE);
  }

  /** How many positions the slot's steps read with this severity. */
  private readsOf(s: number, severity: number): number {
    const base = s * this.options.maxLength;
    let n = 0;
    for (let i = 0; i < (this.readCounts[s] ?? 0); i++) if (this.severity(s, i, this.reads[base + i] ?? 0, this.readPositions[base + i] ?? 0) === severity) n++;
    return n;
  }

  /** How bad a read of `label`, written for `pos`, at position `i` is: 0 its own content there, 1 garbage, 2 another user's (spec/reads.ts). */
  protected severity(s: number, i: number, label: number, pos: number): number {
    if (label === 0) return 1;
    if (label !== this.serials[s] && label !== this.prefixAt(s, i)) return 2;
    return pos === i ? 0 : 1;
  }

  /** One step's reads of the first `end` slots: per position the worse of this read and the one kept, the labels read, and a read of a page not held. */
  protected readStep(s: number, end: number): void {
    const pageSize = this.options.pageSize ?? 1;
    const base = s * this.options.maxLength;
    const serial = this.serials[s] ?? 0;
    const shared = this.sharedPages(s);
    const kept = this.readCounts[s] ?? 0;
    const positions = Math.ceil(end / pageSize);
    let unheld = false;
    for (let i = 0; i < positions; i++) {
      const p = this.tables[base + i] ?? 0;
      const written = this.data[p] ?? 0;
      const own = this.prefixAt(s, i);
      const mine = written !== 0 && (written === serial || written === own);
      // A read past the page's fill meets stale P-side data (unless the page is another user's anyway).
      const label = mine && Math.min(pageSize, end - i * pageSize) > (this.fill[p] ?? 0) ? STALE_DATA : written;
      // A stale tail is read where it is; another user's KV a load left (loadback-pool.ts) keeps the position it was written for.
      const pos = label === STALE_DATA && written !== STALE_DATA ? i : (this.position[p] ?? 0);
      if (i >= kept || this.severity(s, i, label, pos) > this.severity(s, i, this.reads[base + i] ?? 0, this.readPositions[base + i] ?? 0)) {
        this.reads[base + i] = label;
        this.readPositions[base + i] = pos;
      }
      if (label !== 0) this.see(s, label);
      const h = this.holder[p] ?? 0;
      if (h !== serial && !(i < shared && h === own)) unheld = true;
    }
    this.readCounts[s] = Math.max(kept, positions);
    if (unheld) this.flags[s] = (this.flags[s] ?? 0) | READ_UNHELD;
  }

  /** Notes that the slot's request read `label`. */
  protected see(s: number, label: number): void {
    const from = s * this.seenWidth;
    const n = this.seenCounts[s] ?? 0;
    for (let k = from; k < from + n; k++) if (this.seen[k] === label) return;
    this.seen[from + n] = label;
    this.seenCounts[s] = n + 1;
  }

  /** A step after the first writes its token into the next slot (the table's last slot once it is full): the page is the request's up to that slot. */
  protected writeToken(s: number): void {
    const pageSize = this.options.pageSize ?? 1;
    const slot = Math.min(this.nextSlot(s), this.tableCapacity(s) * pageSize - 1);
    const i = Math.floor(slot / pageSize);
    if (i >= (this.lengths[s] ?? 0)) return;
    const p = this.tables[s * this.options.maxLength + i] ?? 0;
    const filled = slot - i * pageSize + 1;
    const serial = this.serials[s] ?? 0;
    const grows = this.data[p] === serial && this.position[p] === i;
    const tagGrows = this.tag[p] === serial;
    const [fill, tagFill] = [this.fill[p] ?? 0, this.tagFill[p] ?? 0];
    this.write(p, serial, i, grows ? Math.max(fill, filled) : filled);
    if (this.behaviour.ownerCheck) this.tagFill[p] = tagGrows ? Math.max(tagFill, filled) : filled;
  }

  /** Config `retraction`: the copy (at once, or late under `offload-after-free`), the release, the prefix unlocked and its hit forgotten. */
  override retract(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (this.stepping.retraction !== true || (phase !== Ph.handedOff && phase !== Ph.decoding)) return false;
    const late = this.behaviour.offloadAfterFree;
    if (!late) this.copyTable(s);
    this.release(s);
    this.unlock(s);
    this.flags[s] = (this.flags[s] ?? 0) & ~(HIT | INSERTED);
    this.phases[s] = late ? Ph.offloading : Ph.retracted;
    return true;
  }

  /** Evicts as `PagePool.evict` does, and also for a retracted request whose resume finds too few free pages: a resume matches no prefix, so any unlocked entry may go, its own too. */
  override evict(slot: number, length: number, prefix?: number): boolean {
    const s = this.slotIndex(slot);
    if (this.phases[s] !== Ph.retracted) return super.evict(slot, length, prefix);
    if (!this.behaviour.eviction || this.freePages >= (this.lengths[s] ?? 0) || !this.evictEntry(-1)) return false;
    this.flags[s] = (this.flags[s] ?? 0) | EVICTED_FOR;
    return true;
  }

  /** Resumes a retracted request on new pages when enough are free (`alloc_extend` of its `fill_len`), and it decodes on. */
  override resume(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.stepping.retraction !== true || this.phases[s] !== Ph.retracted) return false;
    const room = this.lengths[s] ?? 0;
    if (this.freePages < room) return false;
    const pageSize = this.options.pageSize ?? 1;
    // The tokens committed so far, at least one in the last page (spec/allocator.ts's resumeTokens).
    const tokens = Math.min(room * pageSize, Math.max(this.nextSlot(s), (room - 1) * pageSize + 1));
    this.holdAgain(s, room, tokens);
    this.flags[s] = (this.flags[s] ?? 0) | RESUMED;
    this.phases[s] = (this.stepsTaken[s] ?? 0) > 0 ? Ph.decoding : Ph.handedOff;
    return true;
  }
}
