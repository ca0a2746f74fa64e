import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { allPoints, cover, describe as describeSet, matches, pointKey, type Point } from '../../docs/generate/conditions.ts';

// Built before the tests, not while vitest collects the file.
let universe: readonly Point[];
beforeAll(() => {
  universe = allPoints();
});
const keys = (pred: (p: Point) => boolean): Set<string> => new Set(universe.filter(pred).map(pointKey));

describe('conditions in words', () => {
  it('spans every variant with every subset of the six faults that act without eviction (all but lock-underflow)', () => {
    expect(universe).toHaveLength(4 * 64);
    expect(new Set(universe.map(pointKey)).size).toBe(256);
    expect(universe.some((p) => p.faults.includes('lock-underflow') || p.faults.includes('auto-truncate') || p.faults.includes('segment-overlap'))).toBe(false);
  });

  it('says nothing for the whole space and names the deciding switches otherwise', () => {
    expect(describeSet(keys(() => true), universe)).toBeUndefined();
    expect(describeSet(keys((p) => p.faults.includes('early-free')), universe)).toBe('with early-free');
    expect(describeSet(keys((p) => p.variant === 'length-fix' || !p.faults.includes('silent-stub')), universe)).toBe('without silent-stub, or length-fix');
    expect(describeSet(keys((p) => p.variant === 'owner-check' && p.faults.length > 0), universe)).toBe('owner-check with any fault');
    expect(describeSet(keys((p) => p.variant !== 'length-fix' && p.faults.includes('silent-stub')), universe)).toBe('not length-fix with silent-stub');
  });

  it('uses the points it need not care about to say less', () => {
    const earlyFree = keys((p) => p.faults.includes('early-free'));
    const inside = keys((p) => p.faults.includes('early-free') && p.faults.includes('stale-free'));
    const outside = new Set(universe.map(pointKey).filter((k) => !earlyFree.has(k)));
    expect(describeSet(inside, universe)).toBe('with early-free and stale-free');
    expect(describeSet(inside, universe, outside)).toBe('with stale-free');
  });

  it('covers exactly the set it is given, for any set', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 48, maxLength: 48 }), (bits) => {
        fc.pre(bits.some((b) => b));
        const inside = new Set(universe.filter((_, i) => bits[i]).map(pointKey));
        const terms = cover(inside, universe);
        for (const p of universe) expect(terms.some((t) => matches(t, p))).toBe(inside.has(pointKey(p)));
      }),
      // Each run covers a set over the whole space (thousands of terms by 256 points): 20 random sets, not 60, keep the file a few seconds long.
      { numRuns: 20, seed: 9 },
    );
  }, 120_000);
});
