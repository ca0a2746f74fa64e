/**
 * A second reference model of D's page pool, written from the documentation of the
 * actions (docs/SPEC.md, the `@guard` and `@effect` of each) rather than from the spec's
 * code, for the sizes the spec's byte encoding cannot hold: thousands of pages, tables of
 * any length, any number of admissions, request slots that are reused.
 *
 * It is deliberately unlike both the spec and the pool: plain objects, one record per page
 * and per admission, the free list found by looking at who holds each page, labels that
 * are admission numbers. It is slow (`allocate` scans every page) and meant to be obvious.
 * `scale/to-spec.ts` maps it onto the spec's state on small configurations, so that it is
 * anchored to the spec; `scale/compare.ts` compares the pool with it at scale.
 *
 * Labels: `0` nobody / never written, `k + 1` admission `k` (counted from 0), `-(g + 1)`
 * prefix group `g`.
 *
 * Allocation orders (docs/ALLOCATOR.md): under `sorted` without `double-free` a page is
 * free exactly when nobody holds it and `allocate` takes the lowest such ids; otherwise
 * the free list is an explicit array (and `sglang`'s release list another), taken from
 * the front, exactly as the pseudo-code there reads.
 *
 * Positions (issue 14): a page's content is written for one table position, and is right
 * only there; the owner check passes a prefix's tag only at the prefix's position (the
 * first), and a read of a prefix's content elsewhere is another request's data. The model
 * has one decode step and no torn writes (the scale test does not draw them).
 *
 * Token slots (spec/slots.ts): an admission is whole pages of `pageSize` tokens. A write
 * fills a page's first slots (P's prefill every slot, a stub's dummy one token), the rest
 * hold stale P-side data, and decode reads every slot of its pages: a read past a page's
 * fill, of a page whose content is the reader's own, is of stale data, another user's.
 * With `auto-truncate`, P prefills an over-long prompt cut to the limit, a whole number of
 * pages here, and the pages past it keep what they held.
 */
import type { Fault, Variant } from '../spec/config.ts';
import { DEFAULT_FAULTS, FAULTS } from '../spec/config.ts';
import { checksOwner, firstPageOf, isOverLongPrompt, sglangShort, stubsSilently } from '../spec/behaviour.ts';
import type { Phase } from '../spec/state.ts';

/** One page: who holds it, whose data it holds, and its owner tag. */
export interface RefPage {
  /** The holder's label; 0 = on the free list. */
  holder: number;
  /** The label of the last write that landed in it; 0 = never written. */
  data: number;
  /** The owner tag (only under `owner-check`); 0 = cleared. */
  tag: number;
  /** The table position the data was written for; 0 while never written. */
  pos: number;
  /** How many of its token slots, from the first, the last write filled; 0 while never written. */
  fill: number;
}

/** The data label of a read of stale P-side data. */
export const STALE = Number.MIN_SAFE_INTEGER;

/** One admission of a request into a slot. */
export interface RefRequest {
  /** Its number, from 0, in order of admission. */
  readonly admission: number;
  /** The slot it was admitted into. */
  readonly slot: number;
  /** Its length in pages. */
  readonly length: number;
  /** Its prefix group, or -1. */
  readonly group: number;
  /** Where it is in its lifecycle. */
  phase: Phase;
  /** Its first page is the cached prefix page it hit. */
  hit: boolean;
  /** Its first page was inserted into the prefix cache. */
  inserted: boolean;
  /** Its decode read a page it did not hold. */
  readUnheld: boolean;
  /** Its page table. */
  readonly table: number[];
  /** What its decode read: the data label of each table page, in order (empty before a successful decode). */
  reads: number[];
  /** The position each of those reads' data was written for. */
  readPositions: number[];
  /** Decode steps taken: 1 after a successful decode (the model has one step). */
  steps: number;
}

/** The sizes and switches of a reference pool. */
export interface RefOptions {
  /** D's pages, ids `0 .. pages-1`. */
  readonly pages: number;
  /** The longest prompt, in pages, that P computes. */
  readonly prefillLimit: number;
  /** The variant. */
  readonly variant: Variant;
  /** The faults; the variant's own when left out. */
  readonly faults?: readonly Fault[];
  /** Request slots. */
  readonly slots: number;
  /** Whether a finished request's slot takes a new admission (default on). */
  readonly reuseSlots?: boolean;
  /** `sorted` (default), `sglang` or `lifo`. */
  readonly allocator?: 'sorted' | 'sglang' | 'lifo';
  /** Tokens per page (default 1): picks `sglang`'s shortage test. */
  readonly pageSize?: number;
}

/** The variants the reference model has; the others it does not know (and the scale test does not draw). */
export const REFERENCE_VARIANTS = ['buggy', 'length-fix', 'owner-check'] as const satisfies readonly Variant[];

/** The faults the reference takes: every one but `segment-overlap`, which it refuses (its release never frees a page twice), and retraction's, which it cannot reach (it holds each request once). */
export const REFERENCE_FAULTS: readonly Fault[] = FAULTS.filter((f) => f !== 'segment-overlap' && f !== 'offload-after-free' && f !== 'resume-stale');

/** The label of admission `k`. */
export const admissionLabel = (k: number): number => k + 1;

/** The label of prefix group `g`. */
export const groupLabel = (g: number): number => -(g + 1);

/** Phases after which the request no longer needs its slot. */
const FINISHED: readonly Phase[] = ['freed', 'released', 'landed'];

/** The reference pool. Each action returns whether it was enabled; a disabled one changes nothing. */
export class ReferencePool {
  /** Its options. */
  readonly options: RefOptions;
  /** Every page. */
  readonly pages: RefPage[];
  /** Every admission so far, in order. */
  readonly requests: RefRequest[] = [];
  /** Per slot: the admission in it, if any. */
  readonly slots: (RefRequest | undefined)[];
  /** The prefix cache: group → the page it holds for it. */
  readonly cache = new Map<number, number>();
  /** Pages whose holder, data or tag the last actions changed; the comparer empties it. */
  readonly touched = new Set<number>();
  /** The free list, front first, when it is kept as a list (every order but `sorted` without `double-free`). */
  readonly freeList: number[] | undefined;
  /** Pages handed out while another live table (or the same one) still had them: the double-free class. */
  takenTwice = 0;
  /** `sglang`'s release list. */
  releaseList: number[] = [];
  /** Copies of each page on the lists, kept as they change (a page missing has none). */
  private readonly listed = new Map<number, number>();
  private readonly faults: ReadonlySet<string>;
  private readonly allocator: 'sorted' | 'sglang' | 'lifo';
  /** Whether decode checks owner tags (spec/behaviour.ts), resolved once. */
  private readonly ownerCheck: boolean;
  /** Whether P silently stubs an over-long prompt (spec/behaviour.ts), resolved once. */
  private readonly silentStub: boolean;

  constructor(options: RefOptions) {
    if (!(REFERENCE_VARIANTS as readonly string[]).includes(options.variant)) throw new RangeError(`reference: no variant ${options.variant}`);
    // Its release is one batch (two under lifo) that never overlap: it cannot stand for segment-overlap, and says so.
    if (options.faults?.some((f) => !REFERENCE_FAULTS.includes(f)) === true) throw new RangeError(`reference: faults ${options.faults.filter((f) => !REFERENCE_FAULTS.includes(f)).join(', ')} are not implemented (a release here never frees a page twice, and a request holds once); check them on the spec`);
    this.options = options;
    this.allocator = options.allocator ?? 'sorted';
    this.faults = new Set(options.faults ?? DEFAULT_FAULTS[options.variant]);
    this.ownerCheck = checksOwner(options.variant);
    this.silentStub = stubsSilently(options.variant, [...this.faults]);
    // Page 0 is SGLang's padding page under sglang and lifo: there, ids are 1 .. pages.
    const first = firstPageOf(this.allocator);
    this.pages = Array.from({ length: options.pages + first }, () => ({ holder: 0, data: 0, tag: 0, pos: 0, fill: 0 }));
    this.slots = Array.from({ length: options.slots }, () => undefined);
    const listed = this.allocator !== 'sorted' || this.multiset;
    this.freeList = listed ? Array.from({ length: options.pages }, (_, i) => i + first) : undefined;
    this.count(this.freeList ?? [], 1);
  }

  /** Whether the free list is a multiset (fault `double-free`). */
  get multiset(): boolean {
    return this.faults.has('double-free');
  }


  /** Whether admission `r`'s prompt is too long for P: whole pages, the spec's rule `gt` (the reference has no other). */
  private overLong(r: RefRequest): boolean {
    return isOverLongPrompt(r.length, this.options.prefillLimit);
  }

  /** How many pages nobody holds. */
  get freePages(): number {
    if (this.freeList !== undefined) return this.freeList.length + this.releaseList.length;
    return this.pages.filter((p) => p.holder === 0).length;
  }

  /** Copies of page `p` in the free list and the release list. */
  copies(p: number): number {
    if (this.freeList === undefined) return this.page(p).holder === 0 ? 1 : 0;
    return this.listed.get(p) ?? 0;
  }

  /** Counts `k` more (or fewer) copies of each page of `pages` on the lists. */
  private count(pages: readonly number[], k: number): void {
    for (const p of pages) this.listed.set(p, (this.listed.get(p) ?? 0) + k);
  }

  /** Whether slot `slot` can take a new admission. */
  slotOpen(slot: number): boolean {
    const r = this.slots[slot];
    return r === undefined || ((this.options.reuseSlots ?? true) && FINISHED.includes(r.phase));
  }

  /** Pages a new admission of `length` pages with prefix `group` needs from the free list. */
  need(length: number, group = -1): number {
    return group >= 0 && this.cache.has(group) ? length - 1 : length;
  }

  /** allocate: the lowest free pages, after the cached prefix page on a hit; tags cleared under owner-check. */
  allocate(slot: number, length: number, group = -1): boolean {
    if (!this.slotOpen(slot)) return false;
    if (this.freePages < this.need(length, group)) {
      // A failed attempt still merges sglang's release list (spec/alloc-fail.ts).
      if (this.allocator === 'sglang' && this.freeList !== undefined && this.releaseList.length > 0) this.mergeRelease(this.freeList);
      return false;
    }
    const hitPage = group >= 0 ? this.cache.get(group) : undefined;
    const r: RefRequest = {
      admission: this.requests.length,
      slot,
      length,
      group,
      phase: 'allocated',
      hit: hitPage !== undefined,
      inserted: false,
      readUnheld: false,
      table: hitPage === undefined ? [] : [hitPage],
      reads: [],
      readPositions: [],
      steps: 0,
    };
    for (const p of this.take(length - r.table.length)) {
      const page = this.page(p);
      if (page.holder !== 0 || r.table.includes(p)) this.takenTwice++;
      // A page holds one holder, the last taker: a cached page handed out again (a double free) leaves the cache.
      if (page.holder < 0) this.cache.delete(-page.holder - 1);
      page.holder = admissionLabel(r.admission);
      if (this.ownerCheck) page.tag = 0;
      r.table.push(p);
      this.touched.add(p);
    }
    this.requests.push(r);
    this.slots[slot] = r;
    return true;
  }

  /** prefill: the whole prompt is written (the prefix's data in an own first page); a timed-out request's write lands late. */
  prefill(slot: number): boolean {
    const r = this.slots[slot];
    const over = r !== undefined && this.overLong(r);
    if (r === undefined || (r.phase !== 'allocated' && r.phase !== 'timedOut') || (over && !this.faults.has('auto-truncate'))) return false;
    // auto-truncate: only the pages of the prompt cut to the limit are written.
    const written = over ? this.options.prefillLimit : r.length;
    r.table.forEach((p, i) => {
      if ((i === 0 && this.sharesFirstPage(r)) || i >= written) return;
      this.write(p, i === 0 && r.group >= 0 ? groupLabel(r.group) : admissionLabel(r.admission), i, this.slotsPerPage);
    });
    r.phase = r.phase === 'timedOut' ? 'landed' : 'written';
    return true;
  }

  /** stub: an over-long prompt; with the silent stub one own page is written and success reported, else a refusal. */
  stub(slot: number): boolean {
    const r = this.slots[slot];
    if (r === undefined || (r.phase !== 'allocated' && r.phase !== 'timedOut') || !this.overLong(r) || this.faults.has('auto-truncate')) return false;
    const late = r.phase === 'timedOut';
    if (!this.silentStub) {
      r.phase = late ? 'freed' : 'refused';
      return true;
    }
    const at = this.sharesFirstPage(r) ? 1 : 0;
    const first = r.table[at];
    // The dummy is one token.
    if (first !== undefined) this.write(first, admissionLabel(r.admission), at, 1);
    r.phase = late ? 'landed' : 'written';
    return true;
  }

  /** handoff: a written request is committed. */
  handoff(slot: number): boolean {
    const r = this.slots[slot];
    if (r?.phase !== 'written') return false;
    r.phase = 'handedOff';
    return true;
  }

  /** decode: under owner-check any page with a tag other than the reader's (or its prefix's, at the first position) fails it; otherwise every page is read. */
  decode(slot: number): boolean {
    const r = this.slots[slot];
    if (r?.phase !== 'handedOff') return false;
    const pages = r.table.map((p) => this.page(p));
    if (this.ownerCheck && pages.some((page, i) => !this.mayReadAt(r, i, page.tag))) {
      r.phase = 'failed';
      return true;
    }
    // Decode reads every slot of every page: past a page's fill, its own page holds stale P-side data.
    const stale = (page: RefPage, i: number): boolean => page.data !== 0 && page.fill < this.slotsPerPage && this.mayReadAt(r, i, page.data);
    r.reads = pages.map((page, i) => (stale(page, i) ? STALE : page.data));
    r.readPositions = pages.map((page, i) => (stale(page, i) ? i : page.pos));
    r.steps = 1;
    r.readUnheld = pages.some(
      (page, i) => page.holder !== admissionLabel(r.admission) && !(i === 0 && this.sharesFirstPage(r) && this.mayRead(r, page.holder)),
    );
    r.phase = 'decoded';
    return true;
  }

  /** free: a finished request's pages go back, except a shared prefix page; with stale-free, a freed one's old table again. */
  free(slot: number): boolean {
    const r = this.slots[slot];
    if (r === undefined) return false;
    const normal = r.phase === 'decoded' || r.phase === 'refused' || r.phase === 'failed';
    const again = r.phase === 'freed' || r.phase === 'landed';
    // double-free: the old table's pages are all still free, nobody took them since.
    const stillFree = (): boolean => r.table.every((p, i) => (i === 0 && this.sharesFirstPage(r)) || (this.page(p).holder === 0 && this.copies(p) > 0));
    const stale = again && (this.faults.has('stale-free') || (this.multiset && stillFree()));
    if (!normal && !stale) return false;
    this.release(r);
    r.phase = normal ? 'freed' : 'released';
    return true;
  }

  /** timeout (early-free): an allocated request's pages are freed while its write is in flight. */
  timeout(slot: number): boolean {
    const r = this.slots[slot];
    if (!this.faults.has('early-free') || r?.phase !== 'allocated') return false;
    this.release(r);
    r.phase = 'timedOut';
    return true;
  }

  /** insert: a decoded request's own first page becomes its prefix's cached page (with prefix-poison, a refused or failed one's too). */
  insert(slot: number): boolean {
    const r = this.slots[slot];
    if (r === undefined || r.group < 0 || this.cache.has(r.group) || this.sharesFirstPage(r)) return false;
    const poison = this.faults.has('prefix-poison') && (r.phase === 'refused' || r.phase === 'failed');
    if (r.phase !== 'decoded' && !poison) return false;
    const first = r.table[0];
    if (first === undefined || this.page(first).holder !== admissionLabel(r.admission)) return false;
    this.page(first).holder = groupLabel(r.group);
    this.touched.add(first);
    this.cache.set(r.group, first);
    r.inserted = true;
    return true;
  }

  /** Pages of the request's decode whose data another request wrote (its own prefix's excepted, at the first position). */
  foreignReads(r: RefRequest): number {
    return r.reads.filter((label, i) => label !== 0 && !this.mayReadAt(r, i, label)).length;
  }

  /** Whether request `r` may read content (or a tag) labelled `label` at table position `i`: its own anywhere, its prefix's only at the first. */
  mayReadAt(r: RefRequest, i: number, label: number): boolean {
    return label === admissionLabel(r.admission) || (i === 0 && r.group >= 0 && label === groupLabel(r.group));
  }

  /** Whether request `r` may read content (or a holder) labelled `label`: its own, or its prefix's. */
  mayRead(r: RefRequest, label: number): boolean {
    return label === admissionLabel(r.admission) || (r.group >= 0 && label === groupLabel(r.group));
  }

  /** Whether the request's first page is the shared prefix page. */
  sharesFirstPage(r: RefRequest): boolean {
    return r.hit || r.inserted;
  }

  /** Page `p`; throws on an id out of range. */
  page(p: number): RefPage {
    const page = this.pages[p];
    if (page === undefined) throw new RangeError(`page ${p}`);
    return page;
  }

  /** Token slots per page. */
  private get slotsPerPage(): number {
    return this.options.pageSize ?? 1;
  }

  private write(p: number, label: number, pos: number, slots: number): void {
    const page = this.page(p);
    page.data = label;
    page.pos = pos;
    page.fill = slots;
    if (this.ownerCheck) page.tag = label;
    this.touched.add(p);
  }

  /** `merge_and_sort_free`: the release list joins the free list `list`, sorted. */
  private mergeRelease(list: number[]): void {
    list.push(...this.releaseList);
    list.sort((a, b) => a - b);
    this.releaseList = [];
  }

  /** `n` pages off the free list: the lowest free ids, or the front of the list (after `sglang`'s merge on a shortage). */
  private take(n: number): number[] {
    const list = this.freeList;
    if (list === undefined) {
      const out: number[] = [];
      for (let p = 0; p < this.pages.length && out.length < n; p++) if (this.page(p).holder === 0) out.push(p);
      return out;
    }
    if (this.allocator === 'sglang' && this.releaseList.length > 0) {
      if (sglangShort(this.options.pageSize ?? 1, n, list.length)) this.mergeRelease(list);
    }
    const taken = list.splice(0, n);
    this.count(taken, -1);
    return taken;
  }

  /**
   * Every table page but a shared prefix page goes back, whoever holds it now, in one
   * release: distinct and ascending; one already free stays as it is unless the list is a
   * multiset. A cache entry it hits is gone.
   */
  private release(r: RefRequest): void {
    const batch: number[] = [];
    r.table.forEach((p, i) => {
      if (i === 0 && this.sharesFirstPage(r)) return;
      const page = this.page(p);
      if (page.holder < 0) this.cache.delete(-page.holder - 1);
      page.holder = 0;
      this.touched.add(p);
      if (!batch.includes(p)) batch.push(p);
    });
    const list = this.freeList;
    if (list === undefined) return;
    if (this.allocator === 'lifo') {
      // SGLang's group (spec/release.ts): the duplicates' free (an own first page of a prefixed request; admissions are
      // whole pages, so no tail) joins first, then the segment, the rest, in front of it.
      const dup = r.group >= 0 && !this.sharesFirstPage(r) ? [r.table[0]!] : [];
      for (const part of [dup, batch.filter((p) => !dup.includes(p))]) {
        const fresh = part.sort((a, b) => a - b).filter((p) => this.multiset || this.copies(p) === 0);
        this.count(fresh, 1);
        list.unshift(...fresh);
      }
      return;
    }
    const fresh = batch.sort((a, b) => a - b).filter((p) => this.multiset || this.copies(p) === 0);
    this.count(fresh, 1);
    if (this.allocator === 'sglang') this.releaseList.push(...fresh);
    else {
      list.push(...fresh);
      list.sort((a, b) => a - b);
    }
  }
}
