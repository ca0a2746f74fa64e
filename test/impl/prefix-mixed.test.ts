/**
 * The pool for a model whose prefixes differ in length (impl/drive.ts, poolOptionsFor):
 * one prefix of 2 pages and one of 1 must give the pool both lengths, the pool must lay
 * them out one after the other, and a request with the 2-page prefix must take the pages
 * the spec gives it. npm run mutation's seed-29 sample found `some` made `every` (the
 * lengths passed only when every prefix is longer than a page) caught by no test of
 * test/impl, whose multi-page prefix configurations have a single prefix.
 */
import { describe, expect, it } from 'vitest';
import { abstractState, applyAction, PagePool, poolOptionsFor, refinementDiff } from '../../impl/index.ts';
import { allActions, compile, configFrom, initial, step, type Action } from '../../spec/index.ts';

/** 5 pages: A (3 pages, prefix sys of 2 pages), B (2 pages, prefix usr of 1). */
const m = compile(configFrom({ pages: 5, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }, { length: 2, prefix: 'usr' }], variant: 'buggy', faults: [], prefixPages: { sys: 2 } }));

describe('a pool for prefixes of 2 pages and of 1', () => {
  it('has both lengths, laid out one after the other', () => {
    expect(poolOptionsFor(m).prefixLengths).toEqual([2, 1]);
    const pool = new PagePool(poolOptionsFor(m));
    expect([Array.from(pool.prefixLengths), pool.prefixPages.length]).toEqual([[2, 1], 3]);
  });

  it("follows the spec from A's allocation to B's insert, state by state", () => {
    const pool = new PagePool(poolOptionsFor(m));
    let s = initial(m);
    const want = ['allocate', 'prefill', 'handoff', 'decode', 'insert'];
    const taken: string[] = [];
    for (const r of [0, 1]) {
      for (const kind of want) {
        const a = allActions(m).find((x: Action) => x.kind === kind && x.r === r && step(m, s, x) !== undefined);
        if (a === undefined) continue;
        s = step(m, s, a)!;
        expect(applyAction(m, pool, a)).toBe(true);
        expect(refinementDiff(m, s, abstractState(m, pool))).toEqual([]);
        taken.push(`${kind}(${r})`);
      }
    }
    expect(taken).toEqual(['allocate(0)', 'prefill(0)', 'handoff(0)', 'decode(0)', 'insert(0)', 'allocate(1)', 'prefill(1)', 'handoff(1)', 'decode(1)', 'insert(1)']);
  });
});

/**
 * A hit on the second prefix: C shares usr's one page, not sys's two. npm run mutation's
 * seed-40 sample found the shared count read from prefix 0's length for any group
 * (`groups[s] ?? 0` made `&& 0`) caught by no test of test/impl: every hit here was on
 * prefix 0 or on prefixes of one length.
 */
describe('a hit on the second of two prefixes of different lengths', () => {
  const m3 = compile(configFrom({ pages: 6, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }, { length: 2, prefix: 'usr' }, { length: 2, prefix: 'usr' }], variant: 'buggy', faults: [], prefixPages: { sys: 2 } }));

  it("shares the prefix's own length, and the pool follows the spec to C's release", () => {
    const pool = new PagePool(poolOptionsFor(m3));
    let s = initial(m3);
    const taken: string[] = [];
    const shared: number[] = [];
    const life = ['allocate', 'prefill', 'handoff', 'decode', 'insert', 'free'];
    for (const r of [1, 2]) {
      for (const kind of life) {
        const a = allActions(m3).find((x: Action) => x.kind === kind && x.r === r && step(m3, s, x) !== undefined);
        if (a === undefined) continue;
        s = step(m3, s, a)!;
        expect(applyAction(m3, pool, a)).toBe(true);
        expect(refinementDiff(m3, s, abstractState(m3, pool))).toEqual([]);
        taken.push(`${kind}(${r})`);
        if (r === 2 && kind === 'allocate') shared.push(pool.sharedCount(2));
      }
    }
    expect(taken).toEqual(['allocate(1)', 'prefill(1)', 'handoff(1)', 'decode(1)', 'insert(1)', 'free(1)', 'allocate(2)', 'prefill(2)', 'handoff(2)', 'decode(2)', 'free(2)']);
    expect(shared).toEqual([1]);
  });
});
