import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { CONJOINED, conjunctionOf } from '../../spec/fast-properties.ts';
import { fastSuccessorsOf, inFastFamily } from '../../spec/fast-successors.ts';
import { ScratchState } from '../../checker/scratch.ts';
import { allActions, checkedModel, compile, configFrom, incidentConfig, matrixConfig, step, type Config, type State } from '../../spec/index.ts';
import { keyOf, reachable } from './orbits.ts';

const requests = (lengths: readonly number[]) => lengths.map((length) => ({ length }));

/** Configurations of the fast family, with their reachable states (no symmetry; regression pins, the same as `check --no-symmetry` gives). */
const FAMILY: readonly (readonly [string, Config, number])[] = [
  ['minimal incident, buggy (silent stub)', incidentConfig('buggy'), 21],
  ['minimal incident, length-fix', incidentConfig('length-fix'), 16],
  ['4 pages, requests 1,2,3, buggy', configFrom({ pages: 4, prefillLimit: 2, requests: requests([1, 2, 3]), variant: 'buggy' }), 363],
  ['5 pages, requests 1,2,2,3, length-fix, rule ge', configFrom({ pages: 5, prefillLimit: 3, requests: requests([1, 2, 2, 3]), variant: 'length-fix', lengthRule: 'ge' }), 4759],
  ['4 pages, requests 2,2,4, buggy, no faults', configFrom({ pages: 4, prefillLimit: 3, requests: requests([2, 2, 4]), variant: 'buggy', faults: [] }), 156],
];

/** Every successor of `s` as the readable spec gives it: `step` over `allActions`, in order. */
function specSuccessors(m: ReturnType<typeof compile>, s: State): string[] {
  const out: string[] = [];
  allActions(m).forEach((a, i) => {
    const t = step(m, s, a);
    if (t !== undefined) out.push(`${i}:${keyOf(t)}`);
  });
  return out;
}

describe('the fast successors agree with the spec on every reachable state', () => {
  it.each(FAMILY)('%s', { timeout: 60_000 }, (_name, config, expected) => {
    const m = compile(config);
    expect(inFastFamily(m)).toBe(true);
    const fast = fastSuccessorsOf(m)!;
    const states = reachable(m);
    expect(states.length).toBe(expected);
    const scratch = new ScratchState(m.size);
    let successors = 0;
    for (const s of states) {
      scratch.set(s);
      const got: string[] = [];
      fast(scratch, (t, a) => got.push(`${a}:${keyOf(t)}`));
      expect(got).toEqual(specSuccessors(m, s));
      successors += got.length;
    }
    // Every state but the finished ones has a successor, so the comparison is not vacuous.
    expect(successors).toBeGreaterThanOrEqual(states.length - 1);
    // The search through the fast form finds the same states.
    expect(check(checkedModel(m), { symmetry: false, continueAfterViolation: true }).distinctStates).toBe(expected);
  });

  it('the naive encoding (dead tables kept) agrees too', { timeout: 60_000 }, () => {
    const m = compile(incidentConfig('buggy'), { keepDeadState: true });
    const fast = fastSuccessorsOf(m)!;
    const scratch = new ScratchState(m.size);
    for (const s of reachable(m)) {
      scratch.set(s);
      const got: string[] = [];
      fast(scratch, (t, a) => got.push(`${a}:${keyOf(t)}`));
      expect(got).toEqual(specSuccessors(m, s));
    }
  });

  // The family's conjunction (fast-properties.ts) on reachable states and on every one-byte change of a page's holder or a table entry of them, which break the invariants in many ways.
  it.each(FAMILY.slice(0, 3))('the conjunction agrees with the invariants: %s', { timeout: 60_000 }, (_name, config) => {
    const m = compile(config);
    const holds = conjunctionOf(m).holds;
    const spec = (s: State): boolean => CONJOINED.every((p) => p.holds(m, s));
    let broken = 0;
    let checked = 0;
    for (const s of reachable(m)) {
      const variants = [s];
      const bytes = [...Array.from({ length: m.pages }, (_, p) => m.holderAt + p), ...Array.from({ length: m.len.reduce((a, b) => a + b, 0) }, (_, k) => m.tableAt[0]! + k)];
      for (const at of bytes) {
        for (const v of [0, 1, m.n, m.n + 1, 0xff]) {
          const t = s.slice();
          t[at] = v;
          variants.push(t);
        }
      }
      for (const t of variants) {
        const want = spec(t);
        expect(holds(t), keyOf(t)).toBe(want);
        if (!want) broken++;
        checked++;
      }
    }
    expect(broken).toBeGreaterThan(checked / 10);
  });

  it('a configuration outside the family gets the expanders', () => {
    const outside: Config[] = [
      matrixConfig('buggy'),
      { ...incidentConfig('buggy'), allocator: 'sglang' },
      { ...incidentConfig('buggy'), pageSize: 2 },
      { ...incidentConfig('buggy'), decodeSteps: 2 },
      incidentConfig('buggy', ['silent-stub', 'early-free']),
      incidentConfig('owner-check'),
    ];
    for (const c of outside) expect(fastSuccessorsOf(compile(c)), JSON.stringify(c)).toBeUndefined();
  });
});
