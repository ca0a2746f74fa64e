/**
 * Injected defects of the loadback pool (impl/loadback-pool.ts), one per thing the host tier
 * adds: the load's read of the host copy, decode's wait for the load, P's write starting past
 * the loaded positions, and the eviction's skip of a copy under a load. Each must fail the
 * model-based test on random configurations with the host tier (test/impl/mbt-loadback.test.ts).
 */
import { LoadbackPool, POOL_LOAD } from '../../impl/index.ts';

/** A mutant whose load always lands the prefix's KV: it reads the host copy at posting time, not when it lands. */
export class LoadReadsAtPost extends LoadbackPool {
  override loadBack(slot: number): boolean {
    const reused = this.hostReused.slice();
    this.hostReused.fill(0);
    const accepted = super.loadBack(slot);
    this.hostReused.set(reused);
    return accepted;
  }
}

/** A mutant whose decode never waits for the load (read-before-load, always). */
export class DecodeSkipsWait extends LoadbackPool {
  override decode(slot: number): boolean {
    const load = this.load[slot] ?? POOL_LOAD.none;
    if (load === POOL_LOAD.posted) this.load[slot] = POOL_LOAD.landed;
    const accepted = super.decode(slot);
    if (load === POOL_LOAD.posted) this.load[slot] = load;
    return accepted;
  }
}

/** A mutant whose P writes the loaded prefix positions too: the write covers the whole prompt. */
export class WriteCoversLoad extends LoadbackPool {
  protected override firstWritten(s: number): number {
    const load = this.load[s] ?? POOL_LOAD.none;
    this.load[s] = POOL_LOAD.none;
    const first = super.firstWritten(s);
    this.load[s] = load;
    return first;
  }
}

/** A mutant whose host eviction ignores the loads reading the copy (host-evict-during-load, always). */
export class EvictIgnoresLoad extends LoadbackPool {
  override evictHost(prefix: number | undefined): boolean {
    const load = this.load.slice();
    this.load.fill(POOL_LOAD.none);
    const accepted = super.evictHost(prefix);
    this.load.set(load);
    return accepted;
  }
}

/**
 * Each mutant, by what it gets wrong, with the seed whose 200 random runs catch it: only a
 * named `decode` between the commit and the load's landing meets the early decode (the
 * enabled commands never pick a decode the spec refuses), which seed 62 does not draw.
 */
export const LOADBACK_MUTANTS = [
  ['reads the host copy when the load is posted, not when it lands', LoadReadsAtPost, 62],
  ['decodes before its load lands', DecodeSkipsWait, 5],
  ['lets P write the positions the load fills', WriteCoversLoad, 62],
  ['evicts a host copy a load still reads', EvictIgnoresLoad, 62],
] as const;
