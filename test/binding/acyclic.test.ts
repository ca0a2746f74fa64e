/**
 * The state graph is acyclic in every configuration family but retraction's (issue 26,
 * item 1): partial-order reduction here is sound only on an acyclic graph
 * (binding/por.ts, docs/POR.md), and retraction, whose `retract` and `resume` can bring a
 * request back to a state it was in, is where the model offers none. A depth-first search
 * with three colours over the whole reachable graph (no symmetry, no reduction) finds a
 * back edge exactly when there is a cycle.
 */
import { describe, expect, it } from 'vitest';
import { porOffReason } from '../../binding/por.ts';
import { allActions, compile, configFrom, FAULTS, initial, step, VARIANTS, type Config, type State } from '../../spec/index.ts';
import { keyOf } from '../checker/orbits.ts';
import { smallConfigs } from '../support/small-configs.ts';

/** A cycle of `config`'s whole state graph as action labels from a state on it, or `undefined` when it has none; throws past `budget` states. */
export function cycleOf(config: Config, budget = 200_000): string[] | undefined {
  const m = compile(config);
  const actions = allActions(m);
  // 1: on the current path; 2: done.
  const colour = new Map<string, number>();
  const stack: { s: State; key: string; next: number; via: string }[] = [];
  const push = (s: State, via: string): void => {
    const key = keyOf(s);
    colour.set(key, 1);
    stack.push({ s, key, next: 0, via });
    if (colour.size > budget) throw new Error(`cycleOf: more than ${budget} states`);
  };
  push(initial(m), '');
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next === actions.length) {
      colour.set(top.key, 2);
      stack.pop();
      continue;
    }
    const a = actions[top.next++]!;
    const t = step(m, top.s, a);
    if (t === undefined) continue;
    const c = colour.get(keyOf(t));
    const label = `${a.kind}(${m.config.requests[a.r]!.name})`;
    if (c === 1) return [...stack.slice(stack.findIndex((e) => e.key === keyOf(t)) + 1).map((e) => e.via), label];
    if (c === undefined) push(t, label);
  }
  return undefined;
}

const base = { pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }, { length: 1 }] };
const prefixed = { pages: 3, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }, { length: 2 }] };

describe('the state graph has no cycle, but under retraction', () => {
  it('every variant with every fault, on the incident and on a prefix cache', () => {
    for (const variant of VARIANTS) {
      for (const fault of FAULTS) {
        expect(cycleOf(configFrom({ ...base, variant, faults: fault === 'silent-stub' ? [fault] : [fault, 'silent-stub'] })), `${variant} ${fault}`).toBeUndefined();
        expect(cycleOf(configFrom({ ...prefixed, variant, faults: [fault] })), `${variant} ${fault} prefix`).toBeUndefined();
      }
    }
  }, 120_000);

  it('every allocator, token slots, decode steps, table growth, eviction, long prefixes, torn writes', () => {
    const families: Config[] = [
      ...(['sorted', 'sglang', 'lifo'] as const).map((allocator) => configFrom({ ...base, allocator, faults: ['double-free', 'stale-free'] })),
      configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], allocator: 'any', faults: ['double-free'] }),
      configFrom({ ...base, pageSize: 2, requests: [{ length: 3 }, { length: 2 }], decodeSteps: 3, tableGrowth: true, variant: 'hardened', faults: ['torn-write', 'early-free'] }),
      configFrom({ ...prefixed, eviction: true, faults: ['lock-underflow', 'prefix-poison'] }),
      configFrom({ pages: 4, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }, { length: 3, prefix: 'sys' }], prefixPages: { sys: 2 }, eviction: true }),
      // The radix tree: an eviction frees a leaf, and nothing puts it back but an insert, which moves its request's phase.
      configFrom({ ...prefixed, eviction: true, radix: true, faults: ['lock-underflow', 'prefix-poison'] }),
      configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }, { length: 3, prefix: 'sys' }, { length: 2 }], prefixPages: { sys: 2 }, eviction: true, radix: true, variant: 'hardened', faults: ['lock-underflow', 'stale-free', 'torn-write'] }),
    ];
    for (const c of families) expect(cycleOf(c), JSON.stringify(c)).toBeUndefined();
  }, 60_000);

  it('retraction has cycles: retract, resume, and the request is back where it was', () => {
    const c = configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }], variant: 'length-fix', retraction: true });
    expect(cycleOf(c)).toEqual(['retract(A)', 'resume(A)']);
    expect(porOffReason(compile(c))).toMatch(/^retraction makes the state graph cyclic/);
  });

  it('on 150 seeded random small configurations: a cycle exactly where retraction is on and is taken', () => {
    let cyclic = 0;
    let acyclic = 0;
    for (const c of smallConfigs(2602, 150)) {
      const cycle = cycleOf(c);
      if (cycle === undefined) acyclic++;
      else cyclic++;
      // Without retraction there is none; with it, a cycle is a retraction and its resume.
      if (c.retraction !== true) expect(cycle, JSON.stringify(c)).toBeUndefined();
      else if (cycle !== undefined) expect(cycle.some((l) => l.startsWith('resume(')), JSON.stringify(c)).toBe(true);
    }
    expect([acyclic, cyclic]).toEqual([124, 26]);
  }, 120_000);
});
