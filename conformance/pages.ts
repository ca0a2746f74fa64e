/**
 * A logged page list kept as runs (`[from, to]` ranges, a single id being a run of one), as
 * the log writes it: a 12,000-page table is one run, so comparing it with the pool's table
 * row costs one pass and allocates nothing.
 */
import { MAX_LOG_PAGES, type LineIssue } from './schema-parts.ts';

/** Page ids in table order, as runs. */
export class PageRuns {
  /** First id of each run (plain arrays: two typed arrays per logged list cost more to make than they saved). */
  readonly starts: readonly number[];
  /** Last id of each run (inclusive). */
  readonly ends: readonly number[];
  /** Number of page ids. */
  readonly count: number;

  private constructor(starts: readonly number[], ends: readonly number[], count: number) {
    this.starts = starts;
    this.ends = ends;
    this.count = count;
  }

  /** The runs of a decoded list, or the item that is wrong (a range that runs backwards, a list too long). */
  static from(list: ReadonlyArray<number | readonly [number, number]>): PageRuns | LineIssue {
    const starts: number[] = [];
    const ends: number[] = [];
    let count = 0;
    for (let i = 0; i < list.length; i++) {
      const item = list[i] ?? 0;
      // Read without destructuring a fresh pair: this runs per item of every logged list.
      const from = typeof item === 'number' ? item : item[0];
      const to = typeof item === 'number' ? item : item[1];
      if (to < from) return { field: `pages[${i}]`, message: `expected a range [from, to] with from <= to, got ${JSON.stringify(item)}` };
      count += to - from + 1;
      if (count > MAX_LOG_PAGES) return { field: `pages[${i}]`, message: `the list names more than ${MAX_LOG_PAGES} pages` };
      starts.push(from);
      ends.push(to);
    }
    return new PageRuns(starts, ends, count);
  }

  /** The `i`-th page id (a walk over the runs; for the first few only). */
  at(i: number): number {
    let k = i;
    for (let r = 0; r < this.starts.length; r++) {
      const n = (this.ends[r] ?? 0) - (this.starts[r] ?? 0) + 1;
      if (k < n) return (this.starts[r] ?? 0) + k;
      k -= n;
    }
    return -1;
  }

  /** Whether the ids, in order, are `row[from .. to-1]`. */
  equalsRow(row: ArrayLike<number>, from: number, to: number): boolean {
    if (to - from !== this.count) return false;
    let i = from;
    for (let r = 0; r < this.starts.length; r++) {
      const end = this.ends[r] ?? 0;
      for (let p = this.starts[r] ?? 0; p <= end; p++) if (row[i++] !== p) return false;
    }
    return true;
  }

  /** The ids from the `skip`-th on, for which `test` holds (at most `limit`). */
  filter(skip: number, limit: number, test: (p: number) => boolean): number[] {
    const out: number[] = [];
    let i = 0;
    for (let r = 0; r < this.starts.length; r++) {
      const end = this.ends[r] ?? 0;
      for (let p = this.starts[r] ?? 0; p <= end; p++) {
        if (i++ >= skip && test(p)) {
          out.push(p);
          if (out.length >= limit) return out;
        }
      }
    }
    return out;
  }

  /** The ids from the `skip`-th on, as an array (for an allocation under the `any` allocator). */
  toArray(skip = 0): number[] {
    return this.filter(skip, Number.MAX_SAFE_INTEGER, () => true);
  }

  /** The first few ids in words. */
  words(): string {
    const shown = this.filter(0, 8, () => true).join(', ');
    return this.count <= 8 ? `[${shown}]` : `[${shown}, ... ${this.count} pages]`;
  }
}
