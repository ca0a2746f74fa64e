import { describe, expect, it } from 'vitest';
import { check, checkedModel, compile, formatItf, incidentConfig, replayItf, type Checkable } from 'pagecheck';

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

  it("docs/LIBRARY.md's own model, as printed there: five members, no accelerator, a 4-step counterexample", () => {
    const counter: Checkable<string> = {
      stateBytes: 1,
      initialStates: () => [new Uint8Array([0])],
      actions: ['inc'],
      nextState: (s) => (s[0]! < 5 ? Uint8Array.of(s[0]! + 1) : undefined),
      properties: [{ name: 'AtMost3', kind: 'always', holds: (s) => s[0]! <= 3 }],
    };
    expect(check(counter).violations[0]?.trace.steps.length).toBe(4);
  });
});
