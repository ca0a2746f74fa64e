/**
 * A second model, to show the checker's boundary: two processes that take two locks in
 * opposite orders (P0 takes A then B, P1 takes B then A), then release both and stop.
 * It knows nothing of pages; it implements `Checkable` in a few lines, and deadlocks
 * when each process holds its first lock.
 *
 * State: two bytes, each process's program counter: 0 idle, 1 holds its first lock,
 * 2 holds both (critical section), 3 done. Who holds a lock follows from the counters.
 */
import type { Checkable } from '../../checker/index.ts';

const LABELS = ['take1(P0)', 'take1(P1)', 'take2(P0)', 'take2(P1)', 'release(P0)', 'release(P1)'] as const;

/** Whether process `p` holds lock `l` (0 = A, 1 = B) in `s`. */
const holds = (s: Uint8Array, p: number, l: number): boolean => {
  const pc = s[p]!;
  const first = p === 0 ? 0 : 1; // P0's first lock is A, P1's is B
  return (pc === 1 || pc === 2) && (l === first || pc === 2);
};
const free = (s: Uint8Array, l: number): boolean => !holds(s, 0, l) && !holds(s, 1, l);

/** The lock model; `extraWitness` adds a property that is true everywhere, which the checker must report as trivial. */
export function locksModel(extraWitness = false): Checkable<string> {
  const next = (s: Uint8Array, i: number): Uint8Array | undefined => {
    const p = i % 2;
    const kind = Math.floor(i / 2);
    const pc = s[p]!;
    const first = p === 0 ? 0 : 1;
    const ok = kind === 0 ? pc === 0 && free(s, first) : kind === 1 ? pc === 1 && free(s, 1 - first) : pc === 2;
    if (!ok) return undefined;
    const t = s.slice();
    t[p] = pc + 1;
    return t;
  };
  return {
    stateBytes: 2,
    initialStates: () => [new Uint8Array(2)],
    actions: LABELS,
    nextState: next,
    properties: [
      { name: 'MutualExclusion', kind: 'always', holds: (s) => !(s[0] === 2 && s[1] === 2) },
      { name: 'SomeoneCritical', kind: 'sometimes', holds: (s) => s[0] === 2 || s[1] === 2 },
      ...(extraWitness ? [{ name: 'LocksExist', kind: 'sometimes' as const, holds: () => true }] : []),
    ],
    isLegitimateEnd: (s) => s[0] === 3 && s[1] === 3,
  };
}
