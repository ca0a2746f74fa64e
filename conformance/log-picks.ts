/** The page ids of a logged allocation, taken from the log when it names them: shared by every pool class the validator runs (pool.ts, radix.ts). */

/**
 * The logged allocation, the same in every pool class the validator runs (this file's
 * `LoggedPool`, radix.ts's `LoggedRadixPool`): the log's pages taken into table entries
 * `at .. at+n-1` when it names them, and the page named twice.
 */
export class LogPicks {
  /** Per page, the epoch of the last duplicate scan that met it (`double-free` only). */
  private readonly marks: Int32Array;
  private epoch = 0;

  constructor(private readonly doubleFree: boolean, pages: number) {
    this.marks = new Int32Array(doubleFree ? pages : 0);
  }

  /** A logged pool's `takePages`: the wanted pages when the log names them (`remove` takes one off the free list), else the pool's own order (`own`); the page named twice, or -1 (a multiset free list under `double-free` can hand one page out twice in one allocation). */
  take(wanted: readonly number[] | undefined, tables: Int32Array, at: number, n: number, own: () => void, remove: (p: number) => boolean): number {
    if (wanted !== undefined) return this.takeWanted(wanted, tables, at, n, remove);
    own();
    return this.doubleFree ? this.repeated(tables, at, n) : -1;
  }

  /** The table entries `at .. at+n-1` take the wanted pages, each removed from the free list by `remove` (false when it was not free); the page named twice, or -1. */
  takeWanted(wanted: readonly number[], tables: Int32Array, at: number, n: number, remove: (p: number) => boolean): number {
    let twice = -1;
    for (let i = 0; i < n; i++) {
      const p = wanted[i] ?? 0;
      // Every page was free before: one that is not free now was named twice (more often than the multiset of `double-free` lists it).
      if (!remove(p)) twice = p;
      tables[at + i] = p;
    }
    return twice < 0 && this.doubleFree ? this.repeated(tables, at, n) : twice;
  }

  /** A page that table entries `at .. at+n-1` name twice, or -1: one pass, marking pages with a fresh epoch (nothing allocated). */
  repeated(tables: Int32Array, at: number, n: number): number {
    const marks = this.marks;
    if (++this.epoch === 0x7fffffff) {
      marks.fill(0);
      this.epoch = 1;
    }
    const epoch = this.epoch;
    for (let i = at; i < at + n; i++) {
      const p = tables[i] ?? 0;
      if (marks[p] === epoch) return p;
      marks[p] = epoch;
    }
    return -1;
  }
}
