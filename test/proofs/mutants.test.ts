import { describe, expect, it } from 'vitest';
import { MUTANTS, mutantTree, pagecheckIn, removeTree, type Mutant } from './mutants.ts';

const named = (name: string): Mutant => {
  const m = MUTANTS.find((x) => x.name === name);
  if (m === undefined) throw new Error(`no mutant ${name}`);
  return m;
};

describe('`prove` on a copy of the project whose spec/ is wrong fails, at the action that is wrong', () => {
  it(
    '`prove --variant owner-check` on a spec whose decode lets a cleared tag pass, or records what a failing decode read: exit 1 at decode',
    async () => {
      const mutants = [named('decode lets a cleared tag pass'), named('a failing decode still records what it read')];
      const dirs = mutants.map(mutantTree);
      try {
        const runs = await Promise.all(dirs.map((dir) => pagecheckIn(dir, ['prove', '--variant', 'owner-check'])));
        for (const run of runs) {
          expect(run.code).toBe(1);
          expect(run.out).toMatch(/^ {2}encoding +DISAGREES/m);
          expect(run.out).toMatch(/^ {6}decode\([A-D]\):$/m);
          // only decode: every other action of the mutant is the spec's, and agrees
          expect(run.out).toMatch(/^not proved: the encoding disagrees with the spec's step at decode\([A-D]\)\.$/m);
        }
        // the cleared tag: the spec decodes where the encoding's owner check fails the request
        expect(runs[0]?.out).toMatch(/the spec's decode\([A-D]\) leads to this state, which no step of the encoding allows:\n {10}request [A-D]: decod(ed|ing);/);
        // the failing decode: the spec fails the request and still fills its read set
        expect(runs[1]?.out).toMatch(/the spec's decode\([A-D]\) leads to this state, which no step of the encoding allows:\n {10}request [A-D]: failed; .*has read (?!nothing)/);
      } finally {
        dirs.forEach(removeTree);
      }
    },
    180_000,
  );
});
