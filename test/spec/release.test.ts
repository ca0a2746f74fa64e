/**
 * A release as SGLang makes it (spec/release.ts, issue 23 item 3): its allocator calls in
 * order, the group batching under `lifo`, the `holds_kv` guard, and fault
 * `segment-overlap` with `hardened`'s verdict on it. Figures measured with this checker.
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import {
  actionLabel,
  ALLOCATORS,
  compile,
  configFrom,
  FAULTS,
  freeList,
  Integrity,
  Isolation,
  matrixConfig,
  NoDuplicateFree,
  releaseCalls,
  releaseList,
  releaseShape,
  SegmentOverlap,
  step,
  type Allocator,
  type Config,
  type Fault,
  type Model,
  type Trace,
  type Variant,
} from '../../spec/index.ts';
import { runLabels } from './helpers.ts';

const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const READS = [Isolation, Integrity];
const without = (m: Model): Model => ({ ...m, mechanism: { ...m.mechanism, 'release-checks-holder': false } });

/** One request A of 5 tokens with a one-page prefix, two slots a page: 3 pages, the prefix's own page, a segment page and a tail page. */
const small = (allocator: Allocator, faults: readonly Fault[] = []): Config => ({
  pages: 4,
  prefillLimit: 8,
  pageSize: 2,
  requests: [{ name: 'A', length: 5, prefix: 'sys' }],
  variant: 'buggy',
  faults,
  allocator,
});
const SERVED = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)'];

describe('the calls of one release', () => {
  it('duplicates, then the tail (cache_finished_req), then the segment (free_segment): positions, in call order', () => {
    const { m, last } = runLabels(small('sorted'), SERVED);
    expect(releaseCalls(releaseShape(m, last, 0))).toEqual([
      { fn: 'free', part: 'duplicates', from: 0, to: 1, again: -1 },
      { fn: 'free', part: 'tail', from: 2, to: 3, again: -1 },
      { fn: 'free_segment', part: 'segment', from: 1, to: 2, again: -1 },
    ]);
    // With the fault, the segment starts one page early: on the tail's page, freed by the call before it.
    const faulty = runLabels(small('sorted', ['segment-overlap']), SERVED);
    expect(releaseCalls(releaseShape(faulty.m, faulty.last, 0)).at(-1)).toEqual({ fn: 'free_segment', part: 'segment', from: 1, to: 2, again: 2 });
  });

  it("a request that inserted its prefix has no duplicates, and one page per page of a prompt that fills it has no tail", () => {
    const { m, last } = runLabels(small('sorted'), [...SERVED, 'insert(A)']);
    expect(releaseCalls(releaseShape(m, last, 0)).map((c) => [c.part, c.from, c.to])).toEqual([['tail', 2, 3], ['segment', 1, 2]]);
    expect(releaseCalls({ shared: 0, prefix: 0, pages: 3, tokens: 6, pageSize: 2, overlap: true })).toEqual([{ fn: 'free_segment', part: 'segment', from: 0, to: 3, again: -1 }]);
  });

  it('the free list after free(A), per allocator: under lifo the segment joins in front of the deduplicated frees (one group)', () => {
    const lists = ALLOCATORS.filter((a) => a !== 'any').map((a) => {
      const { m, last } = runLabels(small(a), [...SERVED, 'free(A)']);
      // A's table was [0, 1, 2] under sorted, [1, 2, 3] where page 0 is the padding page; it dies with the release.
      return [a, freeList(m, last), releaseList(m, last)];
    });
    expect(lists).toEqual([
      ['sorted', [0, 1, 2, 3], []],
      // need_sort: the pages wait in the release list, whose order no allocation reads.
      ['sglang', [4], [1, 2, 3]],
      // free_group_end: free([1] + [3]) as one unique batch, then the segment's [2], each prepended.
      ['lifo', [2, 1, 3, 4], []],
    ]);
  });

  it('segment-overlap under lifo: the tail page goes on the free list twice, in two batches', () => {
    const { m, last } = runLabels(small('lifo', ['segment-overlap']), [...SERVED, 'free(A)']);
    expect(freeList(m, last)).toEqual([2, 3, 1, 3, 4]);
    expect(SegmentOverlap.holds(m, last)).toBe(true);
    expect(NoDuplicateFree.holds(m, last)).toBe(false);
  });

  it('the holds_kv guard: a second free of a released request changes nothing (not enabled), unless stale-free bypasses it', () => {
    const once = runLabels(small('lifo'), [...SERVED, 'free(A)']);
    expect(step(once.m, once.last, { kind: 'free', r: 0 })).toBeUndefined();
    const stale = runLabels(small('lifo', ['stale-free']), [...SERVED, 'free(A)', 'free(A)']);
    expect(freeList(stale.m, stale.last)).toEqual([2, 1, 3, 4]);
  });
});

describe('fault segment-overlap on the matrix configuration (3 pages, A:2 B:3:sys C:2:sys)', () => {
  const shortest = (variant: Variant, allocator: Allocator, invariants = READS): ReturnType<typeof check> & { m: Model } => {
    const m = compile({ ...matrixConfig(variant, ['segment-overlap']), allocator });
    return { ...check(checkedModel(m), { invariants }), m };
  };

  it('sorted, under buggy, length-fix and owner-check: garbage in 7 actions, A handed both copies of B\'s twice-freed page', () => {
    // B, refused, is released: its duplicates' call frees page 0 and its segment frees 0 again with 1 and 2;
    // A's allocation takes the two lowest entries, 0 and 0, and its own two positions' writes collide.
    for (const variant of ['buggy', 'length-fix', 'owner-check'] as const) {
      const r = shortest(variant, 'sorted');
      expect([variant, r.verdict, r.distinctStates, r.depth]).toEqual([variant, 'violation', 38, 7]);
      expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Integrity', 7]]);
      expect(labels(r.m, r.violations[0]!.trace as Trace)).toEqual(['allocate(B)', 'stub(B)', 'free(B)', 'allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)']);
      expect(shortest(variant, 'sorted', [Isolation]).verdict).toBe('holds');
    }
  });

  it('lifo, under buggy and length-fix: a leak in 9 actions, A and C both handed page 1; the owner check stops it', () => {
    // The free list after free(B): [1, 2, 3, 1]; A takes 1 and 2, C takes 3 and 1; C's write lands in A's first page.
    for (const variant of ['buggy', 'length-fix'] as const) {
      const r = shortest(variant, 'lifo', [Isolation]);
      expect([variant, r.verdict, r.distinctStates, r.depth]).toEqual([variant, 'violation', 74, 9]);
      expect(labels(r.m, r.violations[0]!.trace as Trace)).toEqual(['allocate(B)', 'stub(B)', 'free(B)', 'allocate(A)', 'allocate(C)', 'prefill(A)', 'prefill(C)', 'handoff(A)', 'decode(A)']);
    }
    const owner = shortest('owner-check', 'lifo');
    expect([owner.verdict, owner.distinctStates, owner.depth]).toEqual(['holds', 304, 14]);
  });

  it('hardened holds Isolation and Integrity: 88 states (sorted), 100 (lifo), depth 14, the overlap reached', () => {
    for (const [allocator, states] of [['sorted', 88], ['lifo', 100]] as const) {
      const r = shortest('hardened', allocator);
      expect([allocator, r.verdict, r.distinctStates, r.depth]).toEqual([allocator, 'holds', states, 14]);
      expect(r.witnesses.find((w) => w.name === 'SegmentOverlap')).toMatchObject({ applies: true, reached: true });
    }
  });

  it('hardened holds Isolation and Integrity with every fault on: 151,126 states, depth 37 (47,192 and 31 before the wire faults of issue 24)', () => {
    const r = check(checkedModel(compile(matrixConfig('hardened', [...FAULTS]))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 151_126, 37]);
  });

  it('removal: hardened without release-checks-holder gives back the 7-action garbage (the owner check cannot see a request collide with itself)', () => {
    const m = without(compile(matrixConfig('hardened', ['segment-overlap'])));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates]).toEqual(['violation', 38]);
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Integrity', 7]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(['allocate(B)', 'stub(B)', 'free(B)', 'allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)']);
  });
});

describe("lifo's list holds what the faults put on it twice", () => {
  it('double-free and segment-overlap together under lifo: a second release of each table and an overlap per release fit the list (2,570 states; it overflowed before)', () => {
    const config = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }, { length: 1 }], allocator: 'lifo', variant: 'buggy', faults: ['double-free', 'segment-overlap'] });
    const r = check(checkedModel(compile(config)), { continueAfterViolation: true });
    expect(r.distinctStates).toBe(2570);
  });

  it('with retraction, whose every release may list a page once more, the combination is refused, naming it', () => {
    expect(() => configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 2 }], allocator: 'lifo', variant: 'buggy', faults: ['double-free'], retraction: true })).toThrow(
      "retraction: retraction with allocator lifo and fault double-free is not modelled: every retraction is a release that may put a page on lifo's list once more, and the list would have no bound; check it with allocator sorted or sglang",
    );
  });
});
