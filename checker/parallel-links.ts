/**
 * The parent links of the parallel search, for traces. Each thread writes the links of
 * the states it keeps into its own chunks (see `arena.ts`); the main thread only notes,
 * per block of a level, which number the block's first state has and where the thread
 * put its links: a few numbers per block, never a copy of the links.
 */
import { LinkReader } from './arena.ts';

/** Where the links of every stored state are. */
export class ParallelLinks {
  /** Per thread, its link chunks. */
  private readonly readers: LinkReader[] = [];
  /** Per block, ascending: the number of its first state, its thread, its first link. */
  private readonly starts: number[] = [];
  private readonly threads: number[] = [];
  private readonly firstLinks: number[] = [];

  /** @param roots The states numbered below this are initial states, with no parent. */
  constructor(private readonly roots: number) {}

  /** The reader of thread `thread`'s links, after taking note of its chunks. */
  reader(thread: number, chunks?: readonly SharedArrayBuffer[]): LinkReader {
    while (this.readers.length <= thread) this.readers.push(new LinkReader());
    const r = this.readers[thread]!;
    if (chunks !== undefined) r.update(chunks);
    return r;
  }

  /** Notes a block: states `start ..` have their links in thread `thread`'s chunks from `firstLink` on. Blocks come in ascending order. */
  add(start: number, thread: number, firstLink: number): void {
    this.starts.push(start);
    this.threads.push(thread);
    this.firstLinks.push(firstLink);
  }

  /** Bytes per link: a 4-byte parent and a 1-byte action. */
  static readonly BYTES = 5;

  /** The initial state that state `i` was found from, and the action indices that lead from it to `i`. */
  pathFrom(i: number): { root: number; path: number[] } {
    const path: number[] = [];
    while (i >= this.roots) {
      const b = this.blockOf(i);
      const r = this.readers[this.threads[b]!]!;
      const link = this.firstLinks[b]! + i - this.starts[b]!;
      path.push(r.action(link));
      i = r.parent(link);
    }
    return { root: i, path: path.reverse() };
  }

  /** The last block that starts at or before state `i`. */
  private blockOf(i: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
