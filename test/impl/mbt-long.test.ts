/**
 * The model-based test's long runs (the heavy tier, vitest.config.ts): 4,000 random
 * configurations per variant, twice the fast tier's 2,000 (mbt.test.ts, other seeds).
 * Every event of the pool fires within the first 1,000 of them, and each of
 * test/impl/mutants.ts's mutants that these runs can show fails within the first 176
 * (owner-check) and 105 (length-fix); the five that length-fix without faults cannot
 * show passed all 10,000 runs this file took before (issue 28: 33 s of CPU).
 */
import { describe, expect, it } from 'vitest';
import { EVENTS, noEvents, runMbt } from '../../impl/index.ts';

describe('model-based test: the pool refines the spec, 4,000 runs', () => {
  it('owner-check, random configurations and fault sets: 4,000 runs, Isolation holds, every fault fires', () => {
    const events = noEvents();
    const result = runMbt({ variant: 'owner-check', runs: 4_000, seed: 1, events });
    expect(result.failure?.message).toBeUndefined();
    expect(result).toMatchObject({ verdict: 'pass', runs: 4_000 });
    for (const e of EVENTS) expect(events[e], e).toBeGreaterThan(0);
  });

  it('length-fix, random configurations: 4,000 runs, Isolation holds', () => {
    const events = noEvents();
    const result = runMbt({ variant: 'length-fix', faults: [], runs: 4_000, seed: 3, events });
    expect(result.failure?.message).toBeUndefined();
    expect(result).toMatchObject({ verdict: 'pass', runs: 4_000 });
    expect(events.refusal).toBeGreaterThan(0);
    expect(events['prefix-hit']).toBeGreaterThan(0);
  });
});
