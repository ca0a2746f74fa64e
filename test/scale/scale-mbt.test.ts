/**
 * The model-based test at scale: the pool against the reference model with hundreds to
 * thousands of pages, tables longer than 64 pages, pools run dry, hundreds of admissions
 * per run through reused slots; and the defects that only size shows.
 */
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../../spec/index.ts';
import { runMbt } from '../../impl/index.ts';
import { noStats, runScaleMbt } from '../../scale/mbt.ts';
import { SCALE_MUTANTS } from './mutants.ts';

describe('model-based test at scale: the pool refines the reference model', () => {
  it('owner-check, random faults: 150 runs of up to 1,500 steps, Isolation holds, every size reached', () => {
    const stats = noStats();
    const result = runScaleMbt({ variant: 'owner-check', runs: 150, seed: 1, isolation: true, stats });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
    expect(stats.maxPages).toBe(4_096);
    expect(stats.maxTable).toBe(4_096);
    expect(stats.maxAdmissions).toBeGreaterThan(255);
    expect(stats.longDecodes).toBeGreaterThan(100);
    expect(stats.exhaustions).toBeGreaterThan(100);
    expect(stats.reuses).toBeGreaterThan(1_000);
    expect(stats.failedLoudly).toBeGreaterThan(100);
  }, 60_000);

  it.each(['buggy', 'length-fix'] as const)('%s, random faults: 100 runs, the pool refines the reference, leaks and all', (variant) => {
    const stats = noStats();
    const result = runScaleMbt({ variant, runs: 100, seed: 2, stats });
    expect(result.failure?.message).toBeUndefined();
    expect(stats.leaks).toBeGreaterThan(0);
    expect(stats.maxAdmissions).toBeGreaterThan(255);
  }, 60_000);

  it('owner-check with every fault: Isolation holds at scale', () => {
    const result = runScaleMbt({ variant: 'owner-check', faults: FAULTS, runs: 60, seed: 3, isolation: true });
    expect(result.failure?.message).toBeUndefined();
  });

  it('buggy at scale: a decode reads another request\'s data, and the failure says where', () => {
    const result = runScaleMbt({ variant: 'buggy', faults: ['silent-stub'], runs: 100, seed: 4, isolation: true, maxSteps: 200 });
    expect(result.verdict).toBe('fail');
    expect(result.failure?.message).toMatch(/decode\(slot \d\): Isolation/);
    expect(result.failure?.actions.at(-1)).toMatch(/^decode\(/);
  });
});

describe('model-based test at scale catches the defects that need size', () => {
  it.each(SCALE_MUTANTS.map((m) => [m.name, m] as const))('%s', (_name, mutant) => {
    // The owner-check mutant needs a foreign page past the 32nd of a table and clean ones before: late writes and stale releases make them.
    const faults = mutant.name === 'owner-check-first-32-pages' ? (['silent-stub', 'early-free'] as const) : undefined;
    const result = runScaleMbt({
      ...(mutant.variant === undefined ? {} : { variant: mutant.variant }),
      ...(faults === undefined ? {} : { faults }),
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
