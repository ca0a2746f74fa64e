/**
 * The pool's state, in TypedArrays sized once: per page, per slot, per prefix page and
 * per prefix group, with the free list of the allocation order, and the queries on it
 * that every layer of the pool asks. `pool.ts` describes what the arrays hold.
 */
import { isOverLongPrompt, limitInTokens } from '../spec/behaviour.ts';
import { HIT, INSERTED, Ph } from '../spec/state.ts';
import { FreeSet } from './free-set.ts';
import { makeFreeList, type FreeList } from './allocator-order.ts';
import { MAX_SERIAL, NO_PAGE, resolveOptions, type Behaviour, type PoolOptions } from './options.ts';

/** The pool's arrays and its queries; `PagePool` adds the protocol's actions. */
export class PoolState {
  /** The options it was built with. */
  readonly options: PoolOptions;
  /** The switches the options resolve to. */
  readonly behaviour: Behaviour;
  /** Per page: the holder's label (a serial, a prefix group's cache entry, or 0 = free). */
  readonly holder: Int32Array;
  /** Per page: the label of the last write that landed in it (0 = never written). */
  readonly data: Int32Array;
  /** Per page: the owner tag (only ever non-zero under `owner-check`). */
  readonly tag: Int32Array;
  /** Per page: the table position its data was written for (meaningless while never written). */
  readonly position: Int32Array;
  /** Per page: how many of its token slots, from the first, its last write filled; the rest hold stale P-side data (spec/slots.ts). */
  readonly fill: Int32Array;
  /** Per page, under `owner-check`: how many slots its tag says were written (0 when cleared). */
  readonly tagFill: Int32Array;
  /** Page tables, `maxLength` entries per slot; kept after `free`, as a stale release needs them. */
  readonly tables: Int32Array;
  /** What each slot's decode read: the data label of each table page, in table order. */
  readonly reads: Int32Array;
  /** The position each of those reads' data was written for. */
  readonly readPositions: Int32Array;
  /** Per slot: the phase code (`Ph` of spec/state.ts). */
  readonly phases: Uint8Array;
  /** Per slot: `HIT`, `INSERTED`, `READ_UNHELD` as in spec/state.ts. */
  readonly flags: Uint8Array;
  /** Per slot: the admitted request's length in pages (0 before its first admission). */
  readonly lengths: Int32Array;
  /** Per slot: the admitted request's prompt in tokens (its pages times the page size unless `allocate` was told). */
  readonly tokens: Int32Array;
  /** Per slot: the admitted request's prefix group, or -1. */
  readonly groups: Int32Array;
  /** Per slot: the admitted request's serial (0 before its first admission). */
  readonly serials: Int32Array;
  /** Per slot: the number of entries of `reads` filled by a successful decode. */
  readonly readCounts: Int32Array;
  /** Per prefix page `k` (group `g`'s page `j` at `prefixSlot(g, j)`): the page the prefix cache holds for it, or `NO_PAGE`. */
  readonly prefixPages: Int32Array;
  /** Per prefix group: the slot in {@link prefixPages} of its first page of its own, past its parent's (the own pages of the groups before it). */
  readonly prefixBase: Int32Array;
  /** Per prefix group: its length in pages. */
  readonly prefixLengths: Int32Array;
  /** Per prefix group: the group it extends (`sys` for `sys/doc`, config `radix`), or -1; its first pages are that group's. */
  readonly prefixParents: Int32Array;
  /** Per prefix group, under eviction: how many live requests lock its cached entry (`RadixCache` lock_ref). */
  readonly locks: Int32Array;
  /** The free list of the `sorted` order (a set). */
  protected readonly freeSet: FreeSet;
  /** The free list of the other orders, and of `sorted` under `double-free` (impl/allocator-order.ts); undefined otherwise. */
  protected readonly freeList: FreeList | undefined;
  /** Scratch for one release's batch of page ids. */
  protected readonly batch: Int32Array;
  protected readonly foreign: Int32Array;
  protected readonly garbage: Int32Array;
  protected readonly views: Int32Array[];
  /** The serial of the last admission (protected so that a test can start it near {@link MAX_SERIAL} and see the wrap). */
  protected lastSerial = 0;

  constructor(options: PoolOptions) {
    this.options = options;
    this.behaviour = resolveOptions(options);
    const { slots, maxLength } = options;
    // Under `sglang` and `lifo` ids run 1 .. pages and page 0 is the padding page.
    const pages = options.pages + this.behaviour.firstPage;
    this.holder = new Int32Array(pages);
    this.data = new Int32Array(pages);
    this.tag = new Int32Array(pages);
    this.position = new Int32Array(pages);
    this.fill = new Int32Array(pages);
    this.tagFill = new Int32Array(pages);
    this.tables = new Int32Array(slots * maxLength).fill(NO_PAGE);
    this.reads = new Int32Array(slots * maxLength);
    this.readPositions = new Int32Array(slots * maxLength);
    this.phases = new Uint8Array(slots);
    this.flags = new Uint8Array(slots);
    this.lengths = new Int32Array(slots);
    this.tokens = new Int32Array(slots);
    this.groups = new Int32Array(slots).fill(-1);
    this.serials = new Int32Array(slots);
    this.readCounts = new Int32Array(slots);
    this.foreign = new Int32Array(slots);
    this.garbage = new Int32Array(slots);
    const groups = options.prefixes ?? 0;
    this.prefixLengths = Int32Array.from({ length: groups }, (_, g) => options.prefixLengths?.[g] ?? 1);
    this.prefixParents = Int32Array.from({ length: groups }, (_, g) => options.prefixParents?.[g] ?? -1);
    // A nested prefix has cache slots (and labels) only for its pages past its parent's, as the spec's labels (spec/nesting.ts).
    const own = (g: number): number => (this.prefixLengths[g] ?? 1) - this.parentLength(g);
    this.prefixBase = new Int32Array(groups);
    for (let g = 1; g < groups; g++) this.prefixBase[g] = (this.prefixBase[g - 1] ?? 0) + own(g - 1);
    this.prefixPages = new Int32Array(groups === 0 ? 0 : (this.prefixBase[groups - 1] ?? 0) + own(groups - 1)).fill(NO_PAGE);
    this.locks = new Int32Array(options.prefixes ?? 0);
    this.freeSet = new FreeSet(pages);
    this.freeList = makeFreeList(this.behaviour.allocator, pages, this.behaviour.doubleFree, options.pageSize ?? 1);
    this.batch = new Int32Array(maxLength);
    this.views = [];
    for (let s = 0; s < slots; s++) this.views.push(this.tables.subarray(s * maxLength, (s + 1) * maxLength));
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options (the validator forks states with it). */
  copyFrom(other: PoolState): void {
    const o = other.options;
    if (
      o.pages !== this.options.pages ||
      o.slots !== this.options.slots ||
      o.maxLength !== this.options.maxLength ||
      (o.prefixes ?? 0) !== (this.options.prefixes ?? 0) ||
      other.prefixPages.length !== this.prefixPages.length
    ) {
      throw new RangeError('PagePool.copyFrom: the pools were built with different sizes');
    }
    for (const key of ['holder', 'data', 'tag', 'fill', 'tagFill', 'position', 'tables', 'reads', 'readPositions', 'lengths', 'tokens', 'groups', 'serials', 'readCounts', 'prefixPages', 'locks'] as const) this[key].set(other[key]);
    this.phases.set(other.phases);
    this.flags.set(other.flags);
    this.foreign.set(other.foreign);
    this.garbage.set(other.garbage);
    this.freeSet.copyFrom(other.freeSet);
    if (this.freeList !== undefined && other.freeList !== undefined) this.freeList.copyFrom(other.freeList);
    this.lastSerial = other.lastSerial;
  }

  /** How many pages are free. */
  get freePages(): number {
    return this.freeList?.count ?? this.freeSet.count;
  }

  /** Copies of page `p` in the free list proper (0 or 1 unless `double-free`). */
  freeCopies(p: number): number {
    if (this.freeList !== undefined) return this.freeList.listed(p);
    return this.freeSet.has(p) ? 1 : 0;
  }

  /** Entries in `sglang`'s release list (0 in the other orders): what a failed attempt's merge would move. */
  get releasedEntries(): number {
    return this.freeList?.releasedTotal ?? 0;
  }

  /** Copies of page `p` in `sglang`'s release list (0 in the other orders). */
  releaseCopies(p: number): number {
    return this.freeList?.released(p) ?? 0;
  }

  /** The free list front first, duplicates included, `sglang`'s release list apart. */
  freeOrder(): number[] {
    if (this.freeList !== undefined) return this.freeList.order();
    const out: number[] = [];
    for (let p = 0; p < this.holder.length; p++) if (this.freeSet.has(p)) out.push(p);
    return out;
  }

  /** Slot `slot`'s phase code (`Ph` of spec/state.ts). */
  phase(slot: number): number {
    return this.phases[this.slotIndex(slot)] ?? Ph.new;
  }

  /** The serial of the request admitted into `slot` (0 before its first admission). */
  serial(slot: number): number {
    return this.serials[this.slotIndex(slot)] ?? 0;
  }

  /** The decode steps the slot's request has taken: one once its decode read, as this pool decodes in one step. */
  steps(slot: number): number {
    return (this.readCounts[this.slotIndex(slot)] ?? 0) > 0 ? 1 : 0;
  }

  /** The labels the slot's decode read, each once (0, a page never written, left out). */
  labelsRead(slot: number): number[] {
    const s = this.slotIndex(slot);
    const base = s * this.options.maxLength;
    const out: number[] = [];
    for (let i = base; i < base + (this.readCounts[s] ?? 0); i++) {
      const label = this.reads[i] ?? 0;
      if (label !== 0 && !out.includes(label)) out.push(label);
    }
    return out;
  }

  /** Pages whose data another request wrote (its own prefix's excepted), read by the slot's decode; 0 if none or not decoded. */
  foreignReads(slot: number): number {
    return this.foreign[this.slotIndex(slot)] ?? 0;
  }

  /** Pages the slot's decode read that hold no other request's data but were not written for it at that position (never written, or misplaced): `Integrity` failures, "would have answered garbage". */
  garbageReads(slot: number): number {
    return this.garbage[this.slotIndex(slot)] ?? 0;
  }

  /** The slot's page-table row (`maxLength` entries, the first `lengths[slot]` in use); a view, not a copy. */
  pageTable(slot: number): Int32Array {
    const view = this.views[this.slotIndex(slot)];
    if (view === undefined) throw new RangeError(`slot ${slot}`);
    return view;
  }

  /** How many of prefix group `g`'s first pages are the pages of the group it extends (0 for a prefix that extends none). */
  protected parentLength(g: number): number {
    const up = this.prefixParents[g] ?? -1;
    return up < 0 ? 0 : (this.prefixLengths[up] ?? 1);
  }

  /** The cache slot `k` of prefix group `g`'s page `j` (its label is `prefixLabelOf(k)`): a nested prefix's first pages are its parent's slots. */
  prefixSlot(g: number, j: number): number {
    let h = g;
    while (j < this.parentLength(h)) h = this.prefixParents[h] ?? -1;
    return (this.prefixBase[h] ?? 0) + j - this.parentLength(h);
  }

  /** Page `p` is taken by `label`: a page the cache held (only a double free hands one out) leaves the cache, as in the spec, where a page has one holder. */
  protected takeHolder(p: number, label: number): void {
    const h = this.holder[p] ?? 0;
    if (h < 0) this.prefixPages[-h - 1] = NO_PAGE;
    this.holder[p] = label;
  }

  /** Whether the cache holds every page of prefix group `g`'s entry. */
  protected entryCached(g: number): boolean {
    for (let j = 0; j < (this.prefixLengths[g] ?? 1); j++) if ((this.prefixPages[this.prefixSlot(g, j)] ?? NO_PAGE) === NO_PAGE) return false;
    return true;
  }

  /** Whether the cache holds no page of prefix group `g`'s entry. */
  protected entryEmpty(g: number): boolean {
    for (let j = 0; j < (this.prefixLengths[g] ?? 1); j++) if ((this.prefixPages[this.prefixSlot(g, j)] ?? NO_PAGE) !== NO_PAGE) return false;
    return true;
  }

  /** Whether the slot's prompt is too long for P: the length rule, in tokens, against P's limit. */
  overLong(s: number): boolean {
    return isOverLongPrompt(this.tokens[s] ?? 0, this.limitTokens(), this.options.lengthRule);
  }

  /** P's limit in tokens. */
  protected limitTokens(): number {
    return this.options.prefillTokens ?? limitInTokens(this.options.prefillLimit, this.options.pageSize);
  }

  /** Whether the slot's first pages are its prefix's shared pages rather than its own. */
  protected sharesFirstPage(s: number): boolean {
    return ((this.flags[s] ?? 0) & (HIT | INSERTED)) !== 0;
  }

  /** Whether page `p` is on the free list (or `sglang`'s release list), once or more: the plain sorted set first, the hot path of a real-scale log (conformance/). */
  isFree(p: number): boolean {
    const list = this.freeList;
    return list === undefined ? this.freeSet.has(p) : list.listed(p) + list.released(p) > 0;
  }

  /** How many leading table entries of slot `slot` are shared prefix pages (a radix tree's nodes). */
  sharedCount(slot: number): number {
    return this.sharedPages(this.slotIndex(slot));
  }

  /** How many leading table entries of the slot are shared prefix pages: its prefix's length after a hit or an insert, else 0. */
  protected sharedPages(s: number): number {
    return this.sharesFirstPage(s) ? (this.prefixLengths[this.groups[s] ?? 0] ?? 1) : 0;
  }

  /** Checks a slot index. */
  protected slotIndex(slot: number): number {
    if (!(slot >= 0 && slot < this.phases.length && Number.isInteger(slot))) throw new RangeError(`slot ${slot} is not in 0..${this.phases.length - 1}`);
    return slot;
  }
}
