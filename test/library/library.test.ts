import { describe, expect, it } from 'vitest';
import { check, checkedModel, compile, formatItf, incidentConfig, replayItf } from 'pagecheck';

// What a user's own vitest suite does with pagecheck: import it by name, check a model,
// and keep the counterexample as a regression test.
describe('pagecheck as a library', () => {
  it('checks the minimal incident and replays its counterexample', () => {
    const m = compile(incidentConfig('buggy'));
    const result = check(checkedModel(m));
    expect([result.verdict, result.violations[0]?.invariant, result.violations[0]?.trace.steps.length]).toEqual([
      'violation',
      'Isolation',
      9,
    ]);
    const trace = result.violations[0]!.trace;
    const replayed = replayItf(JSON.parse(formatItf(m, trace, 'Isolation')));
    expect(replayed).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
  });

  it('the fixes hold on the same configuration', () => {
    for (const variant of ['length-fix', 'owner-check'] as const) {
      const result = check(checkedModel(compile(incidentConfig(variant))));
      expect([variant, result.verdict, result.witnesses.every((w) => !w.applies || w.reached)]).toEqual([variant, 'holds', true]);
    }
  });
});
