import { describe, expect, it } from 'vitest';
import type { Fault } from '../../spec/index.ts';
import { OWNER_CHECK_FAULTS, type ProofReport } from '../../proofs/obligations.ts';
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

describe('buggy: the same proof fails at decode', () => {
  // The whole proof with owner-check's faults (decode alone fails) is cli.test.ts's `buggy --json`, end to end: not twice.
  it('tells the counterexample in the spec’s words: the reader decodes a page holding another request’s data', async () => {
    const report = await proveApart({ variant: 'buggy', faults: ['silent-stub'], only: ['decode'], checkEncoding: false });
    const cti = report.obligations[0]?.counterexample;
    expect(cti?.violated).toBe('Isolation');
    const reader = cti?.witnesses['reader'] ?? '';
    // another request's data, or a prefix's at a position that is not the prefix's
    const other = /^(r\d|prefix g\d(?:\[slot [^\]]+\])?)'s data$/.exec(cti?.witnesses['label'] ?? '')?.[1];
    const position = cti?.witnesses['position'] ?? '?';
    expect(position).toMatch(/^\d$/);
    expect(reader).toMatch(/^r\d$/);
    expect(other).toMatch(/^(r\d|prefix g\d(?:\[slot [^\]]+\])?)$/);
    expect(other).not.toBe(reader);
    // A prefix's data is the reader's own only at position 0 and only for the reader's own prefix: z3 may pick either way of breaking that.
    expect(cti?.step).toBe(`decode(${reader})`);
    const story = cti?.story.join('\n') ?? '';
    // Before the step it was handed off, or is between two decode steps.
    expect(story).toMatch(new RegExp(`request ${reader}: (handedOff|decoding);`));
    // a prefix page past the first is named with its position, in brackets that a pattern must escape
    expect(story).toMatch(new RegExp(`page p\\d in its slot \\d holds ${(other ?? '').replace(/[[\]]/g, '\\$&')}'s data`));
    // one decode step: the last one (decoded) or not (decoding)
    expect(story).toMatch(new RegExp(`request ${reader}: decod(ed|ing);`));
    expect(cti?.story.at(-1)).toBe(
      `Isolation fails (reader ${reader}, position ${position}, label ${other}'s data): request ${reader} has read ${other}'s data at position ${position}, which is not its own there.`,
    );
  }, 330_000);
});

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
    await expect(proveApart({ variant: 'owner-check', faults: [], drop: 2, checkEncoding: false })).rejects.toThrow('the tag invariant has no conjunct 2');
  }, 330_000);
});
