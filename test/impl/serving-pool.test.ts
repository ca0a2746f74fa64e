/**
 * The pool's actions after the handoff (impl/serving-pool.ts) against the spec's, step by
 * step, under each allocation order: the pages `grow` and `resume` take, what the load
 * writes back, and the free list after a retraction or a commit-time abort.
 */
import { describe, expect, it } from 'vitest';
import { dataOf, freeList, releaseList, tableOf, type Allocator, type Config } from '../../spec/index.ts';
import { ServingPool } from '../../impl/index.ts';
import { runLabels } from '../spec/helpers.ts';

const ORDERS = ['sorted', 'sglang', 'lifo'] as const;

/** 5 pages of 2 tokens; A (4 tokens), B (4), C (2); three decode steps; growth and retraction on. */
function config(allocator: Allocator): Config {
  return {
    pages: 5,
    prefillLimit: 10,
    requests: [
      { name: 'A', length: 4 },
      { name: 'B', length: 4 },
      { name: 'C', length: 2 },
    ],
    variant: 'owner-check',
    faults: [],
    allocator,
    pageSize: 2,
    decodeSteps: 3,
    tableGrowth: true,
    retraction: true,
  };
}

/** The pool for the same configuration, requests by slot (A 0, B 1, C 2). */
function poolOf(allocator: (typeof ORDERS)[number]): ServingPool {
  return new ServingPool({ pages: 5, prefillLimit: 5, prefillTokens: 10, variant: 'owner-check', faults: [], slots: 3, maxLength: 5, allocator, pageSize: 2, tableGrowth: true, retraction: true });
}

const TOKENS = [4, 4, 2];
const LENGTHS = [2, 2, 1];

/** Runs labels on the pool: `allocate(A)` and the others by name, the spec's decode steps after the first doing nothing in the pool. */
function drive(pool: ServingPool, labels: readonly string[]): void {
  const seen = new Set<number>();
  for (const label of labels) {
    const [, kind = '', name = ''] = /^(\w+)\((\w)\)$/.exec(label) ?? [];
    const slot = 'ABC'.indexOf(name);
    let ok: boolean;
    if (kind === 'allocate') ok = pool.allocate(slot, LENGTHS[slot] ?? 1, undefined, TOKENS[slot]);
    else if (kind === 'decode' && seen.has(slot)) ok = true;
    else if (kind === 'resume') ok = pool.resume(slot);
    else ok = (pool[kind as 'prefill' | 'handoff' | 'decode' | 'grow' | 'retract' | 'free' | 'abortCommit'] as (s: number) => boolean).call(pool, slot);
    if (kind === 'decode') seen.add(slot);
    expect(ok, label).toBe(true);
  }
}

/** The pool's table of a slot. */
const table = (pool: ServingPool, slot: number): number[] => Array.from(pool.pageTable(slot).subarray(0, pool.lengths[slot] ?? 0));

describe('the serving pool against the spec', () => {
  for (const allocator of ORDERS) {
    it(`${allocator}: grow takes the page the order hands out, with the token in it`, () => {
      const labels = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'grow(A)', 'decode(A)'];
      const { m, last } = runLabels(config(allocator), labels);
      const pool = poolOf(allocator);
      drive(pool, labels);
      expect(table(pool, 0)).toEqual(tableOf(m, last, 0));
      const grown = tableOf(m, last, 0)[2]!;
      expect(pool.data[grown]).toBe(pool.serials[0]);
      expect(dataOf(m, last, grown)).toBe(1);
      expect(pool.freeOrder()).toEqual(freeList(m, last));
    });

    it(`${allocator}: retract frees the table, resume takes new pages and loads the copy back`, () => {
      const labels = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'retract(A)', 'allocate(B)', 'resume(A)'];
      const { m, last } = runLabels(config(allocator), labels);
      const pool = poolOf(allocator);
      drive(pool, labels);
      expect([table(pool, 0), table(pool, 1)]).toEqual([tableOf(m, last, 0), tableOf(m, last, 1)]);
      for (const p of table(pool, 0)) expect(pool.data[p]).toBe(pool.serials[0]);
      expect(pool.freeOrder()).toEqual(freeList(m, last));
      expect(pool.phase(0)).toBe(4);
    });

    it(`${allocator}: a commit-time abort frees a written request's pages`, () => {
      const labels = ['allocate(B)', 'prefill(B)', 'abortCommit(B)', 'allocate(A)'];
      const { m, last } = runLabels(config(allocator), labels);
      const pool = poolOf(allocator);
      drive(pool, labels);
      expect(table(pool, 0)).toEqual(tableOf(m, last, 0));
      expect(pool.freeOrder()).toEqual(freeList(m, last));
      expect(pool.releasedEntries).toBe(releaseList(m, last).length);
    });
  }

  it('refuses what the spec does not enable: grow before the first step, retract of an allocated request, resume of one not retracted', () => {
    const pool = poolOf('sorted');
    expect(pool.allocate(0, 2, undefined, 4)).toBe(true);
    expect([pool.grow(0), pool.retract(0), pool.resume(0), pool.abortCommit(0)]).toEqual([false, false, false, false]);
    const off = new ServingPool({ pages: 5, prefillLimit: 5, variant: 'buggy', slots: 1, maxLength: 5 });
    expect(off.allocate(0, 1)).toBe(true);
    expect([off.prefill(0), off.handoff(0), off.decode(0)]).toEqual([true, true, true]);
    expect([off.grow(0), off.retract(0)]).toEqual([false, false]);
  });
});
