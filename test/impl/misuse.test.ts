/**
 * Two programming-error checks of impl/ that npm run mutation's seed-29 sample found
 * checked by no test of test/impl: FreeSet.copyFrom refuses a set of another size (the
 * validator forks states with it; a smaller one would be copied in part, silently), and
 * resolveOptions names the field of a bad prefill limit.
 */
import { describe, expect, it } from 'vitest';
import { FreeSet } from '../../impl/free-set.ts';
import { PagePool, resolveOptions } from '../../impl/index.ts';

describe('FreeSet.copyFrom', () => {
  it('copies a set of the same size, and refuses one of another size either way', () => {
    const from = new FreeSet(40);
    for (const p of [0, 5, 33]) from.remove(p);
    const into = new FreeSet(40);
    into.copyFrom(from);
    expect([into.count, into.has(5), into.has(33), into.has(34)]).toEqual([37, false, false, true]);
    expect(() => new FreeSet(64).copyFrom(new FreeSet(8))).toThrow(new RangeError('FreeSet.copyFrom: sizes 8 and 64 differ'));
    expect(() => new FreeSet(8).copyFrom(new FreeSet(64))).toThrow(new RangeError('FreeSet.copyFrom: sizes 64 and 8 differ'));
  });
});

describe('resolveOptions on a bad size', () => {
  it('names the field and the value', () => {
    expect(() => resolveOptions({ pages: 4, prefillLimit: -1, slots: 1, maxLength: 1, variant: 'buggy' })).toThrow(new RangeError('PoolOptions.prefillLimit: expected a whole number >= 0, got -1'));
    expect(() => resolveOptions({ pages: 4, prefillLimit: 1.5, slots: 1, maxLength: 1, variant: 'buggy' })).toThrow('PoolOptions.prefillLimit: expected a whole number >= 0, got 1.5');
  });
});

/**
 * allocate's tokens must need exactly the pages asked for: npm run mutation's seed-40
 * sample found the check (impl/pool.ts) caught by no test of test/impl, since every
 * caller passes tokens it derived from the length.
 */
describe('PagePool.allocate with tokens', () => {
  const pool = (): PagePool => new PagePool({ pages: 8, prefillLimit: 4, slots: 2, maxLength: 3, variant: 'buggy', pageSize: 4 });

  it('takes a prompt of 5 to 8 tokens as 2 pages of 4, and refuses 4, 9 and 5.5 naming them', () => {
    const p = pool();
    expect(p.allocate(0, 2, undefined, 5)).toBe(true);
    expect(p.allocate(1, 2, undefined, 8)).toBe(true);
    for (const tokens of [4, 9, 5.5]) {
      expect(() => pool().allocate(0, 2, undefined, tokens)).toThrow(new RangeError(`allocate: ${tokens} tokens do not need exactly 2 pages of 4`));
    }
  });
});
