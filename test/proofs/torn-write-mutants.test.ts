import { describe, expect, it } from 'vitest';
import { PROOF_FAULTS } from '../../proofs/obligations.ts';
import { conformanceApart } from './apart.ts';
import type { ActionKind, Fault } from '../../spec/index.ts';
import { LANDING_MUTANTS, mutantChild, mutantStepModule, TORN_WRITE_MUTANTS } from './mutants.ts';
import { provePinnedApart } from './pinned.ts';

describe('prove on a spec whose hardened has lost a torn-write mechanism fails', () => {
  it('without revoke-writer the invariant breaks (at prefill and timeout, NoLateParts); a late write that ignores it disagrees with the encoding (at prefill, not at the landings)', async () => {
    const [off, ignored] = TORN_WRITE_MUTANTS;
    // The first in a child bundled with the mutant (its spec, and so the encoding it compiles, lose the mechanism): prefill
    // and timeout searched bounded first and the other obligations only proved (pinned.ts); its encoding checked apart, at
    // the kinds whose encoding reads the mechanism (prefill and stub post a write that lands or not, timeout leaves the
    // request landed or landing), the landings where such a write's parts land, and handoff, which it does not touch: the
    // other kinds' relations are hardened's, which cli.test.ts checks whole (with every fault). The second's encoding check alone, at prefill, the part
    // landings and handoff: past a disagreement `prove`'s obligations prove the encoding, which no mutant of spec/ changes
    // (mutants.test.ts runs a disagreeing `prove` end to end).
    const faults: Fault[] = ['early-free', 'torn-write'];
    const child = await mutantChild(off!);
    const [[proof], follows, late] = await Promise.all([
      provePinnedApart([{ options: { variant: 'hardened', faults, checkEncoding: false }, fail: ['prefill', 'timeout'] }], child),
      conformanceApart({ variant: 'hardened', faults, kinds: ['prefill', 'stub', 'timeout', 'landData', 'landTag', 'handoff'] }, child),
      conformanceApart({ variant: 'hardened', faults, kinds: ['prefill', 'landData', 'landTag', 'handoff'], stepFrom: await mutantStepModule(ignored!) }),
    ]);
    // the encoding follows the switch: it agrees with the mutant's step, and the invariant is what breaks
    expect(follows.mismatches).toEqual([]);
    expect(follows.steps).toBeGreaterThan(300);
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
