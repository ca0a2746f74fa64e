import { describe, expect, it } from 'vitest';
import { OWNER_CHECK_FAULTS } from '../../proofs/obligations.ts';
import { conformanceApart } from './apart.ts';
import { MUTANTS, mutantStepModule, pagecheckMutant, type Mutant } from './mutants.ts';

const named = (name: string): Mutant => {
  const m = MUTANTS.find((x) => x.name === name);
  if (m === undefined) throw new Error(`no mutant ${name}`);
  return m;
};

describe('`prove` on a spec that is wrong fails, at the action that is wrong', () => {
  it(
    '`prove --variant owner-check` on a spec whose decode lets a cleared tag pass: exit 1 at decode; one that records what a failing decode read disagrees at decode alone',
    async () => {
      // The first end to end, the command line bundled with the mutant; the second's encoding check alone, every kind
      // compared: past a disagreement `prove` proves the obligations of the encoding, which no mutant of spec/ changes.
      const [run, failed] = await Promise.all([
        pagecheckMutant(named('decode lets a cleared tag pass'), ['prove', '--variant', 'owner-check']),
        conformanceApart({ variant: 'owner-check', faults: [...OWNER_CHECK_FAULTS], stepFrom: await mutantStepModule(named('a failing decode still records what it read')) }),
      ]);
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/^ {2}encoding +DISAGREES/m);
      expect(run.out).toMatch(/^ {6}decode\([A-D]\):$/m);
      // only decode: every other action of the mutant is the spec's, and agrees
      expect(run.out).toMatch(/^not proved: the encoding disagrees with the spec's step at decode\([A-D]\)\.$/m);
      // the cleared tag: the spec decodes where the encoding's owner check fails the request
      expect(run.out).toMatch(/the spec's decode\([A-D]\) leads to this state, which no step of the encoding allows:\n {10}request [A-D]: decod(ed|ing);/);
      // the failing decode: at decode alone, where the spec fails the request and still fills its read set
      expect(failed.mismatches.map((x) => x.action)).toEqual([expect.stringMatching(/^decode\([A-D]\)$/)]);
      expect(failed.mismatches[0]?.story.join('\n')).toMatch(/the spec's decode\([A-D]\) leads to this state, which no step of the encoding allows:\n {2}request [A-D]: failed; .*has read (?!nothing)/);
    },
    180_000,
  );
});
