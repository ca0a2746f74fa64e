import { describe, expect, it } from 'vitest';
import { check, enabledActions, type Checkable } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, incidentConfig, matrixConfig, VARIANTS } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { pagecheck } from '../support/cli.ts';

/**
 * A prefix cache that cannot evict: 2 pages, A (2 pages, prefix sys), B (2 pages). Once A
 * has put its first page into the cache and freed the other, one page is free for ever
 * and B, which needs two, waits for ever. Derived by hand: `insert` needs A decoded, so
 * the shortest way there is A's whole life with the insert before the free, 6 actions;
 * if B goes first, A still ends the same way after it (11 actions). The state counts are
 * regression pins.
 */
const STUCK = { pages: 2, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2 }] };
const STUCK_TRACE = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'free(A)'];

describe('Deadlock', () => {
  it('a prefix cache that cannot evict deadlocks: the 6-action trace', () => {
    const m = compile(configFrom(STUCK));
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 15, 6]);
    expect(r.violations.map((v) => [v.invariant, v.depth, v.trace.steps.map((s) => actionLabel(m, s.action))])).toEqual([['Deadlock', 6, STUCK_TRACE]]);
  });

  it('with the whole space explored, the same first deadlock and no other violation', () => {
    const m = compile(configFrom(STUCK));
    const r = check(checkedModel(m), { continueAfterViolation: true });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 25, 11]);
    expect(r.violations.map((v) => `${v.invariant}@${v.depth}`)).toEqual(['Deadlock@6']);
  });

  it('deadlock: false turns it off', () => {
    const r = check(checkedModel(compile(configFrom(STUCK))), { deadlock: false });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 25, 11]);
  });

  it('the configurations pinned elsewhere do not deadlock: every end state has every request finished', () => {
    for (const v of VARIANTS) {
      for (const config of [incidentConfig(v), matrixConfig(v)]) {
        const r = check(checkedModel(compile(config)), { continueAfterViolation: true });
        expect(r.violations.filter((x) => x.invariant === 'Deadlock'), `${v} ${config.requests.length}`).toEqual([]);
      }
    }
  });

  it('pagecheck check reports it and exits 1; --no-deadlock holds', async () => {
    const args = ['check', '--pages', '2', '--prefill-limit', '2', '--requests', '2:sys,2'];
    const found = await pagecheck(...args, '--json');
    expect(found.code).toBe(1);
    expect(JSON.parse(found.out)).toMatchObject({ verdict: 'violation', invariant: 'Deadlock', traceLength: 6, trace: STUCK_TRACE });
    const text = await pagecheck(...args);
    expect(text.out).toContain('no action is enabled, but B (new, needs 2 free pages) has not finished: 1 page is free; the prefix cache holds page 0 and never evicts.');
    const off = await pagecheck(...args, '--no-deadlock', '--json');
    expect([off.code, JSON.parse(off.out).verdict]).toEqual([0, 'holds']);
  });
});

describe('witnesses that cannot be vacuous', () => {
  it('on the minimal incident every reached witness was also false somewhere', () => {
    for (const v of VARIANTS) {
      const r = check(checkedModel(compile(incidentConfig(v))), { continueAfterViolation: true });
      expect(r.witnesses.filter((w) => w.reached && w.trivial).map((w) => w.name), v).toEqual([]);
      expect(r.witnesses.some((w) => w.reached)).toBe(true);
    }
  });
});

/**
 * A grid walk, (x, y) in 0..63, steps +1 in x or y; stuck at one cell (no step there and
 * not the far corner, the only legitimate end), and an invariant that fails at another.
 * Wide levels, so that many states share a batch of the search.
 */
function gridModel(stuckAt: readonly [number, number], badAt: readonly [number, number], alsoStuck: ReadonlyArray<readonly [number, number]> = []): Checkable<number> {
  const stuck = [stuckAt, ...alsoStuck];
  const next = (s: Uint8Array, i: number): Uint8Array | undefined => {
    if (stuck.some(([x, y]) => s[0] === x && s[1] === y) || s[i]! >= 63) return undefined;
    const t = s.slice();
    t[i] = s[i]! + 1;
    return t;
  };
  return {
    stateBytes: 2,
    initialStates: () => [new Uint8Array(2)],
    actions: [0, 1],
    nextState: next,
    properties: [{ name: 'NotBad', kind: 'always', holds: (s) => !(s[0] === badAt[0] && s[1] === badAt[1]) }],
    isLegitimateEnd: (s) => s[0] === 63 && s[1] === 63,
  };
}

/**
 * The states a one-state-at-a-time breadth-first search has stored when it stops, and
 * what stopped it; with the checker's rule for a deadlock (bfs.ts, `STOP_GROUP`): it
 * takes effect at the start of its group of 8 states of its level.
 */
function reference(model: Checkable<number>): [number, string] {
  const key = (s: Uint8Array): number => s[0]! * 256 + s[1]!;
  const init = model.initialStates()[0]!;
  const queue = [init];
  const seen = new Set([key(init)]);
  const enabled: number[] = [];
  const stuck = (s: Uint8Array): boolean => (enabledActions(model, s, enabled), enabled.length === 0 && !model.isLegitimateEnd!(s));
  for (let levelStart = 0, levelEnd = 1; levelStart < queue.length; levelStart = levelEnd, levelEnd = queue.length) {
    for (let group = levelStart; group < levelEnd; group += 8) {
      const members = queue.slice(group, Math.min(group + 8, levelEnd));
      if (members.some(stuck)) return [queue.length, 'Deadlock'];
      for (const s of members) {
        enabledActions(model, s, enabled);
        for (const a of enabled) {
          const t = new Uint8Array(model.nextState(s, a)!);
          if (seen.has(key(t))) continue;
          seen.add(key(t));
          queue.push(t);
          if (!model.properties[0]!.holds(t)) return [queue.length, 'NotBad'];
        }
      }
    }
  }
  return [queue.length, 'holds'];
}

describe('a search that stops stops where a one-at-a-time search would', () => {
  // Level 50 is (50,0), (49,1), ...: the stuck cell (30,20) is its state 20, in its group of states 16..23.
  it.each([
    ['deadlock alone', [30, 20], [70, 70], 'Deadlock'],
    ['a violation one level earlier', [30, 20], [29, 21], 'NotBad'],
    ["a violation found from a group before the deadlock's", [30, 20], [41, 10], 'NotBad'],
    ["a violation found from the deadlock's own group", [30, 20], [33, 18], 'Deadlock'],
    ['a violation found from a group after it', [30, 20], [20, 31], 'Deadlock'],
    ['no deadlock, a violation', [70, 70], [40, 41], 'NotBad'],
  ] as const)('%s', (_name, stuckAt, badAt, stopped) => {
    const model = gridModel(stuckAt, badAt);
    const r = check(model);
    const got = [r.distinctStates, r.violations.map((v) => v.invariant)[0] ?? 'holds'];
    expect(got).toEqual(reference(model));
    expect(got[1]).toBe(stopped);
    // What stopped it, and nothing else: not also a deadlock met later in the same batch.
    expect(r.violations.map((v) => v.invariant)).toEqual([stopped]);
  });

  it('a search that goes on after violations reports the first deadlock only, the shortest', () => {
    // stuck at (30,20), level 50, and at (10,5), level 15: the second is found first
    const r = check(gridModel([30, 20], [70, 70], [[10, 5]]), { continueAfterViolation: true });
    expect(r.violations.map((v) => `${v.invariant}@${v.depth}`)).toEqual(['Deadlock@15']);
  });
});
