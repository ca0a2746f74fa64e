/**
 * A stored path under symmetry turned into a genuine execution (checker/replay.ts), on a
 * model of two counters whose canonical form sorts them: the real execution must take, at
 * each step, an action whose successor is in the orbit of the canonical chain's next
 * state, not merely the first enabled one. npm run mutation's seed-40 sample found both
 * checks (the orbit test made always true, and the range check of an action number)
 * reached by no test of test/checker.
 */
import { describe, expect, it } from 'vitest';
import type { Checkable } from '../../checker/index.ts';
import { replayPath, runActions } from '../../checker/replay.ts';

// 0 incA, 1 incB: a counter + 1, each at most 2.
const ACTIONS = ['incA', 'incB'] as const;

/** State: [a, b]; the canonical form puts the larger counter first. */
const counters: Checkable<string> = {
  stateBytes: 2,
  initialStates: () => [new Uint8Array(2)],
  actions: ACTIONS,
  nextState: (s, i) => {
    if (s[i]! >= 2) return undefined;
    const t = s.slice();
    t[i] = s[i]! + 1;
    return t;
  },
  properties: [],
  canonicalize: (s) => (s[0]! >= s[1]! ? s : Uint8Array.of(s[1]!, s[0]!)),
};

const run = (canonical: boolean, path: readonly number[]): { actions: string[]; last: number[] } => {
  const t = replayPath(counters, canonical, new Uint8Array(2), path);
  return { actions: t.steps.map((s) => s.action), last: [...(t.steps.at(-1)?.state ?? t.initial)] };
};

describe('replayPath under symmetry', () => {
  it('takes, at each step, the action whose successor is in the chain\'s orbit', () => {
    // Canonical chain: (0,0) -incA-> (1,0) -incB-> (1,1) -incA-> (2,1). The real execution
    // from (1,0) must take incB (incA, the first enabled, leads to (2,0), another orbit).
    expect(run(true, [0, 1, 0])).toEqual({ actions: ['incA', 'incB', 'incA'], last: [2, 1] });
  });

  it('maps a stored action to its mirror where the real state is the mirror of the canonical one', () => {
    // Stored incB from (0,0) reaches (0,1), canonical (1,0); incA reaches the same orbit first.
    // Then stored incA on canonical (1,0) gives (2,0): the real (1,0) takes incA; stored incB on (2,0) gives (2,1).
    expect(run(true, [1, 0, 1])).toEqual({ actions: ['incA', 'incA', 'incB'], last: [2, 1] });
  });

  it('without symmetry runs the path as stored, and refuses an action number past the model list', () => {
    expect(run(false, [1, 1, 0])).toEqual({ actions: ['incB', 'incB', 'incA'], last: [1, 2] });
    expect(() => runActions(counters, new Uint8Array(2), [2])).toThrow('checker: no action number 2');
  });
});
