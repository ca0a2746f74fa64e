/** The pool's prefix-cache eviction (lock counts, `evict`, fault `lock-underflow`) against the spec. */
import { describe, expect, it } from 'vitest';
import { PagePool, runMbt, type PoolOptions } from '../../impl/index.ts';

/** A pool that counts the evictions it made. */
class CountingPool extends PagePool {
  static evictions = 0;
  override evict(slot: number, length: number, prefix?: number): boolean {
    const done = super.evict(slot, length, prefix);
    if (done) CountingPool.evictions++;
    return done;
  }
}

const counting = (o: PoolOptions): PagePool => new CountingPool(o);

describe('eviction on the pool', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s: refines the spec on 3,000 random configurations, eviction on or off, every order and fault', (variant) => {
    CountingPool.evictions = 0;
    const result = runMbt({ variant, runs: 3_000, seed: 12, isolation: false, allocators: ['sorted', 'sglang', 'lifo'], eviction: true, makePool: counting });
    expect(result.failure?.message).toBeUndefined();
    expect(CountingPool.evictions).toBeGreaterThan(50);
  }, 60_000);

  it('lock-underflow with eviction: the pool refines the spec, leaks and all, and owner-check keeps Isolation', () => {
    CountingPool.evictions = 0;
    const buggy = runMbt({ variant: 'buggy', faults: ['lock-underflow', 'silent-stub'], runs: 3_000, seed: 13, isolation: false, eviction: true, makePool: counting });
    expect(buggy.failure?.message).toBeUndefined();
    expect(CountingPool.evictions).toBeGreaterThan(50);
    const owner = runMbt({ variant: 'owner-check', faults: ['lock-underflow', 'silent-stub'], runs: 3_000, seed: 13, eviction: true });
    expect(owner.failure?.message).toBeUndefined();
  }, 60_000);

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
