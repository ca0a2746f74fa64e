/**
 * The pool's allocation orders and its multiset free list, on the worked examples of
 * docs/ALLOCATOR.md (SGLang's `PagedTokenToKVPoolAllocator` and `TokenToKVPoolAllocator`
 * as D's `_pre_alloc` calls them).
 */
import { describe, expect, it } from 'vitest';
import { Ph, type Fault } from '../../spec/index.ts';
import { noEvents, PagePool, runMbt, type PoolOptions } from '../../impl/index.ts';

const pool = (extra: Partial<PoolOptions>): PagePool =>
  new PagePool({ pages: 8, prefillLimit: 8, slots: 8, maxLength: 8, variant: 'buggy', faults: [], reuseSlots: true, ...extra });

/** allocate, prefill, handoff, decode, free. */
const serve = (p: PagePool, slot: number, length: number): number[] => {
  expect(p.allocate(slot, length)).toBe(true);
  const table = Array.from(p.pageTable(slot).subarray(0, length));
  for (const step of [p.prefill, p.handoff, p.decode, p.free]) expect(step.call(p, slot)).toBe(true);
  return table;
};

const tableOf = (p: PagePool, slot: number, length: number): number[] => Array.from(p.pageTable(slot).subarray(0, length));

/** The double-free fault. */
const DOUBLE_FREE: Fault = 'double-free';

describe('allocation order sglang (P/D mode: a release list, merged and sorted on a shortage)', () => {
  it.each([
    [4, [5, 6, 1, 2, 7, 8]],
    [1, [5, 6, 7, 8, 1, 2]],
  ])('page size %i: A is served, C gets 3 4 (1 2 wait in the release list), then six 1-page requests get %j', (pageSize, six) => {
    const p = pool({ allocator: 'sglang', pageSize });
    expect(serve(p, 0, 2)).toEqual([1, 2]);
    expect(p.releaseCopies(1) + p.releaseCopies(2)).toBe(2);
    expect(p.allocate(1, 2)).toBe(true);
    expect(tableOf(p, 1, 2)).toEqual([3, 4]);
    const got: number[] = [];
    for (let slot = 2; slot < 8; slot++) {
      expect(p.allocate(slot, 1)).toBe(true);
      got.push(p.pageTable(slot)[0] ?? -1);
    }
    expect(got).toEqual(six);
    expect(p.freePages).toBe(0);
    expect(p.allocate(0, 1)).toBe(false);
  });

  it('never hands out the padding page 0; ids run 1 .. pages', () => {
    const p = pool({ allocator: 'sglang' });
    expect(p.holder.length).toBe(9);
    expect(p.freePages).toBe(8);
    expect(p.allocate(0, 8)).toBe(true);
    expect(tableOf(p, 0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(p.freeCopies(0)).toBe(0);
  });
});

describe('allocation order lifo (outside P/D mode: a release goes to the front)', () => {
  it('hands out the pages freed last first, ascending within one release', () => {
    const p = pool({ allocator: 'lifo' });
    expect(serve(p, 0, 3)).toEqual([1, 2, 3]);
    expect(p.allocate(1, 2)).toBe(true);
    expect(tableOf(p, 1, 2)).toEqual([1, 2]);
    expect(serve(p, 2, 2)).toEqual([3, 4]);
    expect(p.freeOrder()).toEqual([3, 4, 5, 6, 7, 8]);
    expect(p.free(1)).toBe(false);
  });
});

describe('fault double-free: the free list as a multiset', () => {
  it.each(['sorted', 'sglang', 'lifo'] as const)('%s: a second release of still-free pages lists them twice; two allocations both get one', (allocator) => {
    const p = pool({ allocator, faults: [DOUBLE_FREE] });
    const [a, b] = serve(p, 0, 2);
    const free = p.freePages;
    // The abort path and the normal path both release: accepted while nobody took the pages.
    expect(p.free(0)).toBe(true);
    expect(p.phase(0)).toBe(Ph.released);
    expect(p.freePages).toBe(free + 2);
    expect(p.freeCopies(a ?? 0) + p.releaseCopies(a ?? 0)).toBe(2);
    // Take everything: some page is handed out twice, to two live tables or twice to one.
    expect(p.allocate(1, 5)).toBe(true);
    expect(p.allocate(2, 5)).toBe(true);
    const tables = [...tableOf(p, 1, 5), ...tableOf(p, 2, 5)];
    expect(tables.filter((x) => x === a).length).toBe(2);
    expect(tables.filter((x) => x === b).length).toBe(2);
    expect(p.freePages).toBe(0);
  });

  it('without the fault, a release of free pages is not enabled, and a stale one leaves them listed once', () => {
    const p = pool({ allocator: 'sglang', faults: ['stale-free'] });
    serve(p, 0, 2);
    expect(p.free(0)).toBe(true);
    expect(p.freePages).toBe(8);
    expect(p.releaseCopies(1)).toBe(1);
    const q = pool({ allocator: 'sglang' });
    serve(q, 0, 2);
    expect(q.free(0)).toBe(false);
  });

  it('is not enabled once a page of the old table was taken again', () => {
    const p = pool({ faults: [DOUBLE_FREE] });
    serve(p, 0, 2);
    expect(p.allocate(1, 1)).toBe(true);
    expect(p.free(0)).toBe(false);
  });
});

describe('model-based test against the spec: every order, double-free included', () => {
  it.each(['sorted', 'sglang', 'lifo'] as const)('%s: the pool refines the spec on 2,000 random configurations of every variant and fault set', (allocator) => {
    const result = runMbt({ runs: 2_000, seed: 8, isolation: false, allocators: [allocator] });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
  }, 60_000);

  it('owner-check keeps Isolation with double-free on, in every order; the second releases happen', () => {
    const events = noEvents();
    // Whole pages of one token: at 4 tokens per page a stubbed one-page prompt has a stale tail that the owner check misses (test/spec/slots.test.ts).
    const result = runMbt({ variant: 'owner-check', faults: ['silent-stub', DOUBLE_FREE], runs: 2_000, seed: 9, allocators: ['sorted', 'sglang', 'lifo'], pageSizes: [1], events });
    expect(result.failure?.message).toBeUndefined();
    expect(events['stale-release']).toBeGreaterThan(100);
    expect(events['failed-loudly']).toBeGreaterThan(100);
  }, 60_000);

  it('buggy with double-free: the shrunk counterexample hands one page to two live tables', () => {
    const result = runMbt({ variant: 'buggy', faults: [DOUBLE_FREE], runs: 2_000, seed: 10, allocators: ['sglang'] });
    expect(result.failure?.property).toBe('Isolation');
    expect(result.failure?.commands.join(' ')).toMatch(/free\((\w)\).*free\(\1\)/);
  }, 60_000);
});
