/**
 * The footprints of D's state slots and metadata rows (spec/footprint.ts's `POOL_FOOTPRINTS`)
 * against the spec, and partial-order reduction against the plain search, with
 * `--state-slots`: the draws of test/spec/footprint.test.ts and
 * test/binding/por-agreement.test.ts leave the switch off (test/support/small-configs.ts),
 * so these configurations are checked here, every reachable state and every action; and
 * symmetry's canonical form against an orbit count made here, with the pools renamed by hand.
 */
import { describe, expect, it } from 'vitest';
import { allActions, compile, configFrom, INVARIANTS, poolOf, setPool, step, WITNESSES, type Config, type Fault, type Model, type State, type Variant } from '../../spec/index.ts';
import { keyOf, reachable, rename, renamings } from '../checker/orbits.ts';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { bytesOf, explore, localGuardProblems, undeclaredPropertyReads, undeclaredReads, undeclaredWrites } from './footprint-check.ts';
import { agreement } from '../binding/por-agreement.ts';

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
      const states = explore(m, Infinity);
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

/** `s` with every request `r` renamed `perm[r]`, the pools too: their holders and contents relabelled in place, each request's slot and row index moved with it. */
function renameWithPools(m: Model, s: State, perm: readonly number[]): State {
  const t = rename(m, s, perm);
  const label = (l: number): number => (l >= 1 && l <= m.n ? perm[l - 1]! + 1 : l);
  for (let k = 0; k < m.n; k++) for (const v of ['stateHolder', 'stateOf', 'metaHolder', 'metaOf'] as const) setPool(m, t, v, k, label(poolOf(m, s, v, k)));
  for (let r = 0; r < m.n; r++) for (const v of ['stateIdx', 'metaIdx'] as const) setPool(m, t, v, perm[r]!, poolOf(m, s, v, r));
  return t;
}

describe('symmetry with --state-slots', () => {
  it.each([
    ['buggy', ['state-slot-reuse', 'metadata-collision'], 3387],
    ['hardened', ['state-slot-reuse', 'stale-free'], 1205],
  ] as const)('%s with %s, three requests of one page on 3 pages: the reduced count is the number of orbits (%i)', (variant, faults, orbits) => {
    const m = compile({ ...configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }, { length: 1 }], variant, faults: [...faults] }), stateSlots: true });
    const perms = renamings(m);
    const seen = new Set<string>();
    for (const s of reachable(m)) seen.add(perms.map((p) => keyOf(renameWithPools(m, s, p))).sort()[0]!);
    const reduced = check(checkedModel(m), { continueAfterViolation: true }).distinctStates;
    expect([reduced, seen.size]).toEqual([orbits, orbits]);
  }, 60_000);
});
