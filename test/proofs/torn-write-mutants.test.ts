import { describe, expect, it } from 'vitest';
import { PROOF_FAULTS } from '../../proofs/obligations.ts';
import { conformanceApart } from './apart.ts';
import type { ActionKind } from '../../spec/index.ts';
import { LANDING_MUTANTS, mutantTree, pagecheckIn, removeTree, TORN_WRITE_MUTANTS } from './mutants.ts';

describe('prove on a copy of the project whose hardened has lost a torn-write mechanism fails', () => {
  it('without revoke-writer the invariant breaks (exit 1 at timeout); a late write that ignores it disagrees with the encoding (exit 1 at prefill)', async () => {
    const dirs = TORN_WRITE_MUTANTS.map(mutantTree);
    try {
      const [off, ignored] = await Promise.all(dirs.map((dir) => pagecheckIn(dir, ['prove', '--variant', 'hardened', '--faults', 'early-free,torn-write'])));
      expect(off?.code).toBe(1);
      expect(off?.out).toMatch(/^ {2}encoding +agrees/m);
      expect(off?.out).toMatch(/^not proved: prefill \(counterexample\), timeout \(counterexample\)\.$/m);
      expect(off?.out).toMatch(/^ {6}NoLateParts fails \(request r\d\)\.$/m);
      expect(ignored?.code).toBe(1);
      expect(ignored?.out).toMatch(/^ {2}encoding +DISAGREES/m);
      expect(ignored?.out).toMatch(/^not proved: the encoding disagrees with the spec's step at prefill\([A-D]\)/m);
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
