/**
 * The pool against the spec with token slots, on random slot configurations and fault
 * sets: the fast tier runs a sample (test/impl/mbt-slots.test.ts), the heavy tier the full
 * counts (test/impl/mbt-slots-long.test.ts), from one definition.
 */
import { describe, expect, it } from 'vitest';
import { noEvents, POOL_FAULTS, runMbt } from '../../impl/index.ts';

/** How many random runs each refinement test takes. */
export interface SlotRuns {
  /** hardened with the variant's own faults. */
  readonly hardened: number;
  /** hardened with every fault the pool implements. */
  readonly everyFault: number;
  /** buggy, length-fix and owner-check, leaks and all. */
  readonly variants: number;
}

/** Declares the refinement tests with `runs`. */
export function slotRefinement(runs: SlotRuns): void {
  describe(`model-based test with token slots: the pool refines the spec (${runs.hardened}, ${runs.everyFault} and ${runs.variants} runs)`, () => {
    it('hardened, random slot configurations and fault sets: Isolation holds', { timeout: 120_000 }, () => {
      const events = noEvents();
      const result = runMbt({ variant: 'hardened', slots: true, runs: runs.hardened, seed: 21, events });
      expect(result.failure?.message).toBeUndefined();
      expect(result.verdict).toBe('pass');
      expect([events.decoded > 0, events['failed-loudly'] > 0, events['silent-stub'] > 0]).toEqual([true, true, true]);
    });

    it('hardened with every fault the pool implements at once, slots: Isolation holds', { timeout: 120_000 }, () => {
      const result = runMbt({ variant: 'hardened', faults: POOL_FAULTS, slots: true, runs: runs.everyFault, seed: 22 });
      expect(result.failure?.message).toBeUndefined();
      expect(result.verdict).toBe('pass');
    });

    it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s, random slot configurations and faults: the pool refines the spec, leaks and all', { timeout: 120_000 }, (variant) => {
      const result = runMbt({ variant, slots: true, runs: runs.variants, seed: 23, isolation: false });
      expect(result.failure?.message).toBeUndefined();
      expect(result.verdict).toBe('pass');
    });
  });
}
