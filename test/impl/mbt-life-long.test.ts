// The refinement with a request's life on D at its full counts (heavy tier); test/impl/mbt-life.test.ts runs a sample of each and the mutants.
import { describe, expect, it } from 'vitest';
import { runMbt } from '../../impl/index.ts';
import { lifeRefinement } from './mbt-life-refinement.ts';
import { LIFE_MUTANTS } from './life-mutants.ts';

lifeRefinement({ hardened: 2_000, variants: 1_500, eviction: 1_500 });

describe('the mutants\' runs pass on the real pool, so each mutant\'s failure is its defect', () => {
  it.each(LIFE_MUTANTS)('the runs that catch a pool that %s', { timeout: 300_000 }, (_name, _mutant, options) => {
    const result = runMbt({ variant: 'owner-check', ...options, runs: 1_000, seed: 44, isolation: false });
    expect(result.failure?.message).toBeUndefined();
  });
});
