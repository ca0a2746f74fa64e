/** The allocation orders of docs/ALLOCATOR.md, step by step: the worked examples and the free list after each release. */
import { describe, expect, it } from 'vitest';
import { Either } from 'effect';
import { decodeConfig, freeList, releaseList, tableOf, type Allocator, type Config } from '../../spec/index.ts';
import { runLabels } from './helpers.ts';

/** 8 pages; A and C of 2 pages, then six 1-page requests D..I (lengths in tokens: whole pages of `pageSize`). */
function eightPages(allocator: Allocator, pageSize = 1): Config {
  return {
    pages: 8,
    prefillLimit: 8 * pageSize,
    requests: [
      { name: 'A', length: 2 * pageSize },
      { name: 'C', length: 2 * pageSize },
      ...['D', 'E', 'F', 'G', 'H', 'I'].map((name) => ({ name, length: pageSize })),
    ],
    variant: 'length-fix',
    faults: [],
    allocator,
    pageSize,
  };
}

const served = (r: string): string[] => [`allocate(${r})`, `prefill(${r})`, `handoff(${r})`, `decode(${r})`, `free(${r})`];
const SIX = ['D', 'E', 'F', 'G', 'H', 'I'];

/** The pages each named request got, in order. */
function tables(config: Config, labels: readonly string[], names: readonly string[]): number[][] {
  const { m, last } = runLabels(config, labels);
  return names.map((name) => tableOf(m, last, config.requests.findIndex((q) => q.name === name)));
}

describe('sglang: the release list waits until an allocation finds the free list short', () => {
  it('A takes 1 2 and is freed; C then gets 3 4, not the pages just freed', () => {
    const { m, last } = runLabels(eightPages('sglang'), [...served('A'), 'allocate(C)']);
    expect(tableOf(m, last, 1)).toEqual([3, 4]);
    expect(freeList(m, last)).toEqual([5, 6, 7, 8]);
    expect(releaseList(m, last)).toEqual([1, 2]);
  });

  it('4-token pages (alloc_extend merges when need + 2 exceeds the free list): six 1-page requests get 5 6 1 2 7 8', () => {
    const labels = [...served('A'), 'allocate(C)', ...SIX.map((r) => `allocate(${r})`)];
    expect(tables(eightPages('sglang', 4), labels, SIX).flat()).toEqual([5, 6, 1, 2, 7, 8]);
  });

  it('1-token pages (alloc merges only when the need exceeds the free list): they get 5 6 7 8 1 2', () => {
    const labels = [...served('A'), 'allocate(C)', ...SIX.map((r) => `allocate(${r})`)];
    expect(tables(eightPages('sglang', 1), labels, SIX).flat()).toEqual([5, 6, 7, 8, 1, 2]);
  });

  it('page 0 is the padding page: never on a free list, never handed out', () => {
    const { m, last } = runLabels(eightPages('sglang'), []);
    expect(freeList(m, last)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(m.pages).toBe(9);
  });
});

describe('lifo: a release goes to the front of the free list', () => {
  it('C gets the pages A just freed; a later release comes out before them', () => {
    expect(tables(eightPages('lifo'), [...served('A'), 'allocate(C)'], ['C'])).toEqual([[1, 2]]);
    const { m, last } = runLabels(eightPages('lifo'), [...served('A'), 'allocate(C)', 'allocate(D)', ...served('C').slice(1), 'allocate(E)']);
    // C is freed by now: its table is dead (spec/liveness.ts) and reads empty.
    expect(tableOf(m, last, 1)).toEqual([]);
    expect(tableOf(m, last, 2)).toEqual([3]);
    expect(tableOf(m, last, 3)).toEqual([1]);
    expect(freeList(m, last)).toEqual([2, 4, 5, 6, 7, 8]);
  });
});

describe('sorted: the lowest free ids, from 0', () => {
  it('C gets the pages A just freed', () => {
    expect(tables(eightPages('sorted'), [...served('A'), 'allocate(C)'], ['C'])).toEqual([[0, 1]]);
  });
});

describe('double-free: the free list as a list', () => {
  const config = (allocator: Allocator): Config => ({
    pages: 2,
    prefillLimit: 2,
    requests: [{ name: 'A', length: 1 }, { name: 'B', length: 1 }, { name: 'C', length: 1 }],
    variant: 'buggy',
    faults: ['double-free'],
    allocator,
  });

  it('a second release of a still-free page leaves it twice; two later requests both get it', () => {
    const { m, last } = runLabels(config('sorted'), [...served('A'), 'free(A)', 'allocate(B)', 'allocate(C)']);
    expect([tableOf(m, last, 1), tableOf(m, last, 2)]).toEqual([[0], [0]]);
  });

  it('under sglang the duplicate waits in the release list and comes out after the merge', () => {
    const { m, last } = runLabels(config('sglang'), [...served('A'), 'free(A)']);
    expect(releaseList(m, last)).toEqual([1, 1]);
    const after = runLabels(config('sglang'), [...served('A'), 'free(A)', 'allocate(B)', 'allocate(C)']);
    expect([tableOf(after.m, after.last, 1), tableOf(after.m, after.last, 2)]).toEqual([[2], [1]]);
  });

  it('under lifo both copies are at the front', () => {
    const { m, last } = runLabels(config('lifo'), [...served('A'), 'free(A)']);
    expect(freeList(m, last)).toEqual([1, 1, 2]);
  });

  it('without the fault the second release is not enabled while the pages are still free', () => {
    const c = config('sorted');
    expect(() => runLabels({ ...c, faults: [] }, [...served('A'), 'free(A)'])).toThrow(/step 6: free\(A\) is not enabled/);
  });

  it('the second release is not enabled once a page was handed out again (that is stale-free)', () => {
    expect(() => runLabels(config('sorted'), [...served('A'), 'allocate(B)', 'free(A)'])).toThrow(/step 7: free\(A\) is not enabled/);
  });
});

describe('configuration', () => {
  it('refuses allocator any where its choices would not fit the checker’s one-byte action index, naming the field', () => {
    const r = decodeConfig({ pages: 6, prefillLimit: 2, requests: [{ length: 3 }, { length: 3 }, { length: 3 }], allocator: 'any' });
    expect(Either.isLeft(r) && r.left.issues).toEqual([
      { path: 'allocator', message: '"any" makes every choice of pages its own action: 375 actions here, more than the 256 the checker indexes; use fewer pages or shorter requests' },
    ]);
  });

  it('names a bad allocator and a bad page size', () => {
    const r = decodeConfig({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }], allocator: 'fifo', pageSize: 0 });
    expect(Either.isLeft(r) && r.left.issues.map((i) => i.path)).toEqual(['allocator', 'pageSize']);
  });
});
