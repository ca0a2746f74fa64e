import { describe, expect, it } from 'vitest';
import { PROOF_FAULTS } from '../../proofs/obligations.ts';
import { conformanceApart } from './apart.ts';
import type { ActionKind } from '../../spec/index.ts';
import { LANDING_MUTANTS, mutantTree, pagecheckIn, removeTree, TORN_WRITE_MUTANTS } from './mutants.ts';

describe('prove on a copy of the project whose hardened has lost a torn-write mechanism fails', () => {
  it('without revoke-writer the invariant breaks (exit 1 at timeout); a late write that ignores it disagrees with the encoding (at prefill, nowhere else)', async () => {
    const dirs = TORN_WRITE_MUTANTS.map(mutantTree);
    try {
      // The first end to end; the second's encoding check alone, every kind compared: past a disagreement `prove`'s
      // obligations prove the encoding, which no mutant of spec/ changes (mutants.test.ts runs a disagreeing `prove` end to end).
      const [off, ignored] = await Promise.all([
        pagecheckIn(dirs[0]!, ['prove', '--variant', 'hardened', '--faults', 'early-free,torn-write']),
        conformanceApart({ variant: 'hardened', faults: ['early-free', 'torn-write'], stepFrom: dirs[1]! }),
      ]);
      expect(off.code).toBe(1);
      expect(off.out).toMatch(/^ {2}encoding +agrees/m);
      expect(off.out).toMatch(/^not proved: prefill \(counterexample\), timeout \(counterexample\)\.$/m);
      expect(off.out).toMatch(/^ {6}NoLateParts fails \(request r\d\)\.$/m);
      // the encoding disagrees at prefill, and only there
      expect(ignored.mismatches.map((x) => x.action.replace(/\(.*/, ''))).toEqual(['prefill']);
      expect(ignored.mismatches[0]?.action).toMatch(/^prefill\([A-D]\)$/);
    } finally {
      dirs.forEach(removeTree);
    }
  }, 480_000);
});

describe('the encoding check covers the part landings: it disagrees with a spec whose landings are wrong past the third page', () => {
  it('at landData and at landTag, and nowhere else', async () => {
    const caught: string[] = [];
    for (const mutant of LANDING_MUTANTS) {
      const dir = mutantTree(mutant);
      try {
        const kinds: ActionKind[] = ['landData', 'landTag', 'handoff'];
        const report = await conformanceApart({ variant: 'hardened', faults: [...PROOF_FAULTS], kinds, stepFrom: dir });
        caught.push(`${mutant.name}: ${report.mismatches.map((x) => x.action.replace(/\(.*/, '')).join(',')}`);
      } finally {
        removeTree(dir);
      }
    }
    expect(caught).toEqual(LANDING_MUTANTS.map((m) => `${m.name}: ${m.caughtAt}`));
  }, 360_000);
});
