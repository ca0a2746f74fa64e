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
import { HIT, INSERTED, Ph, READ_UNHELD } from '../spec/state.ts';
import { FreeSet } from './free-set.ts';
import { MAX_SERIAL, NO_PAGE, groupOfLabel, prefixLabelOf, resolveOptions, type Behaviour, type PoolOptions } from './options.ts';

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
  /** Per slot: the admitted request's prefix group, or -1. */
  readonly groups: Int32Array;
  /** Per slot: the admitted request's serial (0 before its first admission). */
  readonly serials: Int32Array;
  /** Per slot: the number of entries of `reads` filled by a successful decode. */
  readonly readCounts: Int32Array;
  /** Per prefix group: the page the prefix cache holds for it, or `NO_PAGE`. */
  readonly prefixPages: Int32Array;
  /** The free list. */
  protected readonly freeSet: FreeSet;
  private readonly foreign: Int32Array;
  private readonly garbage: Int32Array;
  private readonly views: Int32Array[];
  private lastSerial = 0;

  constructor(options: PoolOptions) {
    this.options = options;
    this.behaviour = resolveOptions(options);
    const { pages, slots, maxLength } = options;
    this.holder = new Int32Array(pages);
    this.data = new Int32Array(pages);
    this.tag = new Int32Array(pages);
    this.position = new Int32Array(pages);
    this.tables = new Int32Array(slots * maxLength).fill(NO_PAGE);
    this.reads = new Int32Array(slots * maxLength);
    this.readPositions = new Int32Array(slots * maxLength);
    this.phases = new Uint8Array(slots);
    this.flags = new Uint8Array(slots);
    this.lengths = new Int32Array(slots);
    this.groups = new Int32Array(slots).fill(-1);
    this.serials = new Int32Array(slots);
    this.readCounts = new Int32Array(slots);
    this.foreign = new Int32Array(slots);
    this.garbage = new Int32Array(slots);
    this.prefixPages = new Int32Array(options.prefixes ?? 0).fill(NO_PAGE);
    this.freeSet = new FreeSet(pages);
    this.views = [];
    for (let s = 0; s < slots; s++) this.views.push(this.tables.subarray(s * maxLength, (s + 1) * maxLength));
  }

  /** How many pages are free. */
  get freePages(): number {
    return this.freeSet.count;
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
   * D reserves pages for the whole prompt: the lowest free ids, after the cached prefix
   * page on a prefix-cache hit. The request gets a fresh serial.
   */
  allocate(slot: number, length: number, prefix?: number): boolean {
    const s = this.slotIndex(slot);
    const { maxLength } = this.options;
    if (!Number.isInteger(length) || length < 1 || length > maxLength) throw new RangeError(`allocate: length ${length} is not in 1..${maxLength}`);
    const g = prefix ?? -1;
    if (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix < this.prefixPages.length)) {
      throw new RangeError(`allocate: prefix ${prefix} is not in 0..${this.prefixPages.length - 1}`);
    }
    const phase = this.phases[s] ?? Ph.new;
    if (phase !== Ph.new && !(this.behaviour.reuseSlots && finished(phase))) return false;
    const hit = g >= 0 ? (this.prefixPages[g] ?? NO_PAGE) : NO_PAGE;
    const shared = hit === NO_PAGE ? 0 : 1;
    if (this.freeSet.count < length - shared) return false;

    const base = s * maxLength;
    if (shared === 1) this.tables[base] = hit;
    this.takePages(base + shared, length - shared);
    const serial = this.lastSerial === MAX_SERIAL ? 1 : this.lastSerial + 1;
    this.lastSerial = serial;
    const clearTags = this.behaviour.ownerCheck;
    for (let i = base + shared; i < base + length; i++) {
      const p = this.tables[i] ?? 0;
      this.holder[p] = serial;
      if (clearTags) this.clearTag(p);
    }
    this.phases[s] = Ph.allocated;
    this.flags[s] = shared === 1 ? HIT : 0;
    this.lengths[s] = length;
    this.groups[s] = g;
    this.serials[s] = serial;
    this.readCounts[s] = 0;
    this.foreign[s] = 0;
    this.garbage[s] = 0;
    return true;
  }

  /** P writes the prompt into every page of the table (its prefix's data in the first one); a timed-out request's write lands late. */
  prefill(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (phase !== Ph.allocated && phase !== Ph.timedOut) return false;
    const length = this.lengths[s] ?? 0;
    if (length > this.options.prefillLimit) return false;
    if (phase === Ph.timedOut && this.behaviour.revokeWriter) {
      // D revoked P's access when it timed the request out: the late write lands nowhere.
      this.phases[s] = Ph.landed;
      return true;
    }
    const base = s * this.options.maxLength;
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    let i = this.sharesFirstPage(s) ? 1 : 0;
    if (i === 0 && g >= 0) {
      // The prompt's first page is its prefix: the same content for every request with that prefix.
      this.write(this.tables[base] ?? 0, prefixLabelOf(g), 0);
      i = 1;
    }
    for (; i < length; i++) this.write(this.tables[base + i] ?? 0, serial, i);
    this.phases[s] = phase === Ph.timedOut ? Ph.landed : Ph.written;
    return true;
  }

  /** P meets an over-long prompt: with the silent stub, a one-page dummy reported as success; otherwise a refusal. */
  stub(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    if (phase !== Ph.allocated && phase !== Ph.timedOut) return false;
    if ((this.lengths[s] ?? 0) <= this.options.prefillLimit) return false;
    if (!this.behaviour.silentStub) {
      this.phases[s] = phase === Ph.timedOut ? Ph.freed : Ph.refused;
      return true;
    }
    if (phase === Ph.timedOut && this.behaviour.revokeWriter) {
      this.phases[s] = Ph.landed;
      return true;
    }
    const at = this.sharesFirstPage(s) ? 1 : 0;
    this.write(this.tables[s * this.options.maxLength + at] ?? 0, this.serials[s] ?? 0, at);
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
    const stale = this.behaviour.staleFree && (phase === Ph.freed || phase === Ph.landed);
    if (!normal && !stale) return false;
    this.release(s);
    this.phases[s] = normal ? Ph.freed : Ph.released;
    return true;
  }

  /** With `early-free`: D gives up on an allocated request and frees its pages while P's write is in flight. */
  timeout(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (!this.behaviour.earlyFree || this.phases[s] !== Ph.allocated) return false;
    this.release(s);
    this.phases[s] = Ph.timedOut;
    return true;
  }

  /** D inserts the request's first page into the prefix cache; with `prefix-poison`, also a refused or failed request's. */
  insert(slot: number): boolean {
    const s = this.slotIndex(slot);
    const g = this.groups[s] ?? -1;
    const phase = this.phases[s];
    if (g < 0 || phase === Ph.new || this.prefixPages[g] !== NO_PAGE || this.sharesFirstPage(s)) return false;
    const first = this.tables[s * this.options.maxLength] ?? NO_PAGE;
    if (this.holder[first] !== this.serials[s]) return false;
    const poison = this.behaviour.prefixPoison && (phase === Ph.refused || phase === Ph.failed);
    if (phase !== Ph.decoded && !poison) return false;
    this.holder[first] = prefixLabelOf(g);
    this.prefixPages[g] = first;
    this.flags[s] = (this.flags[s] ?? 0) | INSERTED;
    return true;
  }

  /** Takes the `n` lowest free pages into the table arena from `at`. */
  protected takePages(at: number, n: number): void {
    this.freeSet.takeLowest(n, this.tables, at);
  }

  /** Clears page `p`'s owner tag as `allocate` hands it out: cheap, unlike clearing its KV data. */
  protected clearTag(p: number): void {
    this.tag[p] = 0;
  }

  /** A write lands in page `p`, for table position `pos`: its data and, under `owner-check`, its tag become `label`. */
  protected write(p: number, label: number, pos: number): void {
    this.data[p] = label;
    this.position[p] = pos;
    if (this.behaviour.ownerCheck) this.tag[p] = label;
  }

  /** The owner check: every page's tag is the reader's serial, or at position 0 its prefix's label. */
  protected ownerCheckPasses(s: number): boolean {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const base = s * this.options.maxLength;
    const end = base + (this.lengths[s] ?? 0);
    const tables = this.tables;
    const tag = this.tag;
    // A prefix page is valid only at the prefix's own position, the first.
    const first = tag[tables[base] ?? 0];
    if (first !== serial && !(g >= 0 && first === prefixLabelOf(g))) return false;
    for (let i = base + 1; i < end; i++) if (tag[tables[i] ?? 0] !== serial) return false;
    return true;
  }

  /** Decode's reads: records each page's data label, counts foreign ones, and notes a read of a page the slot does not hold. */
  protected read(s: number): void {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const own = g >= 0 ? prefixLabelOf(g) : serial;
    const base = s * this.options.maxLength;
    const length = this.lengths[s] ?? 0;
    const shared = this.sharesFirstPage(s);
    const { tables, data, holder, reads } = this;
    let foreign = 0;
    let garbage = 0;
    let unheld = false;
    for (let i = 0; i < length; i++) {
      const p = tables[base + i] ?? 0;
      const d = data[p] ?? 0;
      const pos = this.position[p] ?? 0;
      reads[base + i] = d;
      this.readPositions[base + i] = pos;
      // A prefix's data is the reader's own only at the prefix's position, the first.
      const mine = d === serial || (i === 0 && g >= 0 && d === own);
      if (d !== 0 && !mine) foreign++;
      else if (d === 0 || pos !== i) garbage++;
      const h = holder[p];
      // The shared prefix page is held by the cache entry (or was inserted by this request).
      if (h !== serial && !(i === 0 && shared && h === own)) unheld = true;
    }
    this.foreign[s] = foreign;
    this.garbage[s] = garbage;
    this.readCounts[s] = length;
    if (unheld) this.flags[s] = (this.flags[s] ?? 0) | READ_UNHELD;
  }

  /** Puts the slot's table pages back on the free list by id, except a shared prefix page, whoever holds them now. */
  protected release(s: number): void {
    const base = s * this.options.maxLength;
    this.releaseEntries(base + (this.sharesFirstPage(s) ? 1 : 0), base + (this.lengths[s] ?? 0));
  }

  /**
   * Puts the pages of table entries `from .. to-1` back on the free list by id, whoever
   * holds them now; under `release-checks-holder`, only those the slot's request holds.
   */
  protected releaseEntries(from: number, to: number): void {
    const slot = Math.floor(from / this.options.maxLength);
    const own = this.serials[slot] ?? 0;
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

  /** Whether the slot's first page is the shared prefix page rather than its own. */
  protected sharesFirstPage(s: number): boolean {
    return ((this.flags[s] ?? 0) & (HIT | INSERTED)) !== 0;
  }

  /** Checks a slot index. */
  protected slotIndex(slot: number): number {
    if (!(slot >= 0 && slot < this.phases.length && Number.isInteger(slot))) throw new RangeError(`slot ${slot} is not in 0..${this.phases.length - 1}`);
    return slot;
  }
}
