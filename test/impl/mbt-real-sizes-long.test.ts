/**
 * The pool against the spec at real sizes, the heavy tier's share (vitest.config.ts): more
 * configurations and other seeds than mbt-real-sizes.test.ts's sample, and `Isolation`
 * asserted on the variants that hold it (owner-check, hardened, every fault drawn).
 */
import { describe, expect, it } from 'vitest';
import { mbtAtRealSizes, reportRun } from './mbt-real-sizes.ts';

describe('model-based test at real sizes: the pool refines the spec', () => {
  it.each([22, 4096])('seed %i: 1,000 configurations, every variant', { timeout: 900_000 }, (seed) => {
    const r = mbtAtRealSizes(seed, 1_000, false);
    reportRun(`mbt at real sizes (heavy tier, seed ${seed})`, r);
    expect(r.stats.configs).toBe(1_000);
    // Every event of the pool but the poisoned insert (fault prefix-poison, which the generator does not draw) fires at these sizes.
    for (const [event, count] of Object.entries(r.events)) if (event !== 'poisoned-insert') expect(count, event).toBeGreaterThan(0);
  });

  it('seed 5: 500 configurations of owner-check and hardened, Isolation holds', { timeout: 900_000 }, () => {
    const r = mbtAtRealSizes(5, 500, true);
    reportRun('mbt at real sizes, Isolation (heavy tier, seed 5)', r);
    expect(Object.keys(r.stats.variants).sort()).toEqual(['hardened', 'owner-check']);
  });
});
