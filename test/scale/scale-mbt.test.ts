/**
 * The model-based test at scale: the pool against the reference model with hundreds to
 * thousands of pages, tables longer than 64 pages, pools run dry, hundreds of admissions
 * per run through reused slots; and the defects that only size shows.
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE_FAULTS } from '../../scale/reference.ts';
import { runMbt } from '../../impl/index.ts';
import { noStats, runScaleMbt, type ScaleConfig } from '../../scale/mbt.ts';
import { SCALE_MUTANTS } from './mutants.ts';

describe('model-based test at scale: the pool refines the reference model', () => {
  it('owner-check, random faults and orders: 40 runs of up to 1,500 steps, Isolation holds, every size reached', () => {
    const stats = noStats();
    // Whole pages of one token: at 64 tokens per page a stubbed one-page prompt has a stale tail that the owner check misses (test/spec/slots.test.ts).
    const result = runScaleMbt({ variant: 'owner-check', runs: 40, seed: 1, isolation: true, stats, allocation: { pageSizes: [1] } });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
    expect(stats.maxPages).toBe(4_096);
    expect(stats.maxTable).toBe(4_096);
    expect(stats.maxAdmissions).toBeGreaterThan(255);
    expect(stats.longDecodes).toBeGreaterThan(100);
    expect(stats.exhaustions).toBeGreaterThan(100);
    expect(stats.reuses).toBeGreaterThan(1_000);
    expect(stats.failedLoudly).toBeGreaterThan(100);
    expect(stats.secondReleases).toBeGreaterThan(100);
    expect(stats.takenTwice).toBeGreaterThan(100);
    for (const order of ['sorted', 'sglang', 'lifo'] as const) expect(stats.byAllocator[order], order).toBeGreaterThan(500);
  }, 60_000);

  it.each(['buggy', 'length-fix'] as const)('%s, random faults and orders: 30 runs, the pool refines the reference, leaks and all', (variant) => {
    const stats = noStats();
    const result = runScaleMbt({ variant, runs: 30, seed: 2, stats });
    expect(result.failure?.message).toBeUndefined();
    expect(stats.leaks).toBeGreaterThan(0);
    expect(stats.maxAdmissions).toBeGreaterThan(255);
  }, 60_000);

  it('owner-check with every fault: Isolation holds at scale', () => {
    const result = runScaleMbt({ variant: 'owner-check', faults: REFERENCE_FAULTS, runs: 20, seed: 3, isolation: true, allocation: { doubleFree: true } });
    expect(result.failure?.message).toBeUndefined();
  });

  it('buggy at scale: a decode reads another request\'s data, and the failure says where', () => {
    const result = runScaleMbt({ variant: 'buggy', faults: ['silent-stub'], runs: 100, seed: 4, isolation: true, maxSteps: 200 });
    expect(result.verdict).toBe('fail');
    expect(result.failure?.message).toMatch(/decode\(slot \d\): Isolation/);
    expect(result.failure?.actions.at(-1)).toMatch(/^decode\(/);
  });
});

/**
 * The owner-check mutant needs a table of more than 32 pages whose foreign pages all lie
 * past the 32nd: a timed-out request's late write into pages that were handed on. Four
 * slots over 128 pages make that interleaving common.
 */
const LATE_WRITES: ScaleConfig = {
  pages: 128,
  prefillLimit: 128,
  slots: 4,
  prefixes: 0,
  variant: 'owner-check',
  faults: ['silent-stub', 'early-free'],
  allocator: 'sorted',
  pageSize: 1,
  doubleFree: false,
};

describe('model-based test at scale catches the defects that need size', () => {
  it.each(SCALE_MUTANTS.map((m) => [m.name, m] as const))('%s', (_name, mutant) => {
    const late = mutant.name === 'owner-check-first-32-pages';
    const result = runScaleMbt({
      ...(mutant.variant === undefined ? {} : { variant: mutant.variant }),
      ...(late ? { config: LATE_WRITES, maxSteps: 300 } : {}),
      runs: 300,
      seed: 2,
      shrink: false,
      makePool: mutant.make,
    });
    expect(result.verdict, mutant.defect).toBe('fail');
  }, 60_000);

  it('the small model-based test (1,000 runs, seed 7, as for the other mutants) passes every one of them', () => {
    for (const mutant of SCALE_MUTANTS) {
      const result = runMbt({ ...(mutant.variant === undefined ? {} : { variant: mutant.variant }), runs: 1_000, seed: 7, isolation: false, makePool: mutant.make });
      expect(result.verdict, mutant.name).toBe('pass');
    }
  }, 60_000);
});
