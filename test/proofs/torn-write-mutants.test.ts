import { describe, expect, it } from 'vitest';
import { PROOF_FAULTS } from '../../proofs/obligations.ts';
import { conformanceApart } from './apart.ts';
import type { ActionKind } from '../../spec/index.ts';
import { LANDING_MUTANTS, mutantChild, mutantStepModule, TORN_WRITE_MUTANTS } from './mutants.ts';
import { provePinnedApart } from './pinned.ts';

describe('prove on a spec whose hardened has lost a torn-write mechanism fails', () => {
  it('without revoke-writer the invariant breaks (at prefill and timeout, NoLateParts); a late write that ignores it disagrees with the encoding (at prefill, not at the landings)', async () => {
    const [off, ignored] = TORN_WRITE_MUTANTS;
    // The first in a child bundled with the mutant (its spec, and so the encoding it compiles, lose the mechanism), the
    // encoding checked, prefill and timeout searched bounded first and the other obligations only proved (pinned.ts);
    // the second's encoding check alone, at prefill, the part landings and handoff (a kind it does not touch): past a
    // disagreement `prove`'s obligations prove the encoding, which no mutant of spec/ changes (mutants.test.ts runs a
    // disagreeing `prove` end to end).
    const [[proof], late] = await Promise.all([
      provePinnedApart([{ options: { variant: 'hardened', faults: ['early-free', 'torn-write'] }, fail: ['prefill', 'timeout'] }], await mutantChild(off!)),
      conformanceApart({ variant: 'hardened', faults: ['early-free', 'torn-write'], kinds: ['prefill', 'landData', 'landTag', 'handoff'], stepFrom: await mutantStepModule(ignored!) }),
    ]);
    // the encoding follows the switch: it agrees with the mutant's step, and the invariant is what breaks
    expect(proof?.conformance?.mismatches).toEqual([]);
    expect(proof?.conformance?.steps).toBeGreaterThan(300);
    const broken = proof?.obligations.filter((o) => o.result !== 'proved').map((o) => `${o.name}:${o.result}:${o.counterexample?.violated ?? ''}`);
    expect(broken).toEqual(['prefill:counterexample:NoLateParts', 'timeout:counterexample:NoLateParts']);
    expect(proof?.proved).toBe(false);
    // the encoding disagrees at prefill, not where the parts land
    expect(late.mismatches.map((x) => x.action.replace(/\(.*/, ''))).toEqual(['prefill']);
    expect(late.mismatches[0]?.action).toMatch(/^prefill\([A-D]\)$/);
  }, 480_000);
});

describe('the encoding check covers the part landings: it disagrees with a spec whose landings are wrong past the third page', () => {
  it('at landData and at landTag, and nowhere else', async () => {
    const caught: string[] = [];
    for (const mutant of LANDING_MUTANTS) {
      const kinds: ActionKind[] = ['landData', 'landTag', 'handoff'];
      const report = await conformanceApart({ variant: 'hardened', faults: [...PROOF_FAULTS], kinds, stepFrom: await mutantStepModule(mutant) });
      caught.push(`${mutant.name}: ${report.mismatches.map((x) => x.action.replace(/\(.*/, '')).join(',')}`);
    }
    expect(caught).toEqual(LANDING_MUTANTS.map((m) => `${m.name}: ${m.caughtAt}`));
  }, 360_000);
});
