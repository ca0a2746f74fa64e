/**
 * What an adapter mismatch says (conformance/adapter/compare.ts `compareObserved`): the
 * page or request, the field, and both values. npm run mutation's seed-27 sample found the
 * page's name in that line (`page ${p.id}` emptied) checked by no test of conformance/:
 * adapter.test.ts reaches the mismatches through processes and checks only that they fail.
 */
import { describe, expect, it } from 'vitest';
import { compareObserved } from '../../conformance/adapter/compare.ts';
import { compile, configFrom, initial } from '../../spec/index.ts';

const m = compile(configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 1 }], variant: 'owner-check', faults: [] }));
const s = initial(m);
const free = (id: number) => ({ id, holder: null, data: null, tag: null });

describe('an adapter report against the spec, in words', () => {
  it('agrees on the initial state: no line', () => {
    expect(compareObserved(m, s, { pages: [0, 1, 2].map(free) }, new Set(['holder', 'data', 'tag']))).toEqual([]);
  });

  it('a page the adapter says A holds and has written: one line per observed field, naming the page', () => {
    const observed = { pages: [free(0), { id: 1, holder: 'A', data: 'A', tag: null }, free(2)] };
    expect(compareObserved(m, s, observed, new Set(['holder', 'data', 'tag']))).toEqual(['page 1 holder: spec none, adapter A', 'page 1 data: spec none, adapter A']);
    // Only the fields the adapter observes are compared.
    expect(compareObserved(m, s, observed, new Set(['tag']))).toEqual([]);
  });

  it('a page missing from the report', () => {
    expect(compareObserved(m, s, { pages: [free(0), free(2)] }, new Set(['holder']))).toEqual(['page 1: missing from the adapter\'s report']);
  });
});
