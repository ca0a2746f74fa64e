/**
 * The radix pool (impl/radix-pool.ts) along the spec tests' hand-written runs of the tree
 * (test/spec/radix.test.ts, radix-nested.test.ts): after every action the pool's abstracted
 * state equals the spec's, and the pool's own arrays (tables, node locks, depths, the
 * cache's pages) show each move: a partial match, a duplicate freed at the handoff, a leaf
 * evicted before its parent, a nested prefix's node hung under its parent's, a lock below 0.
 */
import { describe, expect, it } from 'vitest';
import { abstractState, applyAction, poolOptionsFor, RadixPool, realPool, refinementDiff } from '../../impl/index.ts';
import { parseAction, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { radix, runLabels } from '../spec/helpers.ts';

const SERVE = (r: string): string[] => [`allocate(${r})`, `prefill(${r})`, `handoff(${r})`, `decode(${r})`];
/** radix-nested.test.ts's CHILD: 4 pages, A 2:sys, B 3:sys/doc (2 pages), C of `c` pages. */
const child = (variant: Variant, faults: readonly Fault[] = [], c = 2): Config => radix(variant, faults, 4, ['2:sys', '3:sys/doc', `${c}`], { prefixPages: { 'sys/doc': 2 } });

/** Runs `labels` on the spec and on the real pool side by side, checking the refinement after each; returns the pool. */
function follow(config: Config, labels: readonly string[]): RadixPool {
  const { m, trace } = runLabels(config, labels);
  const pool = realPool(poolOptionsFor(m));
  if (!(pool instanceof RadixPool)) throw new Error('a radix configuration builds a RadixPool');
  labels.forEach((label, k) => {
    expect(applyAction(m, pool, parseAction(m, label)!)).toBe(true);
    expect(refinementDiff(m, trace.steps[k]!.state, abstractState(m, pool))).toEqual([]);
  });
  return pool;
}

const row = (pool: RadixPool, slot: number): number[] => Array.from(pool.pageTable(slot).subarray(0, pool.lengths[slot] ?? 0));

describe('the radix pool along the spec tests\' runs of the tree', () => {
  it('the handoff inserts sys (2 pages) and locks both nodes; the release unlocks them and they stay cached', () => {
    const pool = follow(radix('buggy', [], 3, ['3:sys', '1'], { prefixPages: { sys: 2 } }), [...SERVE('A'), 'free(A)']);
    expect([Array.from(pool.prefixPages), Array.from(pool.nodeLock), pool.depth[0]]).toEqual([[0, 1], [0, 0, 0], 2]);
  });

  it('eviction takes the leaf (page 1) first; B then matches the parent only: depth 1, its table [0, 1, 2], the node locked once', () => {
    const pool = follow(radix('buggy', [], 3, ['3:sys', '3:sys', '3'], { prefixPages: { sys: 2 } }), [...SERVE('A'), 'free(A)', 'evict(C)', 'allocate(B)']);
    expect([Array.from(pool.prefixPages), row(pool, 1), pool.depth[1], pool.nodeLock[0]]).toEqual([[0, -1], [0, 1, 2], 1, 1]);
  });

  it('a node inserted since B\'s match replaces B\'s own page at its handoff: page 2 is freed as a duplicate, the node locked by both', () => {
    const pool = follow(radix('buggy', [], 4, ['2:sys', '2:sys']), ['allocate(A)', 'allocate(B)', 'prefill(A)', 'prefill(B)', 'handoff(A)', 'handoff(B)']);
    expect([row(pool, 0), row(pool, 1), pool.nodeLock[0], pool.holder[2], pool.freeOrder()]).toEqual([[0, 1], [0, 3], 2, 0, [2]]);
  });

  it('nested: sys/doc matches sys\'s node only, then hangs doc\'s node (page 2) under it; eviction takes doc before sys', () => {
    const pool = follow(child('buggy'), [...SERVE('A').slice(0, 3), 'allocate(B)', 'prefill(B)', 'handoff(B)']);
    expect([row(pool, 1), pool.depth[1], pool.nodeLock[0], pool.nodeLock[2], pool.prefixSlot(1, 0)]).toEqual([[0, 2, 3], 2, 2, 1, 0]);
    const served = [...SERVE('A').slice(0, 3), 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(A)', 'free(A)', 'decode(B)', 'free(B)'];
    const evicted = follow(child('buggy', [], 4), [...served, 'evict(C)', 'evict(C)']);
    expect(Array.from(evicted.prefixPages)).toEqual([-1, -1]);
    expect(Array.from(follow(child('buggy', [], 4), [...served, 'evict(C)']).prefixPages)).toEqual([0, -1]);
  });

  it('lock-underflow: B\'s (sys/doc) release walks sys\'s node twice (0, A\'s lock gone) and doc\'s to -1; C evicts doc, then the node A reads', () => {
    const labels = [...SERVE('A').slice(0, 3), ...SERVE('B'), 'free(B)'];
    const pool = follow(child('buggy', ['lock-underflow'], 3), labels);
    expect([pool.nodeLock[0], pool.nodeLock[2]]).toEqual([0, -1]);
    const evicted = follow(child('buggy', ['lock-underflow'], 3), [...labels, 'evict(C)', 'evict(C)']);
    expect([row(evicted, 0), evicted.holder[0]]).toEqual([[0, 1], 0]);
  });
});
