import { describe, expect, it } from 'vitest';
import { MECHANISMS } from '../../spec/index.ts';
import { PROOF_FAULTS } from '../../proofs/obligations.ts';
import { proveEachApart } from './apart.ts';
import { failing } from './torn-write-support.ts';
import { HOLD_WITHOUT } from './expected-torn.ts';
import type { Fault } from '../../spec/index.ts';

describe('hardened under torn writes: each mechanism and each fault', () => {
  it('each mechanism is what one obligation rests on: switched off, z3 finds the counterexample there', async () => {
    const reports = await proveEachApart(MECHANISMS.map((off) => ({ variant: 'hardened', faults: [...PROOF_FAULTS], without: [off], checkEncoding: false })));
    for (const [k, off] of MECHANISMS.entries()) {
      const report = reports[k]!;
      const broken = report.obligations.filter((o) => o.result !== 'proved').map((o) => `${o.name}:${o.counterexample?.violated ?? o.result}`);
      expect({ off, broken }).toEqual({ off, broken: HOLD_WITHOUT[off] });
    }
  }, 360_000);

  it('proves it with each fault alone and with none', async () => {
    const sets = [[], ...PROOF_FAULTS.map((f): Fault[] => [f])];
    const reports = await proveEachApart(sets.map((faults) => ({ variant: 'hardened', faults, checkEncoding: false })));
    for (const [k, faults] of sets.entries()) {
      const report = reports[k]!;
      expect({ faults, failing: failing(report) }).toEqual({ faults, failing: [] });
    }
  }, 360_000);
});
