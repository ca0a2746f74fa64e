import { describe, expect, it } from 'vitest';
import { MECHANISMS } from '../../spec/index.ts';
import { prove, PROOF_FAULTS } from '../../proofs/obligations.ts';
import { failing, fresh, tornHooks } from './torn-write-support.ts';
import { HOLD_WITHOUT } from './expected-torn.ts';
import type { Fault } from '../../spec/index.ts';

tornHooks();

describe('hardened under torn writes: each mechanism and each fault', () => {
  it('each mechanism is what one obligation rests on: switched off, z3 finds the counterexample there', async () => {
    for (const off of MECHANISMS) {
      const report = await prove(await fresh(), { variant: 'hardened', faults: [...PROOF_FAULTS], without: [off], checkEncoding: false });
      const broken = report.obligations.filter((o) => o.result !== 'proved').map((o) => `${o.name}:${o.counterexample?.violated ?? o.result}`);
      expect({ off, broken }).toEqual({ off, broken: HOLD_WITHOUT[off] });
    }
  }, 120_000);

  it('proves it with each fault alone and with none', async () => {
    for (const faults of [[], ...PROOF_FAULTS.map((f): Fault[] => [f])]) {
      const report = await prove(await fresh(), { variant: 'hardened', faults, checkEncoding: false });
      expect({ faults, failing: failing(report) }).toEqual({ faults, failing: [] });
    }
  }, 120_000);

});
