/**
 * Pools with defects that need size to show: none of them differs from the real pool on
 * a configuration of a handful of pages, a few requests and slots admitted once, so the
 * small model-based test cannot catch them (mutants.test.ts pins that), and the test at
 * scale must (scale-mbt.test.ts).
 */
import { Ph } from '../../spec/state.ts';
import { PagePool, prefixLabelOf, SteppingPool, type LifeOptions, type PoolOptions } from '../../impl/index.ts';
import { RadixPool, type RadixPoolOptions } from '../../impl/radix-pool.ts';
import { realPool } from '../../impl/drive.ts';

/** A mutant: its name, what it gets wrong, how to build it, and the variant whose runs expose it (random when left out). */
export interface ScaleMutant {
  /** Short name, used as the test's title. */
  readonly name: string;
  /** The defect, in words. */
  readonly defect: string;
  /** Builds the mutated pool. */
  readonly make: (options: PoolOptions) => PagePool;
  /** Restricts the random configurations to the variant that has the code path. */
  readonly variant?: PoolOptions['variant'];
  /** For a defect of a request's life on D: the small test draws decode steps, growth and retraction as this says, and the scale test runs a long life. */
  readonly life?: LifeOptions;
  /** For a defect of the radix tree: the small test draws the tree, and the scale test runs many hits on one node under `lock-underflow`. */
  readonly tree?: true;
}

/** The owner check inspects only the first 32 pages of a table (one word of a bitmap, say). */
class OwnerCheckFirst32 extends PagePool {
  protected override ownerCheckPasses(s: number): boolean {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const own = g >= 0 ? prefixLabelOf(g) : serial;
    const base = s * this.options.maxLength;
    const end = base + Math.min(32, this.lengths[s] ?? 0);
    for (let i = base; i < end; i++) {
      const t = this.tag[this.tables[i] ?? 0];
      // A prefix's tag passes only at the prefix's position, the first, as in the pool.
      if (t !== serial && !(i === base && t === own)) return false;
    }
    return true;
  }
}

/** The generation counter is a byte: the 256th admission gets serial 1 again, and owns what the first one wrote. */
class SerialWrapsAt255 extends PagePool {
  override allocate(slot: number, length: number, prefix?: number): boolean {
    if (!super.allocate(slot, length, prefix)) return false;
    const serial = this.serials[slot] ?? 0;
    const wrapped = ((serial - 1) % 255) + 1;
    const base = slot * this.options.maxLength;
    for (let i = base; i < base + length; i++) {
      const p = this.tables[i] ?? 0;
      if (this.holder[p] === serial) this.holder[p] = wrapped;
    }
    this.serials[slot] = wrapped;
    return true;
  }
}

/** `free` releases at most the first 64 entries of a table: the rest of a long table leaks. */
class ReleaseFirst64 extends PagePool {
  protected override release(s: number): void {
    const base = s * this.options.maxLength;
    this.releaseEntries(base + (this.sharesFirstPage(s) ? 1 : 0), base + Math.min(64, this.lengths[s] ?? 0));
  }
}

/** Decode's read count is kept in a byte: a table of 256 pages or more records a wrapped count. */
class ReadCountByte extends PagePool {
  protected override read(s: number): void {
    super.read(s);
    this.readCounts[s] = (this.readCounts[s] ?? 0) & 0xff;
  }
}

/** A reused slot keeps its previous admission's read record: `allocate` forgets to reset it. */
class ReuseKeepsReads extends PagePool {
  override allocate(slot: number, length: number, prefix?: number): boolean {
    const previous = this.readCounts[slot] ?? 0;
    if (!super.allocate(slot, length, prefix)) return false;
    this.readCounts[slot] = previous;
    return true;
  }
}

/**
 * The free list's search hint is never lowered when a page comes back: allocation scans
 * from the word of the last page it took, and wraps to the start only when that runs out.
 * With one word of 32 pages the hint is always 0, so only pools above 32 pages see it.
 */
class FreeHintNotLowered extends PagePool {
  private hint = 0;
  protected override takePages(at: number, n: number): void {
    // The plain sorted set's hint; the other free lists have none.
    if (this.freeList !== undefined) {
      super.takePages(at, n);
      return;
    }
    const pages = this.options.pages;
    let taken = 0;
    for (let p = this.hint * 32; taken < n; p = (p + 1) % pages) {
      if (this.freeSet.remove(p)) this.tables[at + taken++] = p;
    }
    // Ascending, as the lowest-first list would hand them out.
    this.tables.subarray(at, at + n).sort();
    this.hint = Math.floor((this.tables[at + n - 1] ?? 0) / 32);
  }
}

/** A slot past the 4th is never reused after a refusal: its phase is left as refused when freed. */
class HighSlotKeepsRefused extends PagePool {
  override free(slot: number): boolean {
    const was = this.phases[slot];
    const accepted = super.free(slot);
    if (accepted && slot >= 4 && was === Ph.refused) this.phases[slot] = Ph.refused;
    return accepted;
  }
}

/** Growth stops at 64 pages: `grow` refuses a table that has 64 already (a fixed row of 64 entries, say), and the request waits for a page forever. */
class GrowthStopsAt64 extends SteppingPool {
  override grow(slot: number): boolean {
    if ((this.lengths[this.slotIndex(slot)] ?? 0) >= 64) return false;
    return super.grow(slot);
  }
}

/** The count of tokens decoded is a byte: the 257th token is written over the first, and the steps after it read a shorter table. */
class TokenCountByte extends SteppingPool {
  protected override nextSlot(s: number): number {
    const prompt = this.tokens[s] ?? 0;
    return prompt + ((super.nextSlot(s) - prompt) & 0xff);
  }
}

/** The tree's lock_ref is a signed byte: a node unlocked 129 times more than it was locked wraps to 127, and looks locked to eviction. */
class NodeLockByte extends RadixPool {
  /** Every node's count as a signed byte would hold it. */
  private wrap(): void {
    for (let p = 0; p < this.nodeLock.length; p++) this.nodeLock[p] = ((this.nodeLock[p] ?? 0) << 24) >> 24;
  }

  protected override unlock(s: number): void {
    super.unlock(s);
    this.wrap();
  }

  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    const ok = super.allocate(slot, length, prefix, tokens);
    this.wrap();
    return ok;
  }
}

/** Every scale mutant, with the variant whose runs reach its code path. */
export const SCALE_MUTANTS: readonly ScaleMutant[] = [
  { name: 'owner-check-first-32-pages', defect: 'the owner check inspects only the first 32 pages of a table', make: (o) => new OwnerCheckFirst32(o), variant: 'owner-check' },
  { name: 'serial-wraps-at-255', defect: 'the generation counter wraps at 255', make: (o) => new SerialWrapsAt255(o) },
  { name: 'release-first-64-entries', defect: 'free releases only the first 64 pages of a table', make: (o) => new ReleaseFirst64(o) },
  { name: 'read-count-in-a-byte', defect: "decode's read count wraps at 256 pages", make: (o) => new ReadCountByte(o) },
  { name: 'reuse-keeps-reads', defect: "a reused slot keeps the previous admission's reads", make: (o) => new ReuseKeepsReads(o) },
  { name: 'free-hint-not-lowered', defect: "the free list's search hint is never lowered", make: (o) => new FreeHintNotLowered(o) },
  { name: 'high-slot-keeps-refused', defect: 'a slot past the 4th stays refused after its free', make: (o) => new HighSlotKeepsRefused(o), variant: 'length-fix' },
  { name: 'growth-stops-at-64-pages', defect: 'a table grows to 64 pages and no further', make: (o) => new GrowthStopsAt64(o), life: { tableGrowth: true } },
  { name: 'token-count-in-a-byte', defect: 'the count of tokens decoded wraps at 256', make: (o) => new TokenCountByte(o), life: {} },
  { name: 'node-lock-in-a-byte', defect: "the tree's lock_ref wraps below -128", make: (o: RadixPoolOptions) => (o.radix === true ? new NodeLockByte(o) : realPool(o)), tree: true },
];
