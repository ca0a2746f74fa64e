/**
 * Injected defects of the radix pool (impl/radix-pool.ts), one per thing the tree adds: the
 * lock walk's missing floor, the partial match, the leaf's lock test at eviction and the
 * insert at the handoff. Each must fail the model-based test on random radix configurations
 * (test/impl/mbt-radix.test.ts).
 */
import { RadixPool, SlotPool } from '../../impl/index.ts';

/** A mutant whose unlock clamps `lock_ref` at 0 (the fix the docs show does not do): no node goes below 0. */
export class ClampedUnlock extends RadixPool {
  protected override unlock(s: number): void {
    super.unlock(s);
    for (let p = 0; p < this.nodeLock.length; p++) if ((this.nodeLock[p] ?? 0) < 0) this.nodeLock[p] = 0;
  }
}

/** A mutant that matches a prefix only when its whole path is cached, as the one-entry cache does: a partial match shares nothing. */
export class WholeMatchOnly extends RadixPool {
  protected override matchedPages(g: number): number {
    const d = super.matchedPages(g);
    return d === (this.prefixLengths[g] ?? 1) ? d : 0;
  }
}

/** A mutant whose eviction ignores `lock_ref`: a locked leaf goes too. */
export class EvictsLockedLeaves extends RadixPool {
  protected override evictEntry(own: number): boolean {
    const [locks, held] = [this.nodeLock.slice(), this.holder.slice()];
    this.nodeLock.fill(0);
    const evicted = super.evictEntry(own);
    // The evicted node's lock goes with it; every other page's comes back.
    for (let p = 0; p < locks.length; p++) if (!((held[p] ?? 0) < 0 && this.holder[p] === 0)) this.nodeLock[p] = locks[p] ?? 0;
    return evicted;
  }
}

/** A mutant with no insert at the handoff (`cache_unfinished_req` left out): only the insert at finish fills the tree. */
export class NoInsertAtHandoff extends RadixPool {
  override handoff(slot: number): boolean {
    return SlotPool.prototype.handoff.call(this, slot);
  }
}

/** Each mutant, by what it gets wrong. */
export const RADIX_MUTANTS = [
  ['clamps lock_ref at 0', ClampedUnlock],
  ['matches only a whole cached path', WholeMatchOnly],
  ['evicts locked leaves', EvictsLockedLeaves],
  ['does not insert at the handoff', NoInsertAtHandoff],
] as const;
