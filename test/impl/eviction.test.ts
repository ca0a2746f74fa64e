/** The pool's prefix-cache eviction (lock counts, `evict`, fault `lock-underflow`) against the spec. */
import { describe, expect, it } from 'vitest';
import { PagePool } from '../../impl/index.ts';
import { evictionRefinement } from './eviction-refinement.ts';

// The refinement's fast sample; test/impl/eviction-long.test.ts (heavy tier) runs 3,000 each.
evictionRefinement(1_000);

describe('eviction on the pool', () => {
  it('evicts the lowest unlocked cached page of another prefix, only when the allocation is short', () => {
    const pool = new PagePool({ pages: 3, prefillLimit: 3, slots: 3, maxLength: 3, variant: 'length-fix', faults: [], prefixes: 2, eviction: true });
    expect(pool.allocate(0, 2, 0)).toBe(true);
    for (const step of [pool.prefill, pool.handoff, pool.decode, pool.insert, pool.free]) expect(step.call(pool, 0)).toBe(true);
    expect([pool.prefixPages[0], pool.locks[0], pool.freePages]).toEqual([0, 0, 2]);
    expect(pool.evict(1, 2)).toBe(false);
    expect(pool.evict(1, 3, 0)).toBe(false);
    expect(pool.evict(1, 3)).toBe(true);
    expect([pool.prefixPages[0], pool.freePages]).toEqual([-1, 3]);
    expect(pool.allocate(1, 3)).toBe(true);
  });

  it('a hit on prefix group 1 counts its cached page too: no eviction while the rest fits (a group other than 0, where "no prefix" and 0 differ)', () => {
    const pool = new PagePool({ pages: 3, prefillLimit: 3, slots: 3, maxLength: 3, variant: 'length-fix', faults: [], prefixes: 2, eviction: true });
    expect(pool.allocate(0, 2, 1)).toBe(true);
    for (const step of [pool.prefill, pool.handoff, pool.decode, pool.insert, pool.free]) expect(step.call(pool, 0)).toBe(true);
    expect([pool.prefixPages[1], pool.locks[1], pool.freePages]).toEqual([0, 0, 2]);
    expect(pool.evict(1, 3, 1)).toBe(false);
    expect(pool.evict(1, 3)).toBe(true);
  });
});
