import { describe, expect, it } from 'vitest';
import { compile } from '../../spec/index.ts';
import { inFastFamily } from '../../binding/successors.ts';
import { configOf, type Drawn } from '../support/real-sizes.ts';
import { agreeOn, coverage } from './agreement.ts';

/**
 * The fast fingerprints keep what each request has observed as a bit set of `ceil(n / 8)`
 * bytes. A read of an unwritten page (label 0) must add no bit; a fingerprint that added
 * one anyway (`1 << (0 - 1)`, bit 31) differs from `step` only once the set has a fourth
 * byte, at 25 requests or more, which the random draws of agreement.test.ts never reach
 * (issue 27: the survivor at binding/fast-fingerprints.ts, `(label & BYTE_LABEL) !== 0`).
 * Two pages and requests of two: one request holds the pool at a time, so the first
 * levels stay narrow and a stubbed request's decode over its unwritten second page comes
 * within the budget.
 */
describe('the fast path agrees with step at 25 requests and more (a fourth byte of observed labels)', () => {
  for (const n of [25, 32]) {
    it(`${n} requests of 2 pages on 2, stubbed past 1 page: a decode reads an unwritten page`, { timeout: 120_000 }, () => {
      const d: Drawn = { pages: 2, prefillLimit: 1, lengths: Array.from({ length: n }, () => 2), allocator: 'sorted', variant: 'buggy', faults: ['silent-stub'], prefix: false, lengthRule: 'gt' };
      expect(inFastFamily(compile(configOf(d)))).toBe(true);
      const seen = coverage();
      agreeOn(d, 3000, seen);
      expect(seen.inFamily).toBe(1);
      expect(seen.states).toBe(3000);
    });
  }
});
