/**
 * PageRuns.filter (conformance/pages.ts): the ids from the `skip`-th on that pass the test,
 * at most `limit`. npm run mutation's seed-28 sample found its limit (line 72: `>=` made
 * `>` or the early return removed) checked by no test of conformance/.
 */
import { describe, expect, it } from 'vitest';
import { PageRuns } from '../../conformance/pages.ts';

const runs = PageRuns.from([[0, 3], 7, [10, 12]]);

describe('PageRuns.filter', () => {
  it('skips, filters and stops at the limit, across runs', () => {
    if (!(runs instanceof PageRuns)) throw new Error(`not page runs: ${JSON.stringify(runs)}`);
    expect(runs.filter(0, 100, () => true)).toEqual([0, 1, 2, 3, 7, 10, 11, 12]);
    expect(runs.filter(0, 3, () => true)).toEqual([0, 1, 2]);
    expect(runs.filter(2, 3, (p) => p % 2 === 1)).toEqual([3, 7, 11]);
    expect(runs.filter(5, 1, () => true)).toEqual([10]);
  });
});
