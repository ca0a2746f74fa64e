/**
 * ServingPool.resume with too few free pages (impl/serving-pool.ts): refused under every
 * allocation order, the pool left as it was. Under `sorted` the pool keeps no free list
 * object, so the refusal must not touch one; npm run mutation's seed-29 sample found that
 * branch reached by no test of test/impl (`this.freeList?.refuse` made `.refuse`).
 */
import { describe, expect, it } from 'vitest';
import { ServingPool } from '../../impl/index.ts';

/** 5 pages of 2 tokens, two slots, growth and retraction on. */
const poolOf = (allocator: 'sorted' | 'sglang' | 'lifo'): ServingPool =>
  new ServingPool({ pages: 5, prefillLimit: 5, prefillTokens: 10, variant: 'owner-check', faults: [], slots: 2, maxLength: 5, allocator, pageSize: 2, tableGrowth: true, retraction: true });

describe('resume with too few free pages', () => {
  it.each(['sorted', 'sglang', 'lifo'] as const)('%s: A retracted, B takes every page, A cannot resume', (allocator) => {
    const pool = poolOf(allocator);
    expect([pool.allocate(0, 2, undefined, 4), pool.prefill(0), pool.handoff(0), pool.decode(0), pool.retract(0)]).toEqual([true, true, true, true, true]);
    expect(pool.freePages).toBe(5);
    expect([pool.allocate(1, 5, undefined, 10), pool.freePages]).toEqual([true, 0]);
    expect([pool.resume(0), pool.freePages, pool.lengths[0]]).toEqual([false, 0, 2]);
  });
});
