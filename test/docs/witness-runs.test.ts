import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { witnessRun } from '../../docs/generate/figures.ts';
import { compile, incidentConfig } from '../../spec/index.ts';

// The witness table's runs (docs/SPEC.md, "Witnesses reached") stop at a budget of states once every witness that
// applies is reached; a run that has not reached one by then searches the whole space, so that "NOT REACHED" in the
// table is never the budget's doing.
describe('a witness run of the document', () => {
  const config = incidentConfig('owner-check');
  const whole = check(checkedModel(compile(config)), { continueAfterViolation: true });

  it('keeps its budget when every witness that applies is reached within it, and says so in its command', () => {
    const run = witnessRun('capped', config, 20);
    expect(run.result.distinctStates).toBe(20);
    expect(run.result.witnesses.filter((w) => w.applies).every((w) => w.reached)).toBe(true);
    expect(run.result.witnesses.map((w) => [w.name, w.reached])).toEqual(whole.witnesses.map((w) => [w.name, w.reached]));
    expect(run.command).toMatch(/ --continue --max-states 20$/);
  });

  it('searches the whole space when a witness that applies is not reached within the budget', () => {
    const run = witnessRun('whole', config, 2);
    expect(run.result.distinctStates).toBe(whole.distinctStates);
    expect(run.result.witnesses).toEqual(whole.witnesses);
    expect(run.command).toMatch(/ --continue$/);
  });
});
