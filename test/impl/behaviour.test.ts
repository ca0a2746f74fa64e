/**
 * The pool resolves its switches from spec/behaviour.ts; on random options (every variant,
 * fault set, order, length rule and page size) it agrees with it: the owner check, the
 * silent stub, the mechanisms, the padding page, and the over-long rule on prompts of
 * every length around P's limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checksOwner, FAULTS, firstPageOf, hasMechanism, isOverLongPrompt, limitInTokens, LENGTH_RULES, stubsSilently, VARIANTS } from '../../spec/index.ts';
import { PagePool, POOL_ALLOCATORS, resolveOptions, type PoolOptions } from '../../impl/index.ts';

const options: fc.Arbitrary<PoolOptions> = fc.record({
  pages: fc.integer({ min: 1, max: 64 }),
  prefillLimit: fc.integer({ min: 0, max: 8 }),
  variant: fc.constantFrom(...VARIANTS),
  faults: fc.subarray([...FAULTS]),
  slots: fc.constant(1),
  maxLength: fc.constant(10),
  allocator: fc.constantFrom(...POOL_ALLOCATORS),
  pageSize: fc.constantFrom(1, 2, 64),
  lengthRule: fc.constantFrom(...LENGTH_RULES),
});

describe('the pool agrees with spec/behaviour.ts', () => {
  it('on 300 random options, and on every prompt length of 1 to 10 pages', () => {
    let prompts = 0;
    const property = fc.property(options, fc.integer({ min: 1, max: 10 }), fc.nat(), (o, length, cut) => {
      const b = resolveOptions(o);
      const faults = o.faults ?? [];
      expect(b.ownerCheck).toBe(checksOwner(o.variant));
      expect(b.silentStub).toBe(stubsSilently(o.variant, faults));
      expect([b.revokeWriter, b.releaseChecksHolder, b.tagCountsTokens]).toEqual([
        hasMechanism(o.variant, 'revoke-writer'),
        hasMechanism(o.variant, 'release-checks-holder'),
        hasMechanism(o.variant, 'tag-counts-tokens'),
      ]);
      expect(b.firstPage).toBe(firstPageOf(o.allocator ?? 'sorted'));
      // A prompt of `length` pages whose last page holds 1 .. pageSize tokens.
      const size = o.pageSize ?? 1;
      const tokens = (length - 1) * size + 1 + (cut % size);
      const pool = new PagePool({ ...o, pages: Math.max(o.pages, length) });
      if (!pool.allocate(0, length, undefined, tokens)) return;
      expect(pool.overLong(0)).toBe(isOverLongPrompt(tokens, limitInTokens(o.prefillLimit, size), o.lengthRule));
      prompts++;
    });
    fc.assert(property, { numRuns: 300, seed: 22 });
    expect(prompts).toBe(300);
  });
});
