/**
 * The pool against the spec at real sizes (issue 27, item 1): impl/mbt.ts's model-based
 * test over the configurations of test/support/real-sizes.ts (9 to 16 pages, requests
 * longer than 8 pages, 9 or more requests, the pool's three orders, prefixes, every
 * variant and the faults), runs long enough for several lifecycles. Refinement and
 * enabledness are checked after every command; `Isolation` only where the variant holds it.
 */
import { expect } from 'vitest';
import { noEvents, POOL_ALLOCATORS, runMbt, type EventCounts, type MbtResult } from '../../impl/index.ts';
import { configOf, countConfig, drawnConfigOver, sizeStats, type SizeStats } from '../support/real-sizes.ts';

/** Commands per run: 9 to 11 requests of up to 16 pages need about 5 commands each to live and die. */
const MAX_COMMANDS = 150;

/** What one run of the test did: its result, the generator's statistics, the pool's events. */
export interface RealSizesRun {
  readonly result: MbtResult;
  readonly stats: SizeStats;
  readonly events: EventCounts;
}

/** Runs `runs` configurations from `seed`; with `isolation`, only the variants that hold it (owner-check, hardened) are kept. */
export function mbtAtRealSizes(seed: number, runs: number, isolation: boolean): RealSizesRun {
  const stats = sizeStats();
  const events = noEvents();
  const drawn = drawnConfigOver(POOL_ALLOCATORS);
  const kept = isolation ? drawn.filter((d) => d.variant === 'owner-check' || d.variant === 'hardened') : drawn;
  // Counted as drawn: a passing run draws each configuration once (only a failure shrinks).
  const configs = kept.map((d) => {
    const c = configOf(d);
    countConfig(c, stats);
    return c;
  });
  const result = runMbt({ configs, maxRequests: 11, runs, seed, isolation, events, maxCommands: MAX_COMMANDS });
  return { result, stats, events };
}

/** Prints the statistics (for the closing note) and asserts the run passed and drew what real sizes mean. */
export function reportRun(label: string, r: RealSizesRun): void {
  process.stdout.write(`${label}: ${JSON.stringify({ runs: r.result.runs, stats: r.stats, events: r.events })}\n`);
  expect(r.result.failure?.message).toBeUndefined();
  expect(r.result.verdict).toBe('pass');
  expect(Object.keys(r.stats.pages).map(Number).every((p) => p >= 9 && p <= 16)).toBe(true);
  expect(Object.keys(r.stats.longestRequest).some((l) => Number(l) > 8)).toBe(true);
  expect(Object.keys(r.stats.requestCounts).some((n) => Number(n) >= 9)).toBe(true);
  expect(Object.keys(r.stats.allocators).sort()).toEqual(['lifo', 'sglang', 'sorted']);
  expect(r.stats.withPrefix).toBeGreaterThan(0);
}
