/**
 * A sorted multiset of page ids, the free list of the `sorted` order under `double-free`
 * and `sglang`'s free list proper (impl/allocator-order.ts): a count per id and a bitset
 * of the ids with a copy, so that the lowest entry is found by find-first-set.
 */
import { FreeSet } from './free-set.ts';

/** A sorted multiset of page ids: a count per id and a bitset of the ids with a copy, for find-first-set. */
export class SortedCounts {
  /** Copies of each id. */
  readonly counts: Int32Array;
  /** Entries, copies counted. */
  total = 0;
  private readonly present: FreeSet;
  private readonly one = new Int32Array(1);

  /** Ids `first .. size-1`, one copy each. */
  constructor(size: number, first: number) {
    this.counts = new Int32Array(size).fill(1, first);
    this.present = new FreeSet(size);
    for (let p = 0; p < first; p++) this.present.remove(p);
    this.total = size - first;
  }

  /** Adds `k` copies of `p`. */
  add(p: number, k: number): void {
    if (k <= 0) return;
    if (this.counts[p] === 0) this.present.add(p);
    this.counts[p] = (this.counts[p] ?? 0) + k;
    this.total += k;
  }

  /** The `n` lowest entries, a duplicate twice in a row. */
  take(n: number, out: Int32Array, at: number): void {
    // No id with a second copy (always, but under `double-free`): the lowest `n` ids at once, not one find-first-set call per page.
    if (this.total === this.present.count) {
      this.present.takeLowest(n, out, at);
      for (let i = at; i < at + n; i++) this.counts[out[i] ?? 0] = 0;
      this.total -= n;
      return;
    }
    let taken = 0;
    while (taken < n) {
      this.present.takeLowest(1, this.one, 0);
      const p = this.one[0] ?? 0;
      const c = this.counts[p] ?? 0;
      const k = Math.min(c, n - taken);
      for (let i = 0; i < k; i++) out[at + taken++] = p;
      this.counts[p] = c - k;
      if (c > k) this.present.add(p);
    }
    this.total -= n;
  }

  /** Takes one copy of `p`; whether there was one. */
  remove(p: number): boolean {
    const c = this.counts[p] ?? 0;
    if (c === 0) return false;
    this.counts[p] = c - 1;
    this.total--;
    if (c === 1) this.present.remove(p);
    return true;
  }

  /** Makes this multiset equal to `other`, one of the same size. */
  copyFrom(other: SortedCounts): void {
    this.counts.set(other.counts);
    this.present.copyFrom(other.present);
    this.total = other.total;
  }

  /** The entries, ascending, duplicates included. */
  order(): number[] {
    const out: number[] = [];
    this.counts.forEach((c, p) => {
      for (let k = 0; k < c; k++) out.push(p);
    });
    return out;
  }
}
