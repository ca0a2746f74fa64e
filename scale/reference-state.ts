/**
 * The reference pool's state: its pages, its admissions by slot, the prefix cache, the
 * free list as the allocation order keeps it, and the steps the actions share (taking
 * pages, a release, a write, what a request may read).
 */
import { DEFAULT_FAULTS } from '../spec/config.ts';
import { checksOwner, firstPageOf, isOverLongPrompt, sglangShort, stubsSilently } from '../spec/behaviour.ts';
import { type RefPage, type RefRequest, type RefOptions, admissionLabel, groupLabel, FINISHED } from './reference-types.ts';
import { REFERENCE_COVERAGE } from './coverage.ts';
import { lacking } from '../spec/coverage.ts';

/** The reference pool's pages, lists and cache, with the queries and steps its actions share. */
export class ReferenceState {
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
  protected readonly faults: ReadonlySet<string>;
  protected readonly allocator: 'sorted' | 'sglang' | 'lifo';
  /** Whether decode checks owner tags (spec/behaviour.ts), resolved once. */
  protected readonly ownerCheck: boolean;
  /** Whether P silently stubs an over-long prompt (spec/behaviour.ts), resolved once. */
  protected readonly silentStub: boolean;
  /** Decode steps per request. */
  protected readonly decodeSteps: number;
  /** Whether tables grow (`tableGrowth`, which needs a step that writes a token: two steps or more). */
  protected readonly growth: boolean;
  /** Whether the prefix cache evicts (`eviction`; only with prefixes to cache). */
  protected readonly eviction: boolean;
  /** Whether the prefix cache is a radix tree (`radix`, under eviction). */
  protected readonly radix: boolean;
  /** Under eviction, without the tree: per prefix group, how many requests lock its entry (`lock_ref`, never below 0). */
  readonly locks = new Map<number, number>();
  /** Per slot: an eviction was made for its first admission before it was admitted (the admission keeps the mark). */
  readonly slotEvicted: boolean[];

  constructor(options: RefOptions) {
    // The variant and faults against its coverage (scale/coverage.ts); to-spec.ts checks the rest of a configuration.
    const refused = [`variant:${options.variant}` as const, ...(options.faults ?? []).map((f) => `fault:${f}` as const)].find((f) => !REFERENCE_COVERAGE.covers(f));
    if (refused !== undefined) throw new RangeError(`reference: ${REFERENCE_COVERAGE.consumer} ${lacking(REFERENCE_COVERAGE, refused)}; check it on the spec`);
    this.options = options;
    this.allocator = options.allocator ?? 'sorted';
    this.faults = new Set(options.faults ?? DEFAULT_FAULTS[options.variant]);
    this.ownerCheck = checksOwner(options.variant);
    this.silentStub = stubsSilently(options.variant, [...this.faults]);
    this.decodeSteps = options.decodeSteps ?? 1;
    this.growth = options.tableGrowth === true && this.decodeSteps > 1;
    this.eviction = options.eviction === true;
    this.radix = this.eviction && options.radix === true;
    // Page 0 is SGLang's padding page under sglang and lifo: there, ids are 1 .. pages.
    const first = firstPageOf(this.allocator);
    this.pages = Array.from({ length: options.pages + first }, () => ({ holder: 0, data: 0, tag: 0, pos: 0, fill: 0, tagFill: 0, nodeLock: 0 }));
    this.slots = Array.from({ length: options.slots }, () => undefined);
    this.slotEvicted = this.slots.map(() => false);
    const listed = this.allocator !== 'sorted' || this.multiset;
    this.freeList = listed ? Array.from({ length: options.pages }, (_, i) => i + first) : undefined;
    this.count(this.freeList ?? [], 1);
  }

  /** Whether the free list is a multiset (fault `double-free`). */
  get multiset(): boolean {
    return this.faults.has('double-free');
  }

  /** Whether admission `r`'s prompt is too long for P: whole pages, the spec's rule `gt` (the reference has no other). */
  protected overLong(r: RefRequest): boolean {
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

  /** Whether the request's first page is the shared prefix page: it hit or inserted; under `radix`, its last node is its prefix's. */
  sharesFirstPage(r: RefRequest): boolean {
    return this.radix ? r.depth > 0 : r.hit || r.inserted;
  }

  /** Page `p`; throws on an id out of range. */
  page(p: number): RefPage {
    const page = this.pages[p];
    if (page === undefined) throw new RangeError(`page ${p}`);
    return page;
  }

  /** Token slots per page. */
  protected get slotsPerPage(): number {
    return this.options.pageSize ?? 1;
  }

  /** A write lands in page `p`, for table position `pos`, filling its first `slots` slots; under owner-check its tag too, counting `tagSlots` slots. */
  protected write(p: number, label: number, pos: number, slots: number, tagSlots = slots): void {
    const page = this.page(p);
    page.data = label;
    page.pos = pos;
    page.fill = slots;
    if (this.ownerCheck) {
      page.tag = label;
      page.tagFill = tagSlots;
    }
    this.touched.add(p);
  }

  /** `merge_and_sort_free`: the release list joins the free list `list`, sorted. */
  protected mergeRelease(list: number[]): void {
    list.push(...this.releaseList);
    list.sort((a, b) => a - b);
    this.releaseList = [];
  }

  /** Request `r`'s prompt in tokens: whole pages. */
  promptTokens(r: RefRequest): number {
    return r.length * this.slotsPerPage;
  }

  /** The pages request `r`'s table may come to hold: its prompt's, and under `tableGrowth` those its tokens reach. */
  maxPages(r: RefRequest): number {
    return this.growth ? Math.ceil((this.promptTokens(r) + this.decodeSteps - 1) / this.slotsPerPage) : r.length;
  }

  /** Page `p` goes to request `r` as its next table position: held by it, its tag cleared under owner-check, its contents as they were. */
  protected hand(r: RefRequest, p: number): void {
    const page = this.page(p);
    if (page.holder !== 0 || r.table.includes(p)) this.takenTwice++;
    // A page holds one holder, the last taker: a cached page handed out again (a double free) leaves the cache.
    if (page.holder < 0) this.cache.delete(-page.holder - 1);
    page.holder = admissionLabel(r.admission);
    if (this.ownerCheck) {
      page.tag = 0;
      page.tagFill = 0;
    }
    r.table.push(p);
    this.touched.add(p);
  }

  /**
   * `n` pages off the free list: the lowest free ids, or the front of the list. Under
   * `sglang` the release list is merged in first when the free list is short: for a
   * decode step's page (`alloc_decode`) when it is empty, else by `alloc_extend`'s test
   * for `tokens` tokens.
   */
  protected take(n: number, decodePage = false, tokens = n * this.slotsPerPage): number[] {
    const list = this.freeList;
    if (list === undefined) {
      const out: number[] = [];
      for (let p = 0; p < this.pages.length && out.length < n; p++) if (this.page(p).holder === 0) out.push(p);
      return out;
    }
    if (this.allocator === 'sglang' && this.releaseList.length > 0) {
      const short = decodePage ? n > list.length : sglangShort(this.slotsPerPage, n, list.length, 'extend', tokens);
      if (short) this.mergeRelease(list);
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
  protected release(r: RefRequest): void {
    const batch: number[] = [];
    r.table.forEach((p, i) => {
      if (i === 0 && this.sharesFirstPage(r)) return;
      const page = this.page(p);
      if (page.holder < 0) this.cache.delete(-page.holder - 1);
      page.holder = 0;
      this.touched.add(p);
      if (!batch.includes(p)) batch.push(p);
    });
    if (this.allocator === 'lifo') {
      // SGLang's group (spec/release.ts): the duplicates' free (an own first page of a prefixed request; admissions are
      // whole pages, so no tail) joins first, then the segment, the rest, in front of it.
      const dup = r.group >= 0 && !this.sharesFirstPage(r) ? [r.table[0]!] : [];
      for (const part of [dup, batch.filter((p) => !dup.includes(p))]) this.giveBack(part);
      return;
    }
    this.giveBack(batch);
  }

  /**
   * One allocator `free` call of `pages`: ascending, each page once; one already listed is
   * skipped unless the list is a multiset. `lifo` puts them in front, `sglang` on its release
   * list, `sorted` in order.
   */
  protected giveBack(pages: readonly number[]): void {
    const list = this.freeList;
    if (list === undefined) return;
    const fresh = [...new Set(pages)].sort((a, b) => a - b).filter((p) => this.multiset || this.copies(p) === 0);
    this.count(fresh, 1);
    if (this.allocator === 'lifo') list.unshift(...fresh);
    else if (this.allocator === 'sglang') this.releaseList.push(...fresh);
    else {
      list.push(...fresh);
      list.sort((a, b) => a - b);
    }
  }
}
