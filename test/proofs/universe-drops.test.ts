import { describe, expect, it } from 'vitest';
import { OWNER_CHECK_FAULTS } from '../../proofs/obligations.ts';
import { LENGTH_FIX_DROPS, LENGTH_FIX_FAULTS } from './expected.ts';
import { checkUniverses } from './universe-run.ts';

const kinds = (brokenBy: object): string[] => Object.keys(brokenBy).sort();

describe('the executable spec agrees with z3 on what fails, obligation for obligation', () => {
  it('length-fix with one fault: the steps that break the invariant are of the kinds z3 finds', () => {
    const results = checkUniverses(OWNER_CHECK_FAULTS.map((f) => ({ variant: 'length-fix', faults: [f], prefillLimit: 1 })));
    expect(results.map((r) => kinds(r.brokenBy))).toEqual(OWNER_CHECK_FAULTS.map((f) => [...LENGTH_FIX_FAULTS[f]].sort()));
    // the silent stub is off under length-fix whatever the faults say: the fix's own universe, prefill limit 1
    expect(results[0]).toMatchObject({ candidates: 8_650_752, satisfying: 119_968, transitions: 59_648, breaches: [] });
  }, 180_000);

  it('length-fix with a conjunct dropped: the steps that break the weakened invariant are of the kinds z3 finds', () => {
    const drops = Object.keys(LENGTH_FIX_DROPS).map(Number);
    const results = checkUniverses(drops.map((drop) => ({ variant: 'length-fix', faults: [], prefillLimit: 2, drop })));
    expect(results.map((r) => kinds(r.brokenBy))).toEqual(drops.map((d) => [...(LENGTH_FIX_DROPS[d] ?? [])].sort()));
  }, 180_000);
});
