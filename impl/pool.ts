/**
 * D's KV page pool, optimized: the spec's state in TypedArrays, sized once, with the
 * actions of the protocol as methods of the same names. Each action returns whether it
 * was accepted; `false` means the spec would not enable it, and then nothing changed.
 *
 * Per page: who holds it, whose data it holds (the last write; never cleared) and, under
 * `owner-check`, the owner tag (stamped by every write, cleared when `allocate` hands the
 * page out). Per slot: the request admitted there, its phase (the spec's codes), flags,
 * page table (a row of a flat arena, like SGLang's `req_to_token`) and what its decode
 * read. Labels are described in `options.ts`.
 *
 * Nothing allocates after construction; misuse (a slot or length out of range) is a
 * programming error and throws `RangeError`.
 */
import { isOverLongPrompt, limitInTokens } from '../spec/behaviour.ts';
import { releaseBatches, releaseCalls } from '../spec/release.ts';
import { EVICTED_FOR, HIT, INSERTED, Ph, READ_UNHELD } from '../spec/state.ts';
import { FreeSet } from './free-set.ts';
import { makeFreeList, type FreeList } from './allocator-order.ts';
import { MAX_SERIAL, NO_PAGE, STALE_DATA, groupOfLabel, prefixLabelOf, resolveOptions, type Behaviour, type PoolOptions } from './options.ts';

/** Phases whose request is done with its slot: a new request may be admitted there. */
function finished(phase: number): boolean {
  return phase === Ph.freed || phase === Ph.released || phase === Ph.landed;
}

/** D's page pool: the spec's actions on TypedArrays. */
export class PagePool {
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
  /** Per prefix page `k` (group `g`'s page `j` at `prefixBase[g] + j`): the page the prefix cache holds for it, or `NO_PAGE`. */
  readonly prefixPages: Int32Array;
  /** Per prefix group: the index of its first page in {@link prefixPages} (the pages of the groups before it). */
  readonly prefixBase: Int32Array;
  /** Per prefix group: its length in pages. */
  readonly prefixLengths: Int32Array;
  /** Per prefix group, under eviction: how many live requests lock its cached entry (`RadixCache` lock_ref). */
  readonly locks: Int32Array;
  /** The free list of the `sorted` order (a set). */
  protected readonly freeSet: FreeSet;
  /** The free list of the other orders, and of `sorted` under `double-free` (impl/allocator-order.ts); undefined otherwise. */
  protected readonly freeList: FreeList | undefined;
  /** Scratch for one release's batch of page ids. */
  private readonly batch: Int32Array;
  private readonly foreign: Int32Array;
  private readonly garbage: Int32Array;
  private readonly views: Int32Array[];
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
    this.prefixBase = new Int32Array(groups);
    for (let g = 1; g < groups; g++) this.prefixBase[g] = (this.prefixBase[g - 1] ?? 0) + (this.prefixLengths[g - 1] ?? 1);
    this.prefixPages = new Int32Array(groups === 0 ? 0 : (this.prefixBase[groups - 1] ?? 0) + (this.prefixLengths[groups - 1] ?? 1)).fill(NO_PAGE);
    this.locks = new Int32Array(options.prefixes ?? 0);
    this.freeSet = new FreeSet(pages);
    this.freeList = makeFreeList(this.behaviour.allocator, pages, this.behaviour.doubleFree, options.pageSize ?? 1);
    this.batch = new Int32Array(maxLength);
    this.views = [];
    for (let s = 0; s < slots; s++) this.views.push(this.tables.subarray(s * maxLength, (s + 1) * maxLength));
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options (the validator forks states with it). */
  copyFrom(other: PagePool): void {
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

  /**
   * D reserves pages for the whole prompt: the lowest free ids (or the order's), after the
   * cached prefix pages on a prefix-cache hit (the whole entry, page `j` at position `j`). The request gets a fresh serial. `tokens`,
   * the prompt's length in tokens (`length * pageSize` when left out), is what the length
   * rule compares with P's limit.
   */
  allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    const s = this.slotIndex(slot);
    const { maxLength } = this.options;
    if (!Number.isInteger(length) || length < 1 || length > maxLength) throw new RangeError(`allocate: length ${length} is not in 1..${maxLength}`);
    const pageSize = this.options.pageSize ?? 1;
    const promptTokens = tokens ?? length * pageSize;
    if (!Number.isInteger(promptTokens) || promptTokens <= (length - 1) * pageSize || promptTokens > length * pageSize) {
      throw new RangeError(`allocate: ${promptTokens} tokens do not need exactly ${length} pages of ${pageSize}`);
    }
    const g = prefix ?? -1;
    if (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix < this.prefixLengths.length)) {
      throw new RangeError(`allocate: prefix ${prefix} is not in 0..${this.prefixLengths.length - 1}`);
    }
    // A request with a prefix needs a page of its own besides (else a stub would write past its table).
    const k = g >= 0 ? (this.prefixLengths[g] ?? 1) : 0;
    if (prefix !== undefined && length <= k) throw new RangeError(`allocate: a request with a prefix of ${k} pages needs at least ${k + 1} pages, got ${length}`);
    const phase = this.phases[s] ?? Ph.new;
    if (phase !== Ph.new && !(this.behaviour.reuseSlots && finished(phase))) return false;
    const shared = g >= 0 && this.entryCached(g) ? k : 0;
    // A failed attempt still merges `sglang`'s release list (spec/alloc-fail.ts), as `alloc_extend` does before it returns None.
    if (this.freePages < length - shared) {
      this.freeList?.refuse(length - shared);
      return false;
    }

    const base = s * maxLength;
    for (let j = 0; j < shared; j++) this.tables[base + j] = this.prefixPages[(this.prefixBase[g] ?? 0) + j] ?? NO_PAGE;
    // `alloc_extend`'s shortage test counts the tokens it allocates: the prompt's, less the cached prefix's whole pages.
    this.takePages(base + shared, length - shared, promptTokens - shared * pageSize);
    const serial = this.lastSerial === MAX_SERIAL ? 1 : this.lastSerial + 1;
    this.lastSerial = serial;
    const clearTags = this.behaviour.ownerCheck;
    for (let i = base + shared; i < base + length; i++) {
      const p = this.tables[i] ?? 0;
      // Only a double free can hand out a page the prefix cache holds: as in the spec, the last taker holds it and the entry is gone.
      const h = this.holder[p] ?? 0;
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      this.holder[p] = serial;
      if (clearTags) this.clearTag(p);
    }
    // The hit locks the cached page while the request is live; with lock-underflow it locks another node.
    if (shared > 0 && this.behaviour.eviction && !this.behaviour.lockUnderflow) this.locks[g] = (this.locks[g] ?? 0) + 1;
    // An eviction made for this first admission stays on record.
    const evictedFor = phase === Ph.new ? (this.flags[s] ?? 0) & EVICTED_FOR : 0;
    this.phases[s] = Ph.allocated;
    this.flags[s] = (shared > 0 ? HIT : 0) | evictedFor;
    this.lengths[s] = length;
    this.tokens[s] = promptTokens;
    this.groups[s] = g;
    this.serials[s] = serial;
    this.readCounts[s] = 0;
    this.foreign[s] = 0;
    this.garbage[s] = 0;
    return true;
  }

  /**
   * P writes the prompt into every page of the table (its prefix's pages at the prefix's
   * positions); a timed-out request's write lands late. Each page's slots past the prompt's
   * end hold P's stale data. With `auto-truncate` an over-long prompt is cut to the limit first.
   */
  prefill(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (phase !== Ph.allocated && phase !== Ph.timedOut) return false;
    const over = this.overLong(s);
    if (over && !this.behaviour.autoTruncate) return false;
    const pageSize = this.options.pageSize ?? 1;
    const tokens = over ? Math.min(this.tokens[s] ?? 0, this.limitTokens()) : (this.tokens[s] ?? 0);
    const length = Math.ceil(tokens / pageSize);
    const slots = (i: number): number => Math.min(pageSize, tokens - i * pageSize);
    if (phase === Ph.timedOut && this.behaviour.revokeWriter) {
      // D revoked P's access when it timed the request out: the late write lands nowhere.
      this.phases[s] = Ph.landed;
      return true;
    }
    const base = s * this.options.maxLength;
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    let i = this.sharedPages(s);
    if (i === 0 && g >= 0) {
      // The prompt's first pages are its prefix: the same content for every request with that prefix, page j at position j.
      for (; i < (this.prefixLengths[g] ?? 1) && i < length; i++) this.write(this.tables[base + i] ?? 0, prefixLabelOf((this.prefixBase[g] ?? 0) + i), i, slots(i));
    }
    for (; i < length; i++) this.write(this.tables[base + i] ?? 0, serial, i, slots(i));
    this.phases[s] = phase === Ph.timedOut ? Ph.landed : Ph.written;
    return true;
  }

  /** P meets an over-long prompt: with the silent stub, a one-page dummy reported as success; otherwise a refusal. */
  stub(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (phase !== Ph.allocated && phase !== Ph.timedOut) return false;
    if (!this.overLong(s) || this.behaviour.autoTruncate) return false;
    if (!this.behaviour.silentStub) {
      this.phases[s] = phase === Ph.timedOut ? Ph.freed : Ph.refused;
      return true;
    }
    if (phase === Ph.timedOut && this.behaviour.revokeWriter) {
      this.phases[s] = Ph.landed;
      return true;
    }
    const at = this.sharedPages(s);
    // The stub is a one-token dummy.
    this.write(this.tables[s * this.options.maxLength + at] ?? 0, this.serials[s] ?? 0, at, 1);
    this.phases[s] = phase === Ph.timedOut ? Ph.landed : Ph.written;
    return true;
  }

  /** P reports Success; D commits the request. */
  handoff(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.phases[s] !== Ph.written) return false;
    this.phases[s] = Ph.handedOff;
    return true;
  }

  /** D reads every page of the table; under `owner-check`, a foreign tag on any page fails the request and nothing is read. */
  decode(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.phases[s] !== Ph.handedOff) return false;
    if (this.behaviour.ownerCheck && !this.ownerCheckPasses(s)) {
      this.phases[s] = Ph.failed;
      return true;
    }
    this.read(s);
    this.phases[s] = Ph.decoded;
    return true;
  }

  /** D releases the request's pages, contents untouched; with `stale-free`, also a second, late release of an old table. */
  free(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    const normal = phase === Ph.decoded || phase === Ph.refused || phase === Ph.failed;
    const again = phase === Ph.freed || phase === Ph.landed;
    const stale = again && (this.behaviour.staleFree || (this.behaviour.doubleFree && this.stillFree(s)));
    if (!normal && !stale) return false;
    this.release(s);
    if (normal) this.unlock(s);
    this.phases[s] = normal ? Ph.freed : Ph.released;
    return true;
  }

  /** With `early-free`: D gives up on an allocated request and frees its pages while P's write is in flight. */
  timeout(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (!this.behaviour.earlyFree || this.phases[s] !== Ph.allocated) return false;
    this.release(s);
    this.unlock(s);
    this.phases[s] = Ph.timedOut;
    return true;
  }

  /** D inserts the request's prefix pages into the prefix cache; with `prefix-poison`, also a refused or failed request's. */
  insert(slot: number): boolean {
    const s = this.slotIndex(slot);
    const g = this.groups[s] ?? -1;
    const phase = this.phases[s];
    if (g < 0 || phase === Ph.new || !this.entryEmpty(g) || this.sharesFirstPage(s)) return false;
    const base = s * this.options.maxLength;
    const k = this.prefixLengths[g] ?? 1;
    for (let j = 0; j < k; j++) if (this.holder[this.tables[base + j] ?? NO_PAGE] !== this.serials[s]) return false;
    const poison = this.behaviour.prefixPoison && (phase === Ph.refused || phase === Ph.failed);
    if (phase !== Ph.decoded && !poison) return false;
    for (let j = 0; j < k; j++) {
      const p = this.tables[base + j] ?? 0;
      const slotOfPage = (this.prefixBase[g] ?? 0) + j;
      // A double free can put one page at two prefix positions: as in the spec, a page has one holder, the last slot.
      const h = this.holder[p] ?? 0;
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      this.holder[p] = prefixLabelOf(slotOfPage);
      this.prefixPages[slotOfPage] = p;
    }
    this.flags[s] = (this.flags[s] ?? 0) | INSERTED;
    // Under eviction the inserting request locks the page until its own release.
    if (this.behaviour.eviction) this.locks[g] = (this.locks[g] ?? 0) + 1;
    return true;
  }

  /**
   * Under eviction: an allocation of `length` pages (prefix `prefix`) for `slot` finds too
   * few free pages, so the prefix cache frees the unlocked entry of another prefix that
   * holds the lowest cached page, all its pages in one release (`RadixCache.evict` frees a
   * whole leaf node); their contents stay.
   */
  evict(slot: number, length: number, prefix?: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s] ?? Ph.new;
    if (!this.behaviour.eviction || (phase !== Ph.new && !(this.behaviour.reuseSlots && finished(phase)))) return false;
    const g = prefix ?? -1;
    const hit = g >= 0 && this.entryCached(g) ? (this.prefixLengths[g] ?? 1) : 0;
    if (this.freePages >= length - hit) return false;
    let victim = NO_PAGE;
    let group = -1;
    for (let h = 0; h < this.prefixLengths.length; h++) {
      if (h === g || (this.locks[h] ?? 0) !== 0) continue;
      for (let j = 0; j < (this.prefixLengths[h] ?? 1); j++) {
        const p = this.prefixPages[(this.prefixBase[h] ?? 0) + j] ?? NO_PAGE;
        if (p !== NO_PAGE && (victim === NO_PAGE || p < victim)) [victim, group] = [p, h];
      }
    }
    if (victim === NO_PAGE) return false;
    let n = 0;
    for (let j = 0; j < (this.prefixLengths[group] ?? 1); j++) {
      const at = (this.prefixBase[group] ?? 0) + j;
      const p = this.prefixPages[at] ?? NO_PAGE;
      if (p === NO_PAGE) continue;
      this.prefixPages[at] = NO_PAGE;
      this.holder[p] = 0;
      this.batch[n++] = p;
    }
    this.putBack(n);
    if (phase === Ph.new) this.flags[s] = (this.flags[s] ?? 0) | EVICTED_FOR;
    return true;
  }

  /** Takes `n` free pages into the table arena from `at`: the lowest ids, or the order's front (`tokens` and `decode` choose `sglang`'s shortage test, impl/allocator-order.ts). */
  protected takePages(at: number, n: number, tokens?: number, decode?: boolean): void {
    if (this.freeList !== undefined) this.freeList.take(n, this.tables, at, tokens, decode);
    else this.freeSet.takeLowest(n, this.tables, at);
  }

  /** Clears page `p`'s owner tag as `allocate` hands it out: cheap, unlike clearing its KV data. */
  protected clearTag(p: number): void {
    this.tag[p] = 0;
    this.tagFill[p] = 0;
  }

  /** A write lands in page `p`, for table position `pos`, filling its first `slots` slots: its data and, under `owner-check`, its tag become `label`. */
  protected write(p: number, label: number, pos: number, slots: number): void {
    this.data[p] = label;
    this.position[p] = pos;
    this.fill[p] = slots;
    if (this.behaviour.ownerCheck) {
      this.tag[p] = label;
      this.tagFill[p] = slots;
    }
  }

  /** How many slots of the page at table position `i` the slot's decode reads: up to the prompt's length. */
  protected slotsRead(s: number, i: number): number {
    const pageSize = this.options.pageSize ?? 1;
    return Math.min(pageSize, (this.tokens[s] ?? 0) - i * pageSize);
  }

  /** The owner check: every page's tag is the reader's serial, or at prefix position `j` its prefix's page `j`'s label. */
  protected ownerCheckPasses(s: number): boolean {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const base = s * this.options.maxLength;
    const end = base + (this.lengths[s] ?? 0);
    const tables = this.tables;
    const tag = this.tag;
    // A prefix page is valid only at its own position: page j of the prefix at position j.
    const k = g >= 0 ? (this.prefixLengths[g] ?? 1) : 0;
    const first = g >= 0 ? (this.prefixBase[g] ?? 0) : 0;
    for (let j = 0; j < k; j++) {
      const t = tag[tables[base + j] ?? 0];
      if (t !== serial && t !== prefixLabelOf(first + j)) return false;
    }
    for (let i = base + k; i < end; i++) if (tag[tables[i] ?? 0] !== serial) return false;
    // tag-counts-tokens: every page's tag counts at least the slots read there.
    if (this.behaviour.tagCountsTokens) for (let i = base; i < end; i++) if ((this.tagFill[tables[i] ?? 0] ?? 0) < this.slotsRead(s, i - base)) return false;
    return true;
  }

  /** Decode's reads: records each page's data label, counts foreign ones, and notes a read of a page the slot does not hold. */
  protected read(s: number): void {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const k = g >= 0 ? (this.prefixLengths[g] ?? 1) : 0;
    const first = g >= 0 ? (this.prefixBase[g] ?? 0) : 0;
    const base = s * this.options.maxLength;
    const length = this.lengths[s] ?? 0;
    const shared = this.sharedPages(s);
    const { tables, data, holder, reads } = this;
    let foreign = 0;
    let garbage = 0;
    let unheld = false;
    for (let i = 0; i < length; i++) {
      const p = tables[base + i] ?? 0;
      const written = data[p] ?? 0;
      // A prefix page's data is the reader's own only at that page's position.
      const own = i < k ? prefixLabelOf(first + i) : serial;
      const ownData = written === serial || written === own;
      // A read past the page's fill meets stale P-side data (unless the page is foreign anyway).
      const d = written !== 0 && ownData && this.slotsRead(s, i) > (this.fill[p] ?? 0) ? STALE_DATA : written;
      const pos = d === STALE_DATA ? i : (this.position[p] ?? 0);
      reads[base + i] = d;
      this.readPositions[base + i] = pos;
      const mine = d === serial || d === own;
      if (d !== 0 && !mine) foreign++;
      else if (d === 0 || pos !== i) garbage++;
      const h = holder[p];
      // The shared prefix pages are held by the cache entry (or were inserted by this request).
      if (h !== serial && !(i < shared && h === own)) unheld = true;
    }
    this.foreign[s] = foreign;
    this.garbage[s] = garbage;
    this.readCounts[s] = length;
    if (unheld) this.flags[s] = (this.flags[s] ?? 0) | READ_UNHELD;
  }

  /** Puts the slot's table pages back on the free list by id, except the shared prefix pages, whoever holds them now. */
  protected release(s: number): void {
    const base = s * this.options.maxLength;
    const shared = this.sharedPages(s);
    const length = this.lengths[s] ?? 0;
    if (this.behaviour.allocator !== 'lifo' || this.freeList === undefined) {
      this.releaseEntries(base + shared, base + length);
      return;
    }
    // Under lifo the order is SGLang's group (spec/release.ts): cache_finished_req's frees as one batch, then the segment in front.
    const g = this.groups[s] ?? -1;
    const calls = releaseCalls({ shared, prefix: g >= 0 ? (this.prefixLengths[g] ?? 1) : 0, pages: length, tokens: this.tokens[s] ?? 0, pageSize: this.options.pageSize ?? 1, overlap: false });
    const own = this.serials[s] ?? 0;
    // A page at two positions of the table (after a double free) goes back once per release, as in the spec.
    const freed = new Set<number>();
    for (const batch of releaseBatches(calls, true)) {
      this.releaseBatch(this.freeList, batch.map((k) => [base + calls[k]!.from, base + calls[k]!.to] as const), own, freed);
    }
  }

  /**
   * Puts the pages of table entries `from .. to-1` back on the free list by id, whoever
   * holds them now; under `release-checks-holder`, only those the slot's request holds.
   */
  protected releaseEntries(from: number, to: number): void {
    const slot = Math.floor(from / this.options.maxLength);
    const own = this.serials[slot] ?? 0;
    if (this.freeList !== undefined) {
      this.releaseBatch(this.freeList, [[from, to]], own);
      return;
    }
    for (let i = from; i < to; i++) {
      const p = this.tables[i] ?? 0;
      const h = this.holder[p] ?? 0;
      if (h === 0) continue;
      if (this.behaviour.releaseChecksHolder && h !== own) continue;
      // A stale release can hit a page the prefix cache holds now: the entry is gone.
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      this.holder[p] = 0;
      this.freeSet.add(p);
    }
  }

  /**
   * One batch of a release into an ordered free list (the table entries of `runs`), as one
   * call of SGLang's `free`: the pages distinct and ascending (`torch.unique`); a page already listed is left out unless the
   * free list is a multiset (`double-free`), where it is then listed twice.
   */
  private releaseBatch(list: FreeList, runs: readonly (readonly [number, number])[], own: number, freed?: Set<number>): void {
    const batch = this.batch;
    let n = 0;
    for (const [from, to] of runs) for (let i = from; i < to; i++) {
      const p = this.tables[i] ?? NO_PAGE;
      if (p < this.behaviour.firstPage || freed?.has(p) === true) continue;
      freed?.add(p);
      const h = this.holder[p] ?? 0;
      if (this.behaviour.releaseChecksHolder && h !== own) continue;
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      this.holder[p] = 0;
      batch[n++] = p;
    }
    this.putBatch(list, n);
  }

  /** Puts `batch[0 .. n)` back, as one call of `free`: sorted, deduplicated, already listed pages left out unless `double-free`. */
  private putBatch(list: FreeList, n: number): void {
    const batch = this.batch;
    batch.subarray(0, n).sort();
    let kept = 0;
    for (let i = 0; i < n; i++) {
      const p = batch[i] ?? 0;
      if (i > 0 && p === batch[i - 1]) continue;
      if (!this.behaviour.doubleFree && list.listed(p) + list.released(p) > 0) continue;
      batch[kept++] = p;
    }
    list.put(batch, kept);
  }

  /** `double-free`'s guard: every page of the slot's old table (but the shared prefix pages) is still free, nobody took it since. */
  private stillFree(s: number): boolean {
    const base = s * this.options.maxLength;
    for (let i = base + this.sharedPages(s); i < base + (this.lengths[s] ?? 0); i++) {
      const p = this.tables[i] ?? 0;
      if (this.holder[p] !== 0 || this.freeCopies(p) + this.releaseCopies(p) === 0) return false;
    }
    return true;
  }

  /** A finished request that hit the cache (or inserted into it) unlocks its prefix's entry; the count never goes below 0. */
  protected unlock(s: number): void {
    const g = this.groups[s] ?? -1;
    if (!this.behaviour.eviction || g < 0 || ((this.flags[s] ?? 0) & (HIT | INSERTED)) === 0) return;
    if ((this.locks[g] ?? 0) > 0) this.locks[g] = (this.locks[g] ?? 0) - 1;
  }

  /** The pages `batch[0 .. n)` back on the free list, as one release (each left out if already listed, unless `double-free`). */
  private putBack(n: number): void {
    const list = this.freeList;
    if (list === undefined) {
      for (let i = 0; i < n; i++) this.freeSet.add(this.batch[i] ?? 0);
      return;
    }
    this.putBatch(list, n);
  }

  /** Whether the cache holds every page of prefix group `g`'s entry. */
  private entryCached(g: number): boolean {
    for (let j = 0; j < (this.prefixLengths[g] ?? 1); j++) if ((this.prefixPages[(this.prefixBase[g] ?? 0) + j] ?? NO_PAGE) === NO_PAGE) return false;
    return true;
  }

  /** Whether the cache holds no page of prefix group `g`'s entry. */
  private entryEmpty(g: number): boolean {
    for (let j = 0; j < (this.prefixLengths[g] ?? 1); j++) if ((this.prefixPages[(this.prefixBase[g] ?? 0) + j] ?? NO_PAGE) !== NO_PAGE) return false;
    return true;
  }

  /** Whether the slot's prompt is too long for P: the length rule, in tokens, against P's limit. */
  overLong(s: number): boolean {
    return isOverLongPrompt(this.tokens[s] ?? 0, this.limitTokens(), this.options.lengthRule);
  }

  /** P's limit in tokens. */
  private limitTokens(): number {
    return this.options.prefillTokens ?? limitInTokens(this.options.prefillLimit, this.options.pageSize);
  }

  /** Whether the slot's first pages are its prefix's shared pages rather than its own. */
  protected sharesFirstPage(s: number): boolean {
    return ((this.flags[s] ?? 0) & (HIT | INSERTED)) !== 0;
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
