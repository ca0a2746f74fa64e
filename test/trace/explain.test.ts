import { describe, expect, it } from 'vitest';
import { explain } from '../../trace/index.ts';
import { earlyFree, minimalLeak, prefixPoison, staleFree, staleRead } from './traces.ts';

describe('explain', () => {
  it('Isolation: the reader, the page, the writer and when it wrote', () => {
    const { m, trace } = minimalLeak();
    const x = explain(m, trace, 'Isolation');
    expect(x).toEqual({
      invariant: 'Isolation',
      step: 9,
      pages: [1],
      headline: ["B read page 1, which holds A's data written at step 2."],
      details: [
        "page 1: step 1 allocate(A) gave it to A; step 2 prefill(A) wrote A's data into it; step 5 free(A) freed it, A's data left in it; step 6 allocate(B) gave it to B.",
      ],
    });
  });

  it('Isolation: a late write is dated by the step that wrote it, not the one that took the page', () => {
    const { m, trace } = earlyFree();
    const x = explain(m, trace, 'Isolation');
    expect(x.pages).toEqual([0, 1]);
    expect(x.headline).toEqual([
      "C read page 0, which holds A's data written at step 5.",
      "C read page 1, which holds A's data written at step 5.",
    ]);
  });

  it('Isolation: a poisoned prefix page, reached through the cache', () => {
    const { m, trace } = prefixPoison();
    const x = explain(m, trace, 'Isolation');
    expect(x.step).toBe(13);
    expect(x.pages).toEqual([0]);
    expect(x.headline).toEqual(["C read page 0, which holds A's data written at step 2."]);
  });

  it('ExclusiveHold: the pages freed twice, by whom, and who holds them', () => {
    const { m, trace } = staleFree();
    const x = explain(m, trace, 'ExclusiveHold');
    expect(x.step).toBe(7);
    expect(x.pages).toEqual([0, 1]);
    expect(x.headline).toEqual([
      "page 0 is in C's page table (given to C at step 6), but A freed it twice (steps 5, 7): it is held and free at once.",
      "page 1 is in C's page table (given to C at step 6), but A freed it twice (steps 5, 7): it is held and free at once.",
    ]);
  });

  it('ExclusiveHold: a page in two live page tables', () => {
    const { m, trace } = staleRead();
    const x = explain(m, trace, 'ExclusiveHold');
    expect(x.headline).toEqual([
      'page 0 is in the page tables of B and C at once; B holds it since step 8 (allocate(B)).',
      'page 1 is in the page tables of B and C at once; B holds it since step 8 (allocate(B)).',
    ]);
  });

  it('Conservation: the count, then the pages counted twice', () => {
    const { m, trace } = staleFree();
    const x = explain(m, trace, 'Conservation');
    expect(x.headline).toHaveLength(3);
    expect(x.headline[0]).toBe('free and cached pages (3) plus pages in live page tables (2) make 5, not 3.');
    expect(x.headline[1]).toContain("page 0 is in C's page table");
  });

  it('ReadsOwnPages: the page read and who held it', () => {
    const { m, trace } = staleRead();
    const x = explain(m, trace, 'ReadsOwnPages');
    expect(x.step).toBe(11);
    expect(x.pages).toEqual([0, 1]);
    expect(x.headline).toEqual([
      'C read page 0, which it does not hold: B holds it since step 8 (allocate(B)).',
      'C read page 1, which it does not hold: B holds it since step 8 (allocate(B)).',
    ]);
  });

  it('an invariant it does not know gets a plain sentence', () => {
    const { m, trace } = minimalLeak();
    expect(explain(m, trace, 'SomethingNew')).toEqual({
      invariant: 'SomethingNew',
      step: 9,
      pages: [],
      headline: ['the last state violates SomethingNew.'],
      details: [],
    });
  });
});
