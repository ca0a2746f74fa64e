/**
 * The model interface's promise (checker/model.ts): the accelerator only speeds a search
 * up. The spec's model without its `fast` object, and with each strategy of the one
 * loop, gives the same counts, depths, verdicts, traces and witnesses; the options'
 * defaults and the action limit are the same for every entry point (checker/options.ts).
 */
import { describe, expect, it } from 'vitest';
import { ACTION_LIMIT, check, checkParallel, DEFAULTS, simulate, type Checkable, type CheckResult } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { compile, configFrom, incidentConfig, type Action, type Model } from '../../spec/index.ts';
import { locksModel } from './locks-model.ts';

const requests = (lengths: readonly number[]) => lengths.map((length) => ({ length }));

/** What a search found, but the bytes per state (which count each strategy's own stores). */
const summary = (r: CheckResult<Action>) => ({ ...r, bytesPerState: 0 });

/** The model without any speed hook. */
const plain = (m: Model): Checkable<Action> => {
  const { fast: _, ...rest } = checkedModel(m);
  return rest;
};

describe('a model without its accelerator is checked the same, only slower', () => {
  it.each([
    // name, config, options, pinned [distinct states, depth, verdict]: 21 and 880 are pinned elsewhere too (check.test.ts, liveness.test.ts), the others here.
    ['minimal incident, buggy, to the end', incidentConfig('buggy'), { continueAfterViolation: true }, [21, 10, 'violation']],
    ['minimal incident, owner-check', incidentConfig('owner-check'), {}, [21, 10, 'holds']],
    ['two faults, symmetry on', configFrom({ pages: 4, prefillLimit: 1, requests: requests([2, 2, 2]), faults: ['early-free', 'stale-free'] }), { continueAfterViolation: true }, [173, 12, 'violation']],
    ['two faults, symmetry off', configFrom({ pages: 4, prefillLimit: 1, requests: requests([2, 2, 2]), faults: ['early-free', 'stale-free'] }), { symmetry: false, continueAfterViolation: true }, [880, 12, 'violation']],
    ['fingerprint-first family', configFrom({ pages: 5, prefillLimit: 3, requests: requests([1, 2, 2, 3]), variant: 'length-fix' }), { symmetry: false }, [6554, 20, 'holds']],
  ] as const)('%s', { timeout: 60_000 }, (_name, config, options, pinned) => {
    const m = compile(config);
    const fast = check(checkedModel(m), options);
    expect([fast.distinctStates, fast.depth, fast.verdict]).toEqual(pinned);
    expect(summary(check(plain(m), options))).toEqual(summary(fast));
    // Each strategy of the loop: fingerprints first where the model has them and no canonicaliser is in effect, states first otherwise.
    expect(summary(check(checkedModel(m), { ...options, fingerprintFirst: false }))).toEqual(summary(fast));
  });
});

describe('options.ts: one set of defaults and one action limit for every entry point', () => {
  /** A counter that can go up by any of `n` actions, each by one; `limit` is where it stops. */
  const wide = (n: number): Checkable<number> => ({
    stateBytes: 1,
    initialStates: () => [new Uint8Array(1)],
    actions: Array.from({ length: n }, (_, i) => i),
    nextState: (s, i) => (s[0]! < 3 && i === 0 ? Uint8Array.of(s[0]! + 1) : undefined),
    properties: [],
  });

  it('a model of more actions than a path can number is refused by both searches', async () => {
    expect(ACTION_LIMIT).toBe(256);
    expect(check(wide(ACTION_LIMIT)).distinctStates).toBe(4);
    expect(() => check(wide(ACTION_LIMIT + 1))).toThrow(/257 actions do not fit a one-byte action index \(at most 256\)/);
    await expect(checkParallel(wide(ACTION_LIMIT + 1), { module: 'unused', config: null }, { workers: 1 })).rejects.toThrow(/257 actions/);
  });

  it('an option left out means the same in check and simulate: deadlock on, symmetry on', () => {
    expect(DEFAULTS).toMatchObject({ symmetry: true, deadlock: true, continueAfterViolation: false, fingerprintFirst: true, parallelFrom: 20_000, growAhead: true });
    // The lock model deadlocks when each process holds its first lock: both report it by default, neither when told not to.
    const model = locksModel();
    const walk = { runs: [0, 1, 2, 3, 4, 5, 6, 7], depth: 10, random: (k: number) => () => k };
    expect(check(model).violations.map((v) => v.invariant)).toEqual(['Deadlock']);
    expect(simulate(model, walk).violations.map((v) => v.invariant)).toEqual(['Deadlock']);
    expect(check(model, { deadlock: false }).verdict).toBe('holds');
    expect(simulate(model, { ...walk, deadlock: false }).violations).toEqual([]);
  });
});
