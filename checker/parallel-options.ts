/**
 * How the parallel search (`parallel.ts`) is asked to run, and the table loads and thread
 * start that its levels (`parallel-expand.ts`) follow.
 */
import type { CheckOptions } from './types.ts';

/** How to search in parallel. */
export interface ParallelOptions extends CheckOptions {
  /** Threads: the main thread and `workers - 1` worker threads. */
  readonly workers: number;
  /**
   * Levels of fewer states are done by the main thread alone (starting a worker costs
   * a tenth to half a second from the sources under tsx, and a small level gains
   * little); default 20,000. Workers start once a level has a sixteenth of this (levels
   * grow about twice per step: they are ready about when the levels reach it, not a few
   * levels later with the main thread working alone meanwhile); while they start,
   * levels below four times this stay on the main thread rather than wait. 0: workers
   * from the start, and every level goes to them.
   */
  readonly parallelFrom?: number;
  /** Grow the table ahead of each level by the last level's growth (default); false: only when threads find it full, a path a test takes. */
  readonly growAhead?: boolean;
}

/** Workers start once a level has this fraction of `parallelFrom` states. */
export const START_AHEAD = 16;
/** Grow the table before a level could fill it past this (by an estimate of what the level adds). */
export const GROW_AT = 0.7;
/** Within a level, threads stop taking blocks past this load, and wait for the table to grow. */
export const PAUSE_AT = 0.85;
