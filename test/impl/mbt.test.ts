import { describe, expect, it } from 'vitest';
import { actionLabel, incidentConfig, run } from '../../spec/index.ts';
import { noEvents, POOL_FAULTS, runMbt } from '../../impl/index.ts';

/** The minimal leak of docs/BACKGROUND.md ("The minimal leak"), as the shrinker must find it. */
const INCIDENT = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)'];

// The 10,000-run tests are in mbt-long.test.ts, in the heavy tier.
describe('model-based test: the pool refines the spec', () => {
  it('owner-check with every fault the pool implements at once: Isolation holds', () => {
    const result = runMbt({ variant: 'owner-check', faults: POOL_FAULTS, runs: 2_000, seed: 2 });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
  });

  it('hardened with every fault the pool implements at once: the pool refines the spec, Isolation holds', () => {
    const result = runMbt({ variant: 'hardened', faults: POOL_FAULTS, runs: 2_000, seed: 12 });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
  });

  it.each(['buggy', 'length-fix'] as const)('%s with random faults: the pool refines the spec, leaks and all', (variant) => {
    const events = noEvents();
    const result = runMbt({ variant, runs: 2_000, seed: 4, isolation: false, events });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
    expect(events['late-write'] + events['stale-release'] + events['poisoned-insert']).toBeGreaterThan(0);
  });
});

describe('model-based test: buggy leaks', () => {
  it('finds the leak on the minimal configuration and shrinks it to the 9 commands of the incident', () => {
    const result = runMbt({ config: incidentConfig('buggy'), runs: 1_000, seed: 1 });
    expect(result.verdict).toBe('fail');
    const failure = result.failure;
    expect(failure?.property).toBe('Isolation');
    expect(failure?.commands).toEqual(INCIDENT);
    const m = failure?.model;
    expect(m && failure.actions.map((a) => actionLabel(m, a))).toEqual(INCIDENT);
    expect(m && 'trace' in run(m, failure.actions)).toBe(true);
  });

  it('replays the counterexample exactly from its seed and path', () => {
    const first = runMbt({ config: incidentConfig('buggy'), runs: 1_000, seed: 5 });
    const path = first.failure?.path ?? '';
    expect(path).toMatch(/^\d+(:\d+)*@/);
    const again = runMbt({ config: incidentConfig('buggy'), runs: 1_000, seed: 5, path });
    expect(again.runs).toBe(1);
    expect(again.failure?.commands).toEqual(first.failure?.commands);
    expect(again.failure?.path).toBe(path);
  });

  it('finds a leak in buggy from random configurations too', () => {
    const result = runMbt({ variant: 'buggy', runs: 2_000, seed: 6 });
    expect(result.failure?.property).toBe('Isolation');
  });

  it('finds the leak that length-fix keeps under early-free', () => {
    const result = runMbt({ variant: 'length-fix', faults: ['early-free'], runs: 5_000, seed: 7 });
    expect(result.failure?.property).toBe('Isolation');
    expect(result.failure?.commands).toContain('timeout(A)');
  });
});
