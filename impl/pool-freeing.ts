/**
 * Pages taken from and given back to the free list: taking in the allocation order, and
 * a release as SGLang's allocator calls make it (`spec/release.ts`), whoever holds the
 * pages now (`release-checks-holder` aside), with `double-free`'s duplicates.
 */
import { releaseBatches, releaseCalls } from '../spec/release.ts';
import { HIT, INSERTED } from '../spec/state.ts';
import { type FreeList } from './allocator-order.ts';
import { NO_PAGE, groupOfLabel } from './options.ts';
import { PoolContents } from './pool-contents.ts';

/** The pool's taking and releasing of pages. */
export class PoolFreeing extends PoolContents {
  /** Takes `n` free pages into the table arena from `at`: the lowest ids, or the order's front (`tokens` and `decode` choose `sglang`'s shortage test, impl/allocator-order.ts). */
  protected takePages(at: number, n: number, tokens?: number, decode?: boolean): void {
    if (this.freeList !== undefined) this.freeList.take(n, this.tables, at, tokens, decode);
    else this.freeSet.takeLowest(n, this.tables, at);
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
    const calls = releaseCalls({ shared, prefix: g >= 0 ? (this.prefixLengths[g] ?? 1) : 0, pages: this.tableCapacity(s), tokens: this.tokens[s] ?? 0, pageSize: this.options.pageSize ?? 1, overlap: false });
    const own = this.serials[s] ?? 0;
    // A page at two positions of the table (after a double free) goes back once per release, as in the spec.
    const freed = new Set<number>();
    for (const batch of releaseBatches(calls, true)) {
      // A call over positions the table has not grown into yet frees nothing there.
      this.releaseBatch(this.freeList, batch.map((k) => [base + calls[k]!.from, base + Math.min(calls[k]!.to, length)] as const), own, freed);
    }
  }

  /** The pages the slot's table may hold, which the release's calls are cut by (spec/release.ts's `pages`): the table as allocated, as no table grows here. */
  protected tableCapacity(s: number): number {
    return this.lengths[s] ?? 0;
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
    // Read once: this loop runs per page of every release.
    const { tables, holder, freeSet } = this;
    const checksHolder = this.behaviour.releaseChecksHolder;
    for (let i = from; i < to; i++) {
      const p = tables[i] ?? 0;
      const h = holder[p] ?? 0;
      if (h === 0) continue;
      if (checksHolder && h !== own) continue;
      // A stale release can hit a page the prefix cache holds now: the entry is gone.
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      holder[p] = 0;
      freeSet.add(p);
    }
  }

  /**
   * One batch of a release into an ordered free list (the table entries of `runs`), as one
   * call of SGLang's `free`: the pages distinct and ascending (`torch.unique`); a page already listed is left out unless the
   * free list is a multiset (`double-free`), where it is then listed twice.
   */
  private releaseBatch(list: FreeList, runs: readonly (readonly [number, number])[], own: number, freed?: Set<number>): void {
    // Read once: this loop runs per page of every release.
    const { batch, tables, holder } = this;
    const { firstPage, releaseChecksHolder } = this.behaviour;
    let n = 0;
    for (const [from, to] of runs) for (let i = from; i < to; i++) {
      const p = tables[i] ?? NO_PAGE;
      if (p < firstPage) continue;
      if (freed !== undefined) {
        if (freed.has(p)) continue;
        freed.add(p);
      }
      const h = holder[p] ?? 0;
      if (releaseChecksHolder && h !== own) continue;
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      holder[p] = 0;
      batch[n++] = p;
    }
    this.putBatch(list, n);
  }

  /** Puts `batch[0 .. n)` back, as one call of `free`: sorted, deduplicated, already listed pages left out unless `double-free`. */
  private putBatch(list: FreeList, n: number): void {
    const batch = this.batch;
    // A table is mostly ascending already (the sorted orders hand out the lowest ids): sort only when it is not.
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = (batch[i - 1] ?? 0) <= (batch[i] ?? 0);
    if (!sorted) batch.subarray(0, n).sort();
    let kept = 0;
    const doubleFree = this.behaviour.doubleFree;
    for (let i = 0; i < n; i++) {
      const p = batch[i] ?? 0;
      if (i > 0 && p === batch[i - 1]) continue;
      if (!doubleFree && list.listed(p) + list.released(p) > 0) continue;
      batch[kept++] = p;
    }
    list.put(batch, kept);
  }

  /** `double-free`'s guard: every page of the slot's old table (but the shared prefix pages) is still free, nobody took it since. */
  protected stillFree(s: number): boolean {
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
  protected putBack(n: number): void {
    const list = this.freeList;
    if (list === undefined) {
      for (let i = 0; i < n; i++) this.freeSet.add(this.batch[i] ?? 0);
      return;
    }
    this.putBatch(list, n);
  }
}
