/**
 * The pool with the actions a request takes around its handoff in a real deployment: `grow`
 * (a decode step's new page, config `tableGrowth`), `retract` / `resume` (config
 * `retraction`) and `abortCommit` (a commit-time abort), the spec's actions of
 * spec/transitions.ts, spec/retraction.ts and spec/abort-commit.ts on the
 * TypedArray state of `pool.ts`, as a deployment's log reports them: the validator
 * (conformance/) holds logs of such deployments against them, and `incident` replays
 * through it. The model-based test drives its subclass `SteppingPool`
 * (stepping-pool.ts), which has decode steps, growth and retraction exactly as the spec.
 *
 * Decode steps here. The pool's `decode` is the first step, which leaves the request
 * `decoded`; the later steps, and what their tokens write, are the spec's (`slots.ts`). A
 * step's token into a page `grow` took is written by `grow` itself: in SGLang the page is
 * taken in `prepare_for_decode` for exactly that token, which the step writes before it
 * reads, so nothing reads the page before the token is in it. Under an owner check the
 * token stamps its tag.
 *
 * Retraction. `retract` saves, per table position, what the page there holds (content,
 * position, fill, and under an owner check its tag), then releases the table as a `free`
 * does; `resume` takes new pages by the allocation order (`alloc_extend` of the request's
 * `fill_len` tokens, D's `_pre_alloc`) and loads the saved copy into them. Nothing
 * allocates after construction: the saved copy takes five arrays of the table arena's
 * size, made only with `retraction`.
 *
 * The faults of retraction, as spec/retraction.ts has them. `offload-after-free`: the
 * release comes first and the request is `offloading`; `offload` is the late copy, which
 * reads what the old table's pages hold then, whoever holds them. `resume-stale`: the resume
 * takes its new pages and loads nothing, so they keep what they held (their tags cleared).
 */
import { hasMechanism } from '../spec/behaviour.ts';
import { Ph } from '../spec/state.ts';
import { PagePool } from './pool.ts';
import type { PoolOptions } from './options.ts';

/** The pool's options, and whether it retracts. */
export interface ServingPoolOptions extends PoolOptions {
  /** Whether `retract` and `resume` are enabled (config `retraction`); the saved copies are made only then. */
  readonly retraction?: boolean;
  /** Whether `grow` is enabled (config `tableGrowth`). */
  readonly tableGrowth?: boolean;
}

/** The pool, with `grow`, `retract` and `resume`. */
export class ServingPool extends PagePool {
  /** Per table entry of a retracted request: the content label its copy read (the arena's layout). */
  protected readonly savedData: Int32Array;
  /** Per table entry: the position that content was written for. */
  protected readonly savedPos: Int32Array;
  /** Per table entry: the slots that content filled. */
  protected readonly savedFill: Int32Array;
  /** Per table entry: the owner tag the copy read (`copy-carries-tag`). */
  protected readonly savedTag: Int32Array;
  /** Per table entry: the slots that tag counted (restored with it under `copy-carries-tag`). */
  protected readonly savedTagFill: Int32Array;
  /** Per slot: the phase a resume returns the request to (`handedOff` or `decoded`). */
  protected readonly resumeTo: Uint8Array;

  constructor(readonly serving: ServingPoolOptions) {
    super(serving);
    const size = serving.retraction === true ? serving.slots * serving.maxLength : 0;
    this.savedData = new Int32Array(size);
    this.savedPos = new Int32Array(size);
    this.savedFill = new Int32Array(size);
    this.savedTag = new Int32Array(size);
    this.savedTagFill = new Int32Array(size);
    this.resumeTo = new Uint8Array(serving.slots);
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof ServingPool)) return;
    this.savedData.set(other.savedData);
    this.savedPos.set(other.savedPos);
    this.savedFill.set(other.savedFill);
    this.savedTag.set(other.savedTag);
    this.savedTagFill.set(other.savedTagFill);
    this.resumeTo.set(other.resumeTo);
  }

  /**
   * Config `tableGrowth`: D takes one page for the request's next token (`alloc_decode`,
   * whose shortage test merges `sglang`'s release list only when the free list is empty)
   * and the token is written into its first slot. False when not enabled: the request is
   * not decoding, no page is free, or its table is at the pool's widest.
   */
  grow(slot: number): boolean {
    const s = this.slotIndex(slot);
    const length = this.lengths[s] ?? 0;
    if (this.serving.tableGrowth !== true || this.phases[s] !== Ph.decoded || this.freePages < 1 || length >= this.options.maxLength) return false;
    const at = s * this.options.maxLength + length;
    this.takePages(at, 1, undefined, true);
    const p = this.tables[at] ?? 0;
    const serial = this.serials[s] ?? 0;
    this.takeHolder(p, serial);
    if (this.behaviour.ownerCheck) this.clearTag(p);
    this.write(p, serial, length, 1);
    this.lengths[s] = length + 1;
    return true;
  }

  /**
   * D aborts a written request at commit (`_commit_transfer_to_req` finds another
   * `bootstrap_room`; spec/abort-commit.ts) and releases its pages; it is freed.
   */
  abortCommit(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.phases[s] !== Ph.written) return false;
    this.release(s);
    this.unlock(s);
    this.phases[s] = Ph.freed;
    return true;
  }

  /**
   * P gave up the write of a request D had timed out (its `abort`): the write will never
   * land, so nothing of the spec can touch the request again. It is recorded as `landed`,
   * the phase of a write that landed nowhere (as under `revoke-writer`), so that its slot
   * goes to the next request. This is no action of the spec (whose request would wait,
   * `timedOut`, for a write that never comes), but the same finished request.
   */
  abandon(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.phases[s] !== Ph.timedOut) return false;
    this.phases[s] = Ph.landed;
    return true;
  }

  /**
   * Config `retraction`: D retracts a running request (`retract_decode` → `release_req`):
   * the copy to host memory reads every page of its table, then its release frees them.
   */
  retract(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (this.serving.retraction !== true || (phase !== Ph.handedOff && phase !== Ph.decoded)) return false;
    const late = this.behaviour.offloadAfterFree;
    if (!late) this.copyTable(s);
    this.release(s);
    this.resumeTo[s] = phase;
    this.phases[s] = late ? Ph.offloading : Ph.retracted;
    return true;
  }

  /**
   * Fault `offload-after-free`: the copy to host memory of a request retracted earlier reads
   * its old table's pages now, after their release (the copy is asynchronous, and SGLang's
   * `DecodeKVCacheOffloadManager` did not hold the pages until its ack, PR #30899). False
   * when the request is not offloading.
   */
  offload(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (!this.behaviour.offloadAfterFree || this.phases[s] !== Ph.offloading) return false;
    this.copyTable(s);
    this.phases[s] = Ph.retracted;
    return true;
  }

  /** What slot `slot`'s saved copy holds at table position `i` (meaningful while its request is retracted): content, position, fill, tag and tag count. */
  savedCopy(slot: number, i: number): { label: number; pos: number; fill: number; tag: number; tagFill: number } {
    const at = this.slotIndex(slot) * this.options.maxLength + i;
    return { label: this.savedData[at] ?? 0, pos: this.savedPos[at] ?? 0, fill: this.savedFill[at] ?? 0, tag: this.savedTag[at] ?? 0, tagFill: this.savedTagFill[at] ?? 0 };
  }

  /** The copy to host memory: per table position, what the page there holds now (content, position, fill, tag and its count). */
  protected copyTable(s: number): void {
    const base = s * this.options.maxLength;
    for (let i = base; i < base + (this.lengths[s] ?? 0); i++) {
      const p = this.tables[i] ?? 0;
      this.savedData[i] = this.data[p] ?? 0;
      this.savedPos[i] = this.position[p] ?? 0;
      this.savedFill[i] = this.fill[p] ?? 0;
      this.savedTag[i] = this.tag[p] ?? 0;
      this.savedTagFill[i] = this.tagFill[p] ?? 0;
    }
  }

  /**
   * D resumes a retracted request (`resume_retracted_reqs` → `_pre_alloc` →
   * `load_kv_cache`): as many new pages as its table held, by the allocation order
   * (`alloc_extend` of `tokens`, its `fill_len`: whole pages when left out), their tags
   * cleared, the saved copy loaded into them. False when not enabled (not retracted, or
   * too few pages: the attempt then merges `sglang`'s release list, as an allocation does).
   */
  resume(slot: number, tokens?: number): boolean {
    const s = this.slotIndex(slot);
    if (this.serving.retraction !== true || this.phases[s] !== Ph.retracted) return false;
    const room = this.lengths[s] ?? 0;
    if (this.freePages < room) {
      this.freeList?.refuse(room);
      return false;
    }
    this.holdAgain(s, room, tokens);
    this.phases[s] = this.resumeTo[s] ?? Ph.handedOff;
    return true;
  }

  /** A resume's new table: `room` pages by the allocation order (`alloc_extend` of `tokens`), held by the slot's request, their tags cleared, the saved copy loaded into them (none under `resume-stale`). */
  protected holdAgain(s: number, room: number, tokens?: number): void {
    const base = s * this.options.maxLength;
    this.takePages(base, room, tokens);
    const serial = this.serials[s] ?? 0;
    const carriesTag = hasMechanism(this.options.variant, 'copy-carries-tag');
    for (let i = base; i < base + room; i++) {
      const p = this.tables[i] ?? 0;
      this.takeHolder(p, serial);
      if (this.behaviour.ownerCheck) this.clearTag(p);
      // resume-stale: no load; the page keeps what it held, its tag cleared.
      if (this.behaviour.resumeStale) continue;
      this.write(p, this.savedData[i] ?? 0, this.savedPos[i] ?? 0, this.savedFill[i] ?? 0);
      if (!this.behaviour.ownerCheck) continue;
      // The load stamps the request's own label, or under copy-carries-tag the tag the copy read, with its count.
      this.tag[p] = carriesTag ? (this.savedTag[i] ?? 0) : serial;
      if (carriesTag) this.tagFill[p] = this.savedTagFill[i] ?? 0;
    }
  }
}
