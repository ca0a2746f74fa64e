/**
 * The pool against the spec with a request's life on D (decode steps, table growth,
 * retraction and resume, the faults offload-after-free and resume-stale), on random
 * configurations: the fast tier runs a sample (test/impl/mbt-life.test.ts), the heavy
 * tier the full counts (test/impl/mbt-life-long.test.ts), from one definition.
 */
import { describe, expect, it } from 'vitest';
import { LIFE_EVENTS, noEvents, runMbt, type EventCounts } from '../../impl/index.ts';

/** How many random runs each refinement test takes. */
export interface LifeRuns {
  /** hardened, every fault drawn, per page kind (whole pages, token slots). */
  readonly hardened: number;
  /** buggy, length-fix and owner-check, leaks and all, each. */
  readonly variants: number;
  /** owner-check with eviction: a retracted request's resume evicts, and its release unlocks. */
  readonly eviction: number;
}

const ORDERS = ['sorted', 'sglang', 'lifo'] as const;

/** Every life event happened at least once. */
function expectEveryLifeEvent(events: EventCounts): void {
  for (const e of LIFE_EVENTS) expect(events[e] ?? 0, e).toBeGreaterThan(0);
}

/** Declares the refinement tests with `runs`. */
export function lifeRefinement(runs: LifeRuns): void {
  describe(`model-based test with decode steps, growth and retraction: the pool refines the spec (${runs.hardened}, ${runs.variants} and ${runs.eviction} runs)`, () => {
    it.each([false, true])('hardened, random configurations (token slots: %s), every order and fault: Isolation holds, every life event seen', { timeout: 300_000 }, (slots) => {
      const events = noEvents();
      const result = runMbt({ variant: 'hardened', slots, life: {}, allocators: ORDERS, runs: runs.hardened, seed: 41, events });
      expect(result.failure?.message).toBeUndefined();
      expect(result.verdict).toBe('pass');
      expectEveryLifeEvent(events);
    });

    it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s, random configurations and faults: the pool refines the spec, leaks and all', { timeout: 300_000 }, (variant) => {
      const events = noEvents();
      const result = runMbt({ variant, life: {}, allocators: ORDERS, runs: runs.variants, seed: 42, isolation: false, events });
      expect(result.failure?.message).toBeUndefined();
      expect(result.verdict).toBe('pass');
      expectEveryLifeEvent(events);
    });

    it('owner-check with eviction and retraction on: the pool refines the spec', { timeout: 300_000 }, () => {
      const events = noEvents();
      const result = runMbt({ variant: 'owner-check', eviction: true, life: { retraction: true }, allocators: ORDERS, runs: runs.eviction, seed: 43, isolation: false, events });
      expect(result.failure?.message).toBeUndefined();
      expect(result.verdict).toBe('pass');
      expect([events['prefix-hit'] > 0, (events.retracted ?? 0) > 0, (events.resumed ?? 0) > 0]).toEqual([true, true, true]);
    });
  });
}
