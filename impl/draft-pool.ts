/**
 * The pool with a draft model's KV beside every page (config `draft`, spec/draft.ts): in
 * SGLang's `_init_kv_manager` the draft worker's KV buffers are appended to the target's, so
 * one transfer per request moves both, and they land apart; speculative decode reads both at
 * every page of the table, and the draft forward over a new token writes its draft KV.
 *
 * As the spec has it, on TypedArrays sized once:
 * - Per page a draft label (a serial, a prefix page's label, or 0), never cleared.
 * - The landed write (`prefill`, a silent `stub`) posts its draft part: the pages it wrote,
 *   pending per request slot until `landDraft` lands it by page id, with the write's label
 *   at each position. A timed-out request's late write lands its draft with it (nothing
 *   under `revoke-writer`). `handoff` waits for the draft part.
 * - Fault `draft-stale`: the draft part skips the prefix's positions (P's cache hit them),
 *   unless `hardened`'s `draft-fills-hit`; a stub's one page is never skipped.
 * - Every decode step reads each page's draft label after its target content, kept with the
 *   worst read at that position (spec/reads.ts); a later step's token writes its draft too.
 * Without config `draft` the pool is its parent's. `slot-pool.ts` extends it, so a state
 * slot's read comes after the pages', the spec's order.
 */
import { Ph } from '../spec/state.ts';
import { faultActs, prefixLabelOf } from './options.ts';
import type { PagePool } from './pool.ts';
import type { SteppingPoolOptions } from './stepping-pool.ts';
import { TornPool } from './torn-pool.ts';

/** The stepping pool (its writes torn under `torn-write`, torn-pool.ts) with a draft label per page. */
export class DraftPool extends TornPool {
  /** Per page: whose draft KV it holds (the last draft part or token that landed; 0 = never written). */
  readonly draft: Int32Array;
  /** Per request slot: 1 while its write's draft part is still to land. */
  readonly draftPending: Uint8Array;
  /** Per request slot: the table positions its write covers, from `draftFrom` to `draftTo`, and whether it was a stub. */
  private readonly draftFrom: Int32Array;
  private readonly draftTo: Int32Array;
  private readonly draftStub: Uint8Array;
  /** Whether config `draft` is on. */
  private readonly drafting: boolean;
  /** Fault `draft-stale` not stopped by `draft-fills-hit`: the draft part skips the prefix's positions. */
  private readonly skipsPrefix: boolean;

  constructor(options: SteppingPoolOptions) {
    super(options);
    this.drafting = options.draft === true;
    this.draft = new Int32Array(this.holder.length);
    this.draftPending = new Uint8Array(options.slots);
    this.draftFrom = new Int32Array(options.slots);
    this.draftTo = new Int32Array(options.slots);
    this.draftStub = new Uint8Array(options.slots);
    this.skipsPrefix = faultActs(options, 'draft-stale', 'draft-fills-hit');
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof DraftPool)) return;
    for (const key of ['draft', 'draftFrom', 'draftTo'] as const) this[key].set(other[key]);
    this.draftPending.set(other.draftPending);
    this.draftStub.set(other.draftStub);
  }

  /** P's write; its draft part is posted (or, late, lands with it). */
  override prefill(slot: number): boolean {
    const from = this.firstWritten(slot);
    if (!super.prefill(slot)) return false;
    const tokens = this.overLong(slot) ? Math.min(this.tokens[slot] ?? 0, this.limitTokens()) : (this.tokens[slot] ?? 0);
    this.postDraft(slot, from, Math.ceil(tokens / (this.options.pageSize ?? 1)), false);
    return true;
  }

  /** P's stub; a silent one posts the draft of its one page. */
  override stub(slot: number): boolean {
    const from = this.firstWritten(slot);
    if (!super.stub(slot)) return false;
    this.postDraft(slot, from, from + 1, true);
    return true;
  }

  /** D's commit waits for the draft part too (its Success covers every buffer). */
  override handoff(slot: number): boolean {
    if (this.drafting && this.draftPending[this.slotIndex(slot)] === 1) return false;
    return super.handoff(slot);
  }

  /** Config `draft`: the draft part of the slot's write lands, by page id, whoever holds the pages now. False when none is pending. */
  landDraft(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    // Under torn-write also while the write's parts land, and after a timeout with them in flight (landing).
    if (!this.drafting || this.draftPending[s] !== 1 || (phase !== Ph.written && phase !== Ph.writing && phase !== Ph.landing)) return false;
    this.landDraftPages(s);
    this.draftPending[s] = 0;
    return true;
  }

  /** A decode step's reads: per page the target's content, then its draft label. */
  protected override readStep(s: number, end: number): void {
    super.readStep(s, end);
    if (!this.drafting) return;
    const base = s * this.options.maxLength;
    const positions = Math.ceil(end / (this.options.pageSize ?? 1));
    for (let i = 0; i < positions; i++) {
      const label = this.draft[this.tables[base + i] ?? 0] ?? 0;
      if (label !== 0) this.see(s, label);
      // The target's read at i is recorded now; the draft's is kept if worse (the first of equals stays).
      if (this.severity(s, i, label, i) > this.severity(s, i, this.reads[base + i] ?? 0, this.readPositions[base + i] ?? 0)) {
        this.reads[base + i] = label;
        this.readPositions[base + i] = i;
      }
    }
  }

  /** A later step's token: its target content, and its draft KV in the same page. */
  protected override writeToken(s: number): void {
    super.writeToken(s);
    if (!this.drafting) return;
    const pageSize = this.options.pageSize ?? 1;
    const i = Math.floor(Math.min(this.nextSlot(s), this.tableCapacity(s) * pageSize - 1) / pageSize);
    if (i < (this.lengths[s] ?? 0)) this.draft[this.tables[s * this.options.maxLength + i] ?? 0] = this.serials[s] ?? 0;
  }

  /** After an accepted write covering positions `from` to `to`: a write of the request's own (`written`, or `writing` under torn-write) posts its draft; a late one (`landed` or `landing`, not revoked) lands it now. */
  private postDraft(s: number, from: number, to: number, stub: boolean): void {
    const phase = this.phases[s];
    const own = phase === Ph.written || phase === Ph.writing;
    const late = (phase === Ph.landed || phase === Ph.landing) && !this.behaviour.revokeWriter;
    if (!this.drafting || (!own && !late)) return;
    [this.draftFrom[s], this.draftTo[s], this.draftStub[s]] = [from, to, stub ? 1 : 0];
    if (own) this.draftPending[s] = 1;
    else this.landDraftPages(s);
  }

  /** The draft part lands: at each position the write covered (less the prefix's under `draft-stale`), the write's label there. */
  private landDraftPages(s: number): void {
    const base = s * this.options.maxLength;
    const g = this.groups[s] ?? -1;
    const k = g >= 0 ? (this.prefixLengths[g] ?? 1) : 0;
    const stub = this.draftStub[s] === 1;
    for (let i = this.draftFrom[s] ?? 0; i < (this.draftTo[s] ?? 0); i++) {
      if (i < k && this.skipsPrefix && !stub) continue;
      this.draft[this.tables[base + i] ?? 0] = i < k && !stub ? prefixLabelOf(this.prefixSlot(g, i)) : (this.serials[s] ?? 0);
    }
  }
}
