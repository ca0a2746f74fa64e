/**
 * ddmin's chunk step, on a model of one counter: a pair of actions that only go together
 * (`inc` then `dec`) can be dropped as a chunk and never one at a time, so only the chunk
 * step finds the shortest list (issue 27: `npm run mutation`'s survivor at
 * checker/shrink.ts, the chunk step's result ignored, which the single drops hid).
 */
import { describe, expect, it } from 'vitest';
import { shrinkActions, type Checkable } from '../../checker/index.ts';

// 0 inc: counter + 1 (at most 3); 1 dec: counter - 1, enabled above 0; 2 bad: sets the flag, enabled at counter 0.
const ACTIONS = ['inc', 'dec', 'bad'] as const;

/** State: [counter, flag]; the invariant NotBad is broken once `bad` ran. */
const counter: Checkable<string> = {
  stateBytes: 2,
  initialStates: () => [new Uint8Array(2)],
  actions: ACTIONS,
  nextState: (s, i) => {
    const c = s[0]!;
    if ((i === 0 && c >= 3) || (i === 1 && c === 0) || (i === 2 && c !== 0)) return undefined;
    const t = s.slice();
    if (i === 0) t[0] = c + 1;
    else if (i === 1) t[0] = c - 1;
    else t[1] = 1;
    return t;
  },
  properties: [{ name: 'NotBad', kind: 'always', holds: (s) => s[1] === 0 }],
};

const names = (actions: readonly number[]): string[] => actions.map((a) => ACTIONS[a]!);

describe('shrinkActions', () => {
  it('drops a pair that only goes together: inc, dec, bad shrinks to bad', () => {
    const start = counter.initialStates()[0]!;
    // Dropping inc alone leaves dec disabled; dropping dec alone leaves bad disabled.
    expect(names(shrinkActions(counter, start, [0, 1, 2], 'NotBad'))).toEqual(['bad']);
    // ddmin promises 1-minimal, not shortest: two nested pairs fit no chunk of its halving, and no single drop helps.
    expect(names(shrinkActions(counter, start, [0, 0, 1, 1, 2], 'NotBad'))).toEqual(['inc', 'inc', 'dec', 'dec', 'bad']);
  });

  it('cuts the walk at its first breaking state and keeps a list that is already minimal', () => {
    const start = counter.initialStates()[0]!;
    expect(names(shrinkActions(counter, start, [2, 0, 1], 'NotBad'))).toEqual(['bad']);
    expect(() => shrinkActions(counter, start, [2], 'Nothing')).toThrow(/no invariant named Nothing/);
  });
});
