import { describe, expect, it } from 'vitest';
import { PagePool, POOL_ALLOCATORS, runMbt } from '../../impl/index.ts';
import { configOf, drawnConfigOver } from '../support/real-sizes.ts';
import { mbtAtRealSizes, reportRun } from './mbt-real-sizes.ts';

/** A release that stops after the table's first 8 entries: the small random configurations (at most 6 pages) never see it. */
class ReleaseFirst8 extends PagePool {
  protected override release(s: number): void {
    const base = s * this.options.maxLength;
    this.releaseEntries(base + this.sharedPages(s), base + Math.min(this.lengths[s] ?? 0, 8));
  }
}

// The fast tier's sample; mbt-real-sizes-long.test.ts (heavy tier) runs more configurations.
describe('model-based test at real sizes: the pool refines the spec (a sample)', () => {
  it('seed 27: 100 configurations, every variant, Isolation not asked; the statistics and events pinned', () => {
    const r = mbtAtRealSizes(27, 100, false);
    reportRun('mbt at real sizes (fast tier, seed 27)', r);
    expect(r.stats).toEqual({
      configs: 100,
      pages: { 9: 16, 10: 14, 11: 15, 12: 10, 13: 11, 14: 14, 15: 8, 16: 12 },
      requestCounts: { 1: 19, 2: 41, 3: 16, 9: 8, 10: 9, 11: 7 },
      longestRequest: { 3: 1, 4: 2, 6: 1, 7: 3, 8: 1, 9: 19, 10: 29, 11: 14, 12: 11, 13: 3, 14: 5, 15: 5, 16: 6 },
      allocators: { sorted: 66, lifo: 17, sglang: 17 },
      variants: { 'length-fix': 39, hardened: 9, buggy: 44, 'owner-check': 8 },
      withPrefix: 17,
    });
    expect(r.events).toEqual({ decoded: 121, 'silent-stub': 54, refusal: 210, timeout: 13, 'late-write': 2, 'stale-release': 76, 'prefix-hit': 27, 'poisoned-insert': 0, 'failed-loudly': 8 });
  });

  it('catches a release that stops after 8 pages, which the small configurations let through', () => {
    const configs = drawnConfigOver(POOL_ALLOCATORS).map(configOf);
    const real = runMbt({ configs, maxRequests: 11, runs: 100, seed: 27, isolation: false, maxCommands: 150, makePool: (o) => new ReleaseFirst8(o) });
    expect(real.verdict).toBe('fail');
    expect(real.failure?.property).toBe('Refinement');
    const small = runMbt({ runs: 500, seed: 27, isolation: false, makePool: (o) => new ReleaseFirst8(o) });
    expect(small.verdict).toBe('pass');
  });
});
