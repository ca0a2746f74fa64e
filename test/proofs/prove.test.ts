import { describe, expect, it } from 'vitest';
import type { Fault } from '../../spec/index.ts';
import { OWNER_CHECK_FAULTS, prove, type ProofReport } from '../../proofs/obligations.ts';
import type { Z3Session } from '../../proofs/z3.ts';
import { proveApart, proveEachApart } from './apart.ts';
import { provePinnedApart } from './pinned.ts';
import { LENGTH_FIX_FAULTS } from './expected.ts';

// Each proof in a process of its own (apart.ts).

const failing = (report: ProofReport): string[] => report.obligations.filter((o) => o.result !== 'proved').map((o) => o.name);

describe('owner-check: Isolation ∧ TagNamesContent is inductive for any size', () => {
  // With owner-check's default faults (OWNER_CHECK_FAULTS) the whole proof, and its encoding check, is cli.test.ts's first test, end to end: not twice.
  it('proves it with each fault alone and with none', async () => {
    const sets = [[], ...OWNER_CHECK_FAULTS.map((f): Fault[] => [f])];
    // all proved: no bounded search for a counterexample first (it would find none, at about 60% of a proof's CPU)
    const reports = await proveEachApart(sets.map((faults) => ({ variant: 'owner-check', faults, checkEncoding: false, bounded: false })));
    for (const [k, faults] of sets.entries()) {
      const report = reports[k]!;
      expect({ faults, failing: failing(report) }).toEqual({ faults, failing: [] });
    }
  }, 360_000);
});

// buggy fails the same proof at decode: cli.test.ts's `buggy --json`, end to end, with decode's counterexample told in
// the spec's words (the reader decodes a page holding another request's data), not proved a second time here.

describe('length-fix: Isolation rests on seven ownership conjuncts, and only without faults', () => {
  it('proves every obligation without faults; timeout never happens', async () => {
    const report = await proveApart({ variant: 'length-fix', faults: [], checkEncoding: false, bounded: false });
    expect(failing(report)).toEqual([]);
    expect(report.obligations.filter((o) => o.vacuous).map((o) => o.name)).toEqual(['timeout', 'landData', 'landTag']);
  }, 330_000);

  it('each fault but the silent stub (and lock-underflow, which needs eviction) breaks exactly one obligation, and names the broken conjunct: a late write is possible, a stale release frees a held page, a poisoned cache page', async () => {
    // the obligation pinned to fail searched bounded first, the others only proved (pinned.ts)
    const reports = await provePinnedApart(OWNER_CHECK_FAULTS.map((fault) => ({ options: { variant: 'length-fix', faults: [fault], checkEncoding: false }, fail: LENGTH_FIX_FAULTS[fault] })));
    const broken: Record<string, string> = {};
    for (const [k, fault] of OWNER_CHECK_FAULTS.entries()) {
      const report = reports[k]!;
      expect({ fault, failing: failing(report) }).toEqual({ fault, failing: LENGTH_FIX_FAULTS[fault] });
      for (const o of report.obligations) if (o.result !== 'proved') broken[`${fault}: ${o.name}`] = o.counterexample?.violated ?? o.result;
    }
    expect(broken).toMatchObject({ 'early-free: timeout': 'NoLateWrite', 'stale-free: free': 'OwnPagesHeld', 'prefix-poison: insert': 'CacheHoldsPrefix' });
  }, 360_000);
});

describe('the prover is consulted', () => {
  it('rejects a conjunct number the invariant does not have', async () => {
    // before z3 is asked anything: in this process, with a session that throws if touched (a child would start z3 for nothing)
    const untouched = new Proxy({} as Z3Session, {
      get: () => {
        throw new Error('z3 was consulted');
      },
    });
    await expect(prove(untouched, { variant: 'owner-check', faults: [], drop: 2, checkEncoding: false })).rejects.toThrow('the tag invariant has no conjunct 2');
  });
});
