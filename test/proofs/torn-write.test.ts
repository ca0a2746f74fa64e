import { describe, expect, it } from 'vitest';
import { configFrom, matrixConfig } from '../../spec/index.ts';
import { HOLD_INVARIANT } from '../../proofs/invariant.ts';
import { PROOF_FAULTS } from '../../proofs/obligations.ts';
import { provePinnedApart } from './pinned.ts';
import { failing } from './torn-write-support.ts';
import { checkReachableApart } from './universe-run.ts';
import { HOLD_DROPS } from './expected-torn.ts';

describe('hardened under torn writes: the hold invariant is inductive for any size, every fault on', () => {
  // The whole proof (all 11 obligations proved, none vacuously) and its encoding check are cli.test.ts's `hardened --json`, end to end: not twice.
  it('no conjunct is dead weight: dropping any one makes z3 find a counterexample to induction', async () => {
    const found: Record<number, string[]> = {};
    // the obligations pinned to fail searched bounded first, the others only proved (pinned.ts); which fail is pinned, not how: any counterexample will do
    const reports = await provePinnedApart(HOLD_INVARIANT.conjuncts.map((c) => ({ options: { variant: 'hardened', faults: [...PROOF_FAULTS], drop: c.id, checkEncoding: false, tidy: false }, fail: HOLD_DROPS[c.id] ?? [] })));
    for (const [k, c] of HOLD_INVARIANT.conjuncts.entries()) {
      const report = reports[k]!;
      expect(report.obligations.filter((o) => o.result === 'unknown')).toEqual([]);
      found[c.id] = failing(report);
    }
    expect(found).toEqual(HOLD_DROPS);
  }, 360_000);

  it('the executable invariant holds on every reachable state of hardened with every fault, and breaks on owner-check', () => {
    const acceptance = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'hardened', faults: [...PROOF_FAULTS], decodeSteps: 2 });
    // regression pins, counted by enumerate.ts's own breadth-first search (no symmetry), in a plain Node process
    const [hardened, accepted, owner] = checkReachableApart([matrixConfig('hardened', [...PROOF_FAULTS]), acceptance, matrixConfig('owner-check', ['early-free', 'torn-write'])]);
    expect(hardened).toEqual({ states: 26996, breaches: [] });
    expect(accepted).toEqual({ states: 27492, breaches: [] });
    expect(owner?.states).toBe(7640);
    expect((owner?.breaches ?? []).some((b) => b.parts.includes('NoLateParts'))).toBe(true);
  }, 60_000);
});
