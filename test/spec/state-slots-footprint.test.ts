/**
 * The footprints of D's state slots and metadata rows (spec/footprint.ts's `POOL_FOOTPRINTS`)
 * against the spec, and partial-order reduction against the plain search, with
 * `--state-slots`: the draws of test/spec/footprint.test.ts and
 * test/binding/por-agreement.test.ts leave the switch off (test/support/small-configs.ts),
 * so these configurations are checked here, every reachable state and every action.
 */
import { describe, expect, it } from 'vitest';
import { allActions, compile, configFrom, initial, INVARIANTS, step, WITNESSES, type Config, type Fault, type Model, type State, type Variant } from '../../spec/index.ts';
import { keyOf } from '../checker/orbits.ts';
import { bytesOf, localGuardProblems, undeclaredPropertyReads, undeclaredReads, undeclaredWrites } from './footprint-check.ts';
import { agreement } from '../binding/por-agreement.ts';

/** Every reachable state of `m`, breadth-first. */
function explore(m: Model): State[] {
  const actions = allActions(m);
  const seen = new Set<string>([keyOf(initial(m))]);
  const states = [initial(m)];
  for (let k = 0; k < states.length; k++) {
    for (const a of actions) {
      const t = step(m, states[k]!, a);
      if (t === undefined || seen.has(keyOf(t))) continue;
      seen.add(keyOf(t));
      states.push(t);
    }
  }
  return states;
}

/** 3 pages, prefill limit 2, requests 2,1 (2 pages, requests 1,1 when `small`), with the slots and `faults`. */
const slotted = (variant: Variant, faults: readonly Fault[], small = false): Config => ({
  ...configFrom({ pages: small ? 2 : 3, prefillLimit: 2, requests: small ? [{ length: 1 }, { length: 1 }] : [{ length: 2 }, { length: 1 }], variant, faults: [...faults] }),
  stateSlots: true,
});

const CONFIGS: readonly Config[] = [
  slotted('buggy', ['state-slot-reuse', 'metadata-collision']),
  slotted('owner-check', ['state-slot-reuse', 'metadata-collision', 'torn-write', 'early-free']),
  slotted('hardened', ['state-slot-reuse', 'metadata-collision', 'torn-write', 'stale-free']),
  slotted('owner-check', ['state-slot-reuse', 'metadata-collision', 'premature-success', 'torn-write'], true),
];

describe('with --state-slots', () => {
  it('no undeclared write, read or property read, in every reachable state of four configurations (every action tried)', () => {
    const problems: string[] = [];
    let tried = 0;
    for (const config of CONFIGS) {
      const m = compile(config);
      const map = bytesOf(m);
      const states = explore(m);
      for (let k = 0; k < states.length; k++) {
        const s = states[k]!;
        const other = states[(k * 7 + 3) % states.length]!;
        for (const a of allActions(m)) {
          tried++;
          problems.push(...undeclaredReads(m, map, s, other, a), ...localGuardProblems(m, map, s, other, a));
          const t = step(m, s, a);
          if (t === undefined) continue;
          problems.push(...undeclaredWrites(m, map, s, a, t), ...undeclaredPropertyReads(m, map, [...INVARIANTS, ...WITNESSES], s, a, t));
        }
      }
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expect(tried).toBeGreaterThan(0);
  }, 120_000);

  it('partial-order reduction agrees with the plain search on each', () => {
    for (const config of CONFIGS) expect(agreement(config, { continueAfterViolation: true }).difference, JSON.stringify(config.faults)).toBeUndefined();
  }, 120_000);
});
