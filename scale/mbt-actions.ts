/**
 * What a step of the model-based test at scale does on each side, and what the runs
 * reached: an action by kind on the reference and on the pool, and the counts a test pins.
 */
import { match } from 'ts-pattern';
import type { PoolAllocator } from '../impl/allocator-order.ts';
import type { PagePool } from '../impl/pool.ts';
import { ServingPool } from '../impl/serving-pool.ts';
import type { ReferencePool } from './reference.ts';
import type { PoolAction } from './generator.ts';

/** What the runs reached: the coverage a test pins. */
export interface ScaleStats {
  /** Actions taken (enabled). */
  actions: number;
  /** Admissions over all runs. */
  admissions: number;
  /** The most admissions in one run. */
  maxAdmissions: number;
  /** The largest pool. */
  maxPages: number;
  /** The longest table admitted. */
  maxTable: number;
  /** Decodes of a table longer than 64 pages. */
  longDecodes: number;
  /** Admissions that left no page free. */
  exhaustions: number;
  /** Admissions into a slot that held an earlier one. */
  reuses: number;
  /** Decodes that the owner check failed. */
  failedLoudly: number;
  /** Decodes that read another request's data. */
  leaks: number;
  /** Second releases accepted (`stale-free` or `double-free`). */
  secondReleases: number;
  /** Pages handed out while a live table still had them (`double-free`). */
  takenTwice: number;
  /** Admissions per allocation order. */
  byAllocator: Record<PoolAllocator, number>;
  /** Pages taken by `grow`. */
  grows: number;
  /** The longest table a `grow` made. */
  maxGrown: number;
  /** Grows that took a table past 64 pages (its 65th). */
  grownPast64: number;
  /** Grows that took a table past 255 pages (its 256th). */
  grownPast255: number;
  /** The most decode steps one request took. */
  maxSteps: number;
  /** Retractions. */
  retracts: number;
  /** Retractions taken while no page was free. */
  retractsAtExhaustion: number;
  /** Late copies (`offload-after-free`). */
  offloads: number;
  /** Resumes. */
  resumes: number;
  /** Evictions (`evict`). */
  evictions: number;
  /** Inserts into the prefix cache (at the handoff under `radix`, and at finish). */
  inserts: number;
  /** Under `radix`: unlocks that took a node's lock_ref below 0. */
  underflows: number;
  /** Under `radix`: evictions of a node whose lock_ref was below 0. */
  negativeEvictions: number;
  /** Under `radix`: the lowest lock_ref seen at the first page of the request an action acted on, after it. */
  minNodeLock: number;
}

/** All counts zero. */
export function noStats(): ScaleStats {
  return {
    actions: 0,
    admissions: 0,
    maxAdmissions: 0,
    maxPages: 0,
    maxTable: 0,
    longDecodes: 0,
    exhaustions: 0,
    reuses: 0,
    failedLoudly: 0,
    leaks: 0,
    secondReleases: 0,
    takenTwice: 0,
    byAllocator: { sorted: 0, sglang: 0, lifo: 0 },
    grows: 0,
    maxGrown: 0,
    grownPast64: 0,
    grownPast255: 0,
    maxSteps: 0,
    retracts: 0,
    retractsAtExhaustion: 0,
    offloads: 0,
    resumes: 0,
    evictions: 0,
    inserts: 0,
    underflows: 0,
    negativeEvictions: 0,
    minNodeLock: 0,
  };
}

/** Counts what an accepted action reached; `freeBefore` is the free count before it. */
export function count(stats: ScaleStats, ref: ReferencePool, kind: PoolAction, slot: number, before: unknown, freeBefore: number): void {
  const r = ref.slots[slot];
  if (r === undefined) return;
  if (kind === 'allocate') {
    stats.admissions++;
    stats.maxTable = Math.max(stats.maxTable, r.length);
    if (ref.freePages === 0) stats.exhaustions++;
    if (before !== undefined) stats.reuses++;
  } else if (kind === 'decode') {
    if (r.table.length > 64) stats.longDecodes++;
    stats.maxSteps = Math.max(stats.maxSteps, r.steps);
    if (r.phase === 'failed') stats.failedLoudly++;
    else if (ref.foreignReads(r) > 0) stats.leaks++;
  } else if (kind === 'free' && r.phase === 'released') stats.secondReleases++;
  else if (kind === 'grow') {
    stats.grows++;
    stats.maxGrown = Math.max(stats.maxGrown, r.table.length);
    if (r.table.length === 65) stats.grownPast64++;
    if (r.table.length === 256) stats.grownPast255++;
  } else if (kind === 'retract') {
    stats.retracts++;
    if (freeBefore === 0) stats.retractsAtExhaustion++;
  } else if (kind === 'offload') stats.offloads++;
  else if (kind === 'resume') stats.resumes++;
  else if (kind === 'evict') stats.evictions++;
  const first = r.table[0];
  if (first !== undefined) stats.minNodeLock = Math.min(stats.minNodeLock, ref.page(first).nodeLock);
}

/** An action on the reference. */
export function act(ref: ReferencePool, kind: PoolAction, slot: number, length: number, group: number): boolean {
  return match(kind)
    .with('allocate', () => ref.allocate(slot, length, group))
    .with('prefill', () => ref.prefill(slot))
    .with('stub', () => ref.stub(slot))
    .with('handoff', () => ref.handoff(slot))
    .with('grow', () => ref.grow(slot))
    .with('decode', () => ref.decode(slot))
    .with('free', () => ref.free(slot))
    .with('timeout', () => ref.timeout(slot))
    .with('insert', () => ref.insert(slot))
    .with('evict', () => ref.evict(slot, length, group))
    .with('retract', () => ref.retract(slot))
    .with('offload', () => ref.offload(slot))
    .with('resume', () => ref.resume(slot))
    .exhaustive();
}

/** The same action on the pool (a pool without a request's life refuses its actions). */
export function actPool(pool: PagePool, kind: PoolAction, slot: number, length: number, group: number): boolean {
  const serving = pool instanceof ServingPool ? pool : undefined;
  return match(kind)
    .with('allocate', () => (group >= 0 ? pool.allocate(slot, length, group) : pool.allocate(slot, length)))
    .with('prefill', () => pool.prefill(slot))
    .with('stub', () => pool.stub(slot))
    .with('handoff', () => pool.handoff(slot))
    .with('grow', () => serving?.grow(slot) ?? false)
    .with('decode', () => pool.decode(slot))
    .with('free', () => pool.free(slot))
    .with('timeout', () => pool.timeout(slot))
    .with('insert', () => pool.insert(slot))
    .with('evict', () => (group >= 0 ? pool.evict(slot, length, group) : pool.evict(slot, length)))
    .with('retract', () => serving?.retract(slot) ?? false)
    .with('offload', () => serving?.offload(slot) ?? false)
    .with('resume', () => serving?.resume(slot) ?? false)
    .exhaustive();
}
