import { describe, expect, it } from 'vitest';
import { runMbt } from '../../impl/index.ts';
import { MUTANTS } from './mutants.ts';

describe('model-based test catches injected defects', () => {
  it.each(MUTANTS.map((m) => [m.name, m] as const))('%s', (_name, mutant) => {
    const result = runMbt({
      ...(mutant.variant === undefined ? {} : { variant: mutant.variant }),
      runs: 1_000,
      seed: 7,
      isolation: false,
      makePool: mutant.make,
    });
    expect(result.verdict, mutant.defect).toBe('fail');
    expect(['Refinement', 'Enabledness']).toContain(result.failure?.property);
  });

  it('the same 1,000 runs (same seed, same cases) pass on the real pool, so each failure is the defect', () => {
    for (const variant of [undefined, 'owner-check', 'length-fix'] as const) {
      const result = runMbt({ ...(variant === undefined ? {} : { variant }), runs: 1_000, seed: 7, isolation: false });
      expect(result.failure?.message).toBeUndefined();
    }
  });
});
