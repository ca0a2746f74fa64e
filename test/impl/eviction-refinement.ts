/**
 * The pool's prefix-cache eviction against the spec on random configurations (lock counts,
 * `evict`, fault `lock-underflow`): the fast tier runs a sample
 * (test/impl/eviction.test.ts), the heavy tier the full count
 * (test/impl/eviction-long.test.ts), from one definition.
 */
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

/** Declares the refinement tests with `runs` random runs each; every one must evict at least once per 60 runs. */
export function evictionRefinement(runs: number): void {
  describe(`eviction on the pool: the spec refined on ${runs} random runs each`, () => {
    it.each(['buggy', 'length-fix', 'owner-check'] as const)(`%s: refines the spec on ${runs} random configurations, eviction on or off, every order and fault`, (variant) => {
      CountingPool.evictions = 0;
      const result = runMbt({ variant, runs, seed: 12, isolation: false, allocators: ['sorted', 'sglang', 'lifo'], eviction: true, makePool: counting });
      expect(result.failure?.message).toBeUndefined();
      expect(CountingPool.evictions).toBeGreaterThan(runs / 60);
    }, 60_000);

    it('lock-underflow with eviction: the pool refines the spec, leaks and all, and owner-check keeps Isolation', () => {
      CountingPool.evictions = 0;
      const buggy = runMbt({ variant: 'buggy', faults: ['lock-underflow', 'silent-stub'], runs, seed: 13, isolation: false, eviction: true, makePool: counting });
      expect(buggy.failure?.message).toBeUndefined();
      expect(CountingPool.evictions).toBeGreaterThan(runs / 60);
      const owner = runMbt({ variant: 'owner-check', faults: ['lock-underflow', 'silent-stub'], runs, seed: 13, eviction: true });
      expect(owner.failure?.message).toBeUndefined();
    }, 60_000);
  });
}
