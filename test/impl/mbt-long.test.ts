/**
 * The model-based test's long runs (the heavy tier, vitest.config.ts): 10,000 random
 * configurations per variant, enough for every event of the pool to fire. mbt.test.ts
 * keeps the 2,000-run tests in the fast tier.
 */
import { describe, expect, it } from 'vitest';
import { EVENTS, noEvents, runMbt } from '../../impl/index.ts';

describe('model-based test: the pool refines the spec, 10,000 runs', () => {
  it('owner-check, random configurations and fault sets: 10,000 runs, Isolation holds, every fault fires', () => {
    const events = noEvents();
    const result = runMbt({ variant: 'owner-check', runs: 10_000, seed: 1, events });
    expect(result.failure?.message).toBeUndefined();
    expect(result).toMatchObject({ verdict: 'pass', runs: 10_000 });
    for (const e of EVENTS) expect(events[e], e).toBeGreaterThan(0);
  });

  it('length-fix, random configurations: 10,000 runs, Isolation holds', () => {
    const events = noEvents();
    const result = runMbt({ variant: 'length-fix', faults: [], runs: 10_000, seed: 3, events });
    expect(result.failure?.message).toBeUndefined();
    expect(result).toMatchObject({ verdict: 'pass', runs: 10_000 });
    expect(events.refusal).toBeGreaterThan(0);
    expect(events['prefix-hit']).toBeGreaterThan(0);
  });
});
