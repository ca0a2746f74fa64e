/**
 * `alloc_extend`'s shortage test counts tokens (issue 25, item 1), and a failed attempt
 * still merges `sglang`'s release list (spec/alloc-fail.ts): in the spec, the pool and the
 * scale reference, the same pages come out.
 */
import { describe, expect, it } from 'vitest';
import { afterRefusal, allocFail, compile, extendTokens, freeEntries, freeList, initial, releasedEntries, kindPresent, releaseList, sglangShort, step, tableOf, allActions, type Config } from '../../spec/index.ts';
import { PagePool } from '../../impl/index.ts';
import { explore } from './footprint-check.ts';
import { radix, runLabels } from './helpers.ts';

/** 8 pages of 4 tokens under sglang: A (8 tokens), B (12), C (`c` tokens), D (36: more than the pool holds once A, B, C are in). */
function pool8(c: number): Config {
  return {
    pages: 8,
    prefillLimit: 32,
    requests: [
      { name: 'A', length: 8 },
      { name: 'B', length: 12 },
      { name: 'C', length: c },
      { name: 'D', length: 28 },
    ],
    variant: 'length-fix',
    faults: [],
    allocator: 'sglang',
    pageSize: 4,
  };
}

const served = (r: string): string[] => [`allocate(${r})`, `prefill(${r})`, `handoff(${r})`, `decode(${r})`, `free(${r})`];

describe("alloc_extend's shortage test on tokens", () => {
  it.each([
    // page size, pages needed, tokens, listed, short
    [64, 2, 100, 3, false],
    [64, 2, 100, 2, true],
    [64, 2, 128, 3, true],
    [64, 2, 128, 4, false],
    [4, 1, 1, 1, true],
    [4, 1, 1, 2, false],
  ] as const)('page size %i, %i pages for %i tokens, %i listed: short %s', (pageSize, need, tokens, listed, short) => {
    expect(sglangShort(pageSize, need, listed, 'extend', tokens)).toBe(short);
  });

  it('a prefix hit asks for the tokens past the cached pages (extend_num_tokens = fill_len - prefix)', () => {
    expect(extendTokens(150, 3, 2, 64)).toBe(86);
    expect(extendTokens(150, 3, 3, 64)).toBe(150);
  });

  it('with a free list one page longer than the need and the release list not empty, a partial last page takes the front: C (5 tokens) gets 6 7, C (8 tokens) merges and gets 1 2', () => {
    const before = [...served('A'), 'allocate(B)'];
    const partial = runLabels(pool8(5), [...before, 'allocate(C)']);
    expect(tableOf(partial.m, partial.last, 2)).toEqual([6, 7]);
    expect(releaseList(partial.m, partial.last)).toEqual([1, 2]);
    const whole = runLabels(pool8(8), [...before, 'allocate(C)']);
    expect(tableOf(whole.m, whole.last, 2)).toEqual([1, 2]);
    expect(releaseList(whole.m, whole.last)).toEqual([]);
  });

  it('the pool takes the same pages for the same tokens', () => {
    for (const [tokens, pages] of [[5, [6, 7]], [8, [1, 2]]] as const) {
      const pool = new PagePool({ pages: 8, prefillLimit: 8, variant: 'length-fix', faults: [], slots: 4, maxLength: 8, allocator: 'sglang', pageSize: 4 });
      expect(pool.allocate(0, 2, undefined, 8)).toBe(true);
      expect(pool.allocate(1, 3, undefined, 12)).toBe(true);
      for (const f of ['prefill', 'handoff', 'decode', 'free'] as const) expect(pool[f](0)).toBe(true);
      expect(pool.allocate(2, 2, undefined, tokens)).toBe(true);
      expect(Array.from(pool.pageTable(2).subarray(0, 2))).toEqual(pages);
    }
  });
});

describe('a failed allocation attempt (allocFail)', () => {
  const labels = [...served('A'), 'allocate(B)', 'allocate(C)'];

  it('merges the release list into the free list; the next allocation takes from the merged list', () => {
    const { m, last } = runLabels(pool8(5), labels);
    expect([freeList(m, last), releaseList(m, last)]).toEqual([[8], [1, 2]]);
    // D needs 7 pages, 3 entries are free: allocate is not enabled, the failed attempt merges.
    expect(step(m, last, { kind: 'allocate', r: 3 })).toBeUndefined();
    const failed = allocFail(m, last, 3);
    expect(failed).toBeDefined();
    expect([freeList(m, failed!), releaseList(m, failed!)]).toEqual([[1, 2, 8], []]);
    expect(afterRefusal(m, last, { kind: 'allocate', r: 3 })?.action).toEqual({ kind: 'allocFail', r: 3 });
  });

  it('is no transition when it would change nothing: the release list empty, the request not new, or enough pages free', () => {
    const { m, last } = runLabels(pool8(5), [...served('A'), 'allocate(B)', 'allocate(C)', 'allocFail(D)']);
    expect(allocFail(m, last, 3)).toBeUndefined();
    expect(allocFail(m, last, 1)).toBeUndefined();
    const early = runLabels(pool8(5), served('A'));
    expect(allocFail(early.m, early.last, 1)).toBeUndefined();
    expect(afterRefusal(m, last, { kind: 'free', r: 1 })).toBeUndefined();
  });

  it('is never explored: no configuration lists it among its actions, so state counts stay as they were', () => {
    const m = compile(pool8(5));
    expect(allActions(m).some((a) => a.kind === 'allocFail')).toBe(false);
    expect(kindPresent('allocFail', { earlyFree: true, prefixes: true, eviction: true, tornWrite: true, ownerCheck: true, tableGrowth: true, retraction: true, offloadAfterFree: true, sourceEarlyFree: true, auxTorn: true, draft: true, loadback: true })).toBe(false);
    expect(allocFail(m, initial(m), 3)).toBeUndefined();
  });

  it('the pool merges on a refused allocation as the spec does', () => {
    const pool = new PagePool({ pages: 8, prefillLimit: 8, variant: 'length-fix', faults: [], slots: 4, maxLength: 8, allocator: 'sglang', pageSize: 4 });
    expect(pool.allocate(0, 2, undefined, 8)).toBe(true);
    expect(pool.allocate(1, 3, undefined, 12)).toBe(true);
    for (const f of ['prefill', 'handoff', 'decode', 'free'] as const) expect(pool[f](0)).toBe(true);
    expect(pool.allocate(2, 2, undefined, 5)).toBe(true);
    expect([pool.releaseCopies(1), pool.freeCopies(1)]).toEqual([1, 0]);
    expect(pool.allocate(3, 7, undefined, 28)).toBe(false);
    expect([pool.releaseCopies(1), pool.freeCopies(1), pool.freeOrder()]).toEqual([0, 1, [1, 2, 8]]);
  });

  it('fails exactly where allocate is not enabled, a radix tree\'s partial match included: it needs the pages past the matched path, as allocate does', () => {
    // sys/doc extends sys: once A's handoff has put sys's node in the tree, B matches it (1 page) though sys/doc itself is not cached.
    const m = compile(radix('length-fix', [], 5, ['2:sys', '3:sys/doc', '2', '3'], { allocator: 'sglang', prefixPages: { 'sys/doc': 2 } }));
    let attempts = 0;
    let partial = 0;
    for (const s of explore(m, 20_000)) {
      for (let r = 0; r < m.n; r++) {
        const failed = allocFail(m, s, r) !== undefined;
        const enabled = step(m, s, { kind: 'allocate', r }) !== undefined;
        if (failed) attempts++;
        // B is allocatable on fewer free entries than its prompt's pages only through the partial match: where a whole-prefix count would fail it.
        if (enabled && r === 1 && releasedEntries(m, s) > 0 && freeEntries(m, s) < (m.promptPages[1] ?? 0)) partial++;
        expect([r, failed && enabled]).toEqual([r, false]);
      }
    }
    // All 7,648 reachable states: 958 failed attempts, and 24 states where B is allocatable only through the partial match.
    expect([attempts, partial]).toEqual([958, 24]);
  });
});
