/**
 * The pool's free lists other than the plain sorted set of `free-set.ts`: SGLang's P/D
 * allocator (`sglang`: a sorted free list and a release list, merged and sorted when an
 * allocation finds the free list short), SGLang outside P/D mode (`lifo`: a release goes
 * to the front), and, with fault `double-free`, the sorted order as a multiset. Each
 * follows docs/ALLOCATOR.md and the functions of SGLang's `mem_cache/allocator.py` named
 * there: `alloc` / `alloc_extend` (the shortage test), `merge_and_sort_free`, `free`
 * (`torch.unique` of the page ids, then `cat` onto the release list or the front of the
 * free list). Under `sglang` and `lifo` page 0 is the padding page and never listed.
 *
 * A page may sit in a list more than once only under `double-free`; keeping the free
 * list a set otherwise is the caller's job (it leaves out a page already listed).
 * Nothing allocates after construction, except a `lifo` list that double frees outgrow.
 */
import { sglangShort } from '../spec/behaviour.ts';
import { SortedCounts } from './sorted-counts.ts';

/** The allocation orders the pool implements (`any` is a choice per allocation, which a pool does not make). */
export const POOL_ALLOCATORS = ['sorted', 'sglang', 'lifo'] as const;

/** One of {@link POOL_ALLOCATORS}. */
export type PoolAllocator = (typeof POOL_ALLOCATORS)[number];

/** A free list: how many entries it has, which pages, and the two operations. */
export interface FreeList {
  /** Entries in the free list and the release list together: how many pages an allocation can take. */
  readonly count: number;
  /** Entries in the release list (`sglang` only; 0 otherwise): what a merge would move. */
  readonly releasedTotal: number;
  /** Copies of page `p` in the free list proper. */
  listed(p: number): number;
  /** Copies of page `p` in the release list (`sglang` only; 0 otherwise). */
  released(p: number): number;
  /**
   * Takes `n <= count` entries off the front, writing them into `out` from `at` in the order
   * taken. `tokens` is what an `alloc_extend` allocates (`n` whole pages when left out);
   * `decode` marks a decode step's page (`alloc_decode`): both choose `sglang`'s shortage test.
   */
  take(n: number, out: Int32Array, at: number, tokens?: number, decode?: boolean): void;
  /** An allocation of `n > count` entries that fails (`alloc_extend` returning `None`): whether its side effect, `sglang`'s merge, changed the list. */
  refuse(n: number): boolean;
  /** One release: `batch[0 .. n-1]`, distinct and ascending, as `torch.unique` returns it. */
  put(batch: Int32Array, n: number): void;
  /** The free list front first, duplicates included (the release list apart). */
  order(): number[];
  /** Takes one entry of page `p` off the list, wherever it is (the validator's `any` order names its pages); whether there was one. */
  remove(p: number): boolean;
  /** Makes this list equal to `other`, a list of the same kind and size (the validator forks states with it). */
  copyFrom(other: FreeList): void;
}

/** `sorted` with `double-free`: the lowest entries of a multiset. */
class SortedMultiset implements FreeList {
  private readonly free: SortedCounts;
  constructor(size: number) {
    this.free = new SortedCounts(size, 0);
  }
  get count(): number {
    return this.free.total;
  }
  get releasedTotal(): number {
    return 0;
  }
  listed(p: number): number {
    return this.free.counts[p] ?? 0;
  }
  released(): number {
    return 0;
  }
  take(n: number, out: Int32Array, at: number): void {
    this.free.take(n, out, at);
  }
  refuse(): boolean {
    return false;
  }
  put(batch: Int32Array, n: number): void {
    for (let i = 0; i < n; i++) this.free.add(batch[i] ?? 0, 1);
  }
  order(): number[] {
    return this.free.order();
  }
  remove(p: number): boolean {
    return this.free.remove(p);
  }
  copyFrom(other: FreeList): void {
    if (!(other instanceof SortedMultiset)) throw new TypeError('FreeList.copyFrom: lists of different orders');
    this.free.copyFrom(other.free);
  }
}

/** `sglang`: `free_pages` (sorted) and `release_pages`; a shortage merges and sorts them (`merge_and_sort_free`). */
class SglangLists implements FreeList {
  private readonly free: SortedCounts;
  private readonly releaseCounts: Int32Array;
  /** The distinct ids in the release list, in no particular order (only a sort consumes it). */
  private readonly releaseIds: Int32Array;
  private releaseDistinct = 0;
  private releaseTotal = 0;
  private readonly pageSize: number;

  /** Pages `1 .. size-1` (0 is the padding page); `pageSize` tokens per page picks the shortage test. */
  constructor(size: number, pageSize: number) {
    this.free = new SortedCounts(size, 1);
    this.releaseCounts = new Int32Array(size);
    this.releaseIds = new Int32Array(size);
    this.pageSize = pageSize;
  }
  get count(): number {
    return this.free.total + this.releaseTotal;
  }
  get releasedTotal(): number {
    return this.releaseTotal;
  }
  listed(p: number): number {
    return this.free.counts[p] ?? 0;
  }
  released(p: number): number {
    return this.releaseCounts[p] ?? 0;
  }
  take(n: number, out: Int32Array, at: number, tokens = n * this.pageSize, decode = false): void {
    // The spec's test: `alloc` by page size 1, `alloc_extend` on its tokens, `alloc_decode` for a decode step's page.
    if (this.releaseTotal > 0 && sglangShort(this.pageSize, n, this.free.total, decode ? 'decode' : 'extend', tokens)) this.merge();
    this.free.take(n, out, at);
  }
  /** A failed attempt needs more than the free list holds, which every shortage test counts as short: the merge happens, then `None`. */
  refuse(n: number): boolean {
    if (this.releaseTotal === 0 || n <= this.free.total) return false;
    this.merge();
    return true;
  }
  /** `merge_and_sort_free`: the release list joins the free list, which stays sorted (counts per id). */
  private merge(): void {
    for (let i = 0; i < this.releaseDistinct; i++) {
      const p = this.releaseIds[i] ?? 0;
      this.free.add(p, this.releaseCounts[p] ?? 0);
      this.releaseCounts[p] = 0;
    }
    this.releaseDistinct = 0;
    this.releaseTotal = 0;
  }
  put(batch: Int32Array, n: number): void {
    for (let i = 0; i < n; i++) {
      const p = batch[i] ?? 0;
      if (this.releaseCounts[p] === 0) this.releaseIds[this.releaseDistinct++] = p;
      this.releaseCounts[p] = (this.releaseCounts[p] ?? 0) + 1;
      this.releaseTotal++;
    }
  }
  order(): number[] {
    return this.free.order();
  }
  remove(p: number): boolean {
    if (this.free.remove(p)) return true;
    const c = this.releaseCounts[p] ?? 0;
    if (c === 0) return false;
    this.releaseCounts[p] = c - 1;
    this.releaseTotal--;
    if (c === 1) {
      // Keep the distinct ids distinct: a later release must find `p` absent.
      const at = this.releaseIds.subarray(0, this.releaseDistinct).indexOf(p);
      this.releaseIds[at] = this.releaseIds[--this.releaseDistinct] ?? 0;
    }
    return true;
  }
  copyFrom(other: FreeList): void {
    if (!(other instanceof SglangLists)) throw new TypeError('FreeList.copyFrom: lists of different orders');
    this.free.copyFrom(other.free);
    this.releaseCounts.set(other.releaseCounts);
    this.releaseIds.set(other.releaseIds);
    this.releaseDistinct = other.releaseDistinct;
    this.releaseTotal = other.releaseTotal;
  }
}

/** `lifo`: each release goes to the front (`cat(free_page_indices, free_pages)`); kept as a stack whose top is the front. */
class LifoList implements FreeList {
  private stack: Int32Array;
  private top = 0;
  private readonly counts: Int32Array;

  /** Pages `1 .. size-1` in order, 1 at the front. */
  constructor(size: number) {
    this.stack = new Int32Array(2 * size);
    this.counts = new Int32Array(size).fill(1, 1);
    for (let p = size - 1; p >= 1; p--) this.stack[this.top++] = p;
  }
  get count(): number {
    return this.top;
  }
  get releasedTotal(): number {
    return 0;
  }
  listed(p: number): number {
    return this.counts[p] ?? 0;
  }
  released(): number {
    return 0;
  }
  refuse(): boolean {
    return false;
  }
  take(n: number, out: Int32Array, at: number): void {
    for (let i = 0; i < n; i++) {
      const p = this.stack[--this.top] ?? 0;
      out[at + i] = p;
      this.counts[p] = (this.counts[p] ?? 0) - 1;
    }
  }
  put(batch: Int32Array, n: number): void {
    if (this.top + n > this.stack.length) {
      // Only double frees outgrow two copies per page.
      const grown = new Int32Array(2 * (this.top + n));
      grown.set(this.stack.subarray(0, this.top));
      this.stack = grown;
    }
    // The batch's first page must end on top: push it last.
    for (let i = n - 1; i >= 0; i--) {
      const p = batch[i] ?? 0;
      this.stack[this.top++] = p;
      this.counts[p] = (this.counts[p] ?? 0) + 1;
    }
  }
  order(): number[] {
    return Array.from(this.stack.subarray(0, this.top)).reverse();
  }
  remove(p: number): boolean {
    if ((this.counts[p] ?? 0) === 0) return false;
    // The copy nearest the front, that is nearest the top.
    let i = this.top - 1;
    while (this.stack[i] !== p) i--;
    this.stack.copyWithin(i, i + 1, this.top);
    this.top--;
    this.counts[p] = (this.counts[p] ?? 0) - 1;
    return true;
  }
  copyFrom(other: FreeList): void {
    if (!(other instanceof LifoList)) throw new TypeError('FreeList.copyFrom: lists of different orders');
    if (this.stack.length < other.top) this.stack = new Int32Array(other.stack.length);
    this.stack.set(other.stack.subarray(0, other.top));
    this.top = other.top;
    this.counts.set(other.counts);
  }
}

/** The free list of an order over page ids `0 .. size-1`; undefined for the plain sorted set (`free-set.ts`). */
export function makeFreeList(allocator: PoolAllocator, size: number, multiset: boolean, pageSize: number): FreeList | undefined {
  if (allocator === 'sglang') return new SglangLists(size, pageSize);
  if (allocator === 'lifo') return new LifoList(size);
  return multiset ? new SortedMultiset(size) : undefined;
}
