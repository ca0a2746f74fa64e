/**
 * The free list of D's page pool, kept the way SGLang keeps it in P/D mode: sorted, so the
 * lowest free ids are handed out first. A bitset over `Uint32Array` words (bit set = page
 * free) with a count and a hint to the lowest word that may hold a free page: taking the
 * lowest page is find-first-set on one word (`31 - clz32(x & -x)`), releasing one is a
 * bit or. Nothing here allocates after construction.
 */

/** The set of free page ids of a pool of `size` pages; all free at construction. */
export class FreeSet {
  /** Number of page ids, `0 .. size-1`. */
  readonly size: number;
  private readonly words: Uint32Array;
  private free: number;
  /** No word below this one has a free bit; a lower bound, never too high. */
  private low: number;

  constructor(size: number) {
    this.size = size;
    this.words = new Uint32Array((size + 31) >>> 5);
    this.words.fill(0xffffffff);
    const tail = size & 31;
    // The last word's bits past `size` must never look free.
    if (tail !== 0) this.words[this.words.length - 1] = (1 << tail) - 1;
    this.free = size;
    this.low = 0;
  }

  /** How many pages are free. */
  get count(): number {
    return this.free;
  }

  /** Whether page `p` is free. */
  has(p: number): boolean {
    return (((this.words[p >>> 5] ?? 0) >>> (p & 31)) & 1) === 1;
  }

  /** Marks page `p` free; returns false (and changes nothing) when it already was. */
  add(p: number): boolean {
    const w = p >>> 5;
    const bit = 1 << (p & 31);
    const word = this.words[w] ?? 0;
    if ((word & bit) !== 0) return false;
    this.words[w] = word | bit;
    this.free++;
    if (w < this.low) this.low = w;
    return true;
  }

  /** Marks page `p` taken; returns false (and changes nothing) when it was not free. */
  remove(p: number): boolean {
    const w = p >>> 5;
    const bit = 1 << (p & 31);
    const word = this.words[w] ?? 0;
    if ((word & bit) === 0) return false;
    this.words[w] = word & ~bit;
    this.free--;
    return true;
  }

  /** Makes this set equal to `other`, a set of the same size (the validator forks states with it). */
  copyFrom(other: FreeSet): void {
    if (other.size !== this.size) throw new RangeError(`FreeSet.copyFrom: sizes ${other.size} and ${this.size} differ`);
    this.words.set(other.words);
    this.free = other.free;
    this.low = other.low;
  }

  /**
   * Takes the `n` lowest free pages and writes them, ascending, into `out` from `at`.
   * The caller has checked that `n <= count`.
   */
  takeLowest(n: number, out: Int32Array, at: number): void {
    const words = this.words;
    let w = this.low;
    let taken = 0;
    while (taken < n) {
      let word = words[w] ?? 0;
      if (word === 0) {
        w++;
        continue;
      }
      while (word !== 0 && taken < n) {
        const bit = word & -word;
        out[at + taken++] = (w << 5) | (31 - Math.clz32(bit));
        word ^= bit;
      }
      words[w] = word;
      if (word === 0) w++;
    }
    this.free -= n;
    this.low = w;
  }
}
