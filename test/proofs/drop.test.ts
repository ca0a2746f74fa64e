import { describe, expect, it } from 'vitest';
import { LENGTH_FIX_INVARIANT, OWNER_CHECK_INVARIANT } from '../../proofs/invariant.ts';
import { OWNER_CHECK_FAULTS } from '../../proofs/obligations.ts';
import { provePinnedApart } from './pinned.ts';
import { LENGTH_FIX_DROPS, OWNER_CHECK_DROPS } from './expected.ts';

// Each proof in a process of its own (apart.ts); the obligations pinned to fail searched bounded first, the others only proved (pinned.ts).

describe('no conjunct is dead weight: dropping any one makes z3 find a counterexample to induction', () => {
  it('owner-check: without TagNamesContent, decode fails; the counterexample is a page whose tag claims the reader while it holds another request’s data', async () => {
    const reports = await provePinnedApart(OWNER_CHECK_INVARIANT.conjuncts.map((c) => ({ options: { variant: 'owner-check', faults: [...OWNER_CHECK_FAULTS], drop: c.id, checkEncoding: false }, fail: OWNER_CHECK_DROPS[c.id] ?? [] })));
    for (const [k, c] of OWNER_CHECK_INVARIANT.conjuncts.entries()) {
      const report = reports[k]!;
      expect(report.dropped).toEqual({ id: c.id, name: c.name });
      const failed = report.obligations.filter((o) => o.result !== 'proved');
      expect(failed.map((o) => o.name)).toEqual(OWNER_CHECK_DROPS[c.id]);
      expect(failed.every((o) => o.result === 'counterexample')).toBe(true);
    }
    // the one conjunct, dropped: decode's counterexample told in the spec's words
    const cti = reports[0]?.obligations.find((o) => o.name === 'decode')?.counterexample;
    const reader = cti?.witnesses['reader'] ?? '?';
    expect(cti?.violated).toBe('Isolation');
    expect(cti?.story.join('\n')).toMatch(new RegExp(`holds (r\\d)'s data \\(for slot \\d\\); tag ${reader}`));
  }, 330_000);

  it('length-fix: each of the seven conjuncts is needed by the obligations pinned for it (the fourth: cli.test.ts)', async () => {
    expect(LENGTH_FIX_INVARIANT.conjuncts.map((c) => c.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // conjunct 4 (SharedPageCached, decode) is cli.test.ts's `prove --variant length-fix --drop 4`, end to end: not twice
    // which obligations fail is pinned, not how: any counterexample will do (tidy: false, no search for the tidiest)
    const dropped = LENGTH_FIX_INVARIANT.conjuncts.filter((c) => c.id !== 4);
    const reports = await provePinnedApart(dropped.map((c) => ({ options: { variant: 'length-fix', faults: [], drop: c.id, checkEncoding: false, tidy: false }, fail: LENGTH_FIX_DROPS[c.id] ?? [] })));
    for (const [k, c] of dropped.entries()) {
      const report = reports[k]!;
      const failed = report.obligations.filter((o) => o.result !== 'proved');
      expect({ drop: c.name, failing: failed.map((o) => o.name) }).toEqual({ drop: c.name, failing: LENGTH_FIX_DROPS[c.id] });
      expect(failed.every((o) => o.result === 'counterexample')).toBe(true);
    }
  }, 360_000);
});
