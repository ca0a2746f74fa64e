import { describe, expect, it } from 'vitest';
import { MUTANTS, pagecheckMutant, type Mutant } from './mutants.ts';

const named = (name: string): Mutant => {
  const m = MUTANTS.find((x) => x.name === name);
  if (m === undefined) throw new Error(`no mutant ${name}`);
  return m;
};

describe('`prove` on a spec that is wrong fails, at the action that is wrong', () => {
  it('`prove --variant owner-check` on a spec whose decode lets a cleared tag pass: exit 1 at decode, and there alone', async () => {
    // End to end, the command line bundled with the mutant. (The other mutants, among them a failing decode that still
    // records what it read, are conformance.test.ts's: the encoding check alone at the kinds they touch.)
    const run = await pagecheckMutant(named('decode lets a cleared tag pass'), ['prove', '--variant', 'owner-check']);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^ {2}encoding +DISAGREES/m);
    expect(run.out).toMatch(/^ {6}decode\([A-D]\):$/m);
    // only decode: every other action of the mutant is the spec's, and agrees
    expect(run.out).toMatch(/^not proved: the encoding disagrees with the spec's step at decode\([A-D]\)\.$/m);
    // the cleared tag: the spec decodes where the encoding's owner check fails the request
    expect(run.out).toMatch(/the spec's decode\([A-D]\) leads to this state, which no step of the encoding allows:\n {10}request [A-D]: decod(ed|ing);/);
  }, 180_000);
});
