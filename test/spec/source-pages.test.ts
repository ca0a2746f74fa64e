/**
 * P's source pages (config `sourcePages`, spec/source-pages.ts) and fault
 * `source-early-free` (P aborts a request while its transfer still reads its source pages,
 * frees them, and its next prefill reuses them: SGLang's `process_disagg_prefill_inflight_queue`
 * on `KVPoll.Failed`). Pinned here: the switch alone changes no state count, each
 * variant's shortest counterexample, why a check computed from the source at landing is
 * not enough, `hardened`'s verdict with every fault and the removal test of `hold-source`.
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, allActions, compile, configFrom, dataOf, FAULTS, Integrity, Isolation, sourceFreedOf, tagOf, type Config, type Fault, type Model, type Trace, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runLabels } from './helpers.ts';
import { configWarnings } from '../../cli/warnings.ts';

const READS = [Isolation, Integrity];
const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const withoutHold = (m: Model): Model => ({ ...m, mechanism: { ...m.mechanism, 'hold-source': false } });

/** The smallest configuration: 2 pages, prefill limit 2, one request A of 1 page, torn writes and the fault, P's source pages modelled. */
const smallest = (variant: Variant, sourcePages = true, faults: readonly Fault[] = ['torn-write', 'source-early-free']): Config => ({
  ...configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }], variant, faults: [...faults] }),
  ...(sourcePages ? { sourcePages } : {}),
});

/** Issue 14's acceptance configuration (3 pages, prefill limit 2, A:2, B:3:sys, C:2:sys, two decode steps) with every fault but auto-truncate. */
const acceptance = (sourcePages: boolean): Model =>
  compile({
    ...configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'hardened', faults: FAULTS.filter((f) => f !== 'auto-truncate'), decodeSteps: 2 }),
    ...(sourcePages ? { sourcePages } : {}),
  });

describe('the switch alone', () => {
  it.each([
    ['owner-check', ['torn-write', 'early-free'], 2],
    ['buggy', ['silent-stub', 'torn-write'], 2],
    ['hardened', ['silent-stub', 'torn-write', 'stale-free'], 3],
  ] as const)('%s with %s: the same state count with and without --source-pages (the source holds the request\'s own KV)', (variant, faults, n) => {
    const config = configFrom({ pages: 2, prefillLimit: 1, requests: Array.from({ length: n }, () => ({ length: 1 })), variant, faults: [...faults] });
    const off = check(checkedModel(compile(config)));
    const on = check(checkedModel(compile({ ...config, sourcePages: true })));
    expect([on.verdict, on.distinctStates, on.depth]).toEqual([off.verdict, off.distinctStates, off.depth]);
  });

  it('without torn-write a write lands whole when it is posted, so the abort has nothing in flight: it is never enabled', () => {
    const m = compile(smallest('owner-check', true, ['source-early-free']));
    expect(allActions(m).some((a) => a.kind === 'abortSource')).toBe(true);
    const r = check(checkedModel(m));
    const plain = check(checkedModel(compile(smallest('owner-check', false, []))));
    expect([r.verdict, r.distinctStates, plain.distinctStates]).toEqual(['holds', 6, 6]);
    expect(r.witnesses.find((w) => w.name === 'SourceFreed')).toMatchObject({ applies: false, reached: false });
  });

  it('without the switch the fault has no action (abortSource needs --source-pages)', () => {
    expect(allActions(compile(smallest('owner-check', false))).some((a) => a.kind === 'abortSource')).toBe(false);
  });

  it('the warnings say why the fault cannot fire: the switch is off, or no write is in flight', () => {
    expect(configWarnings(compile(smallest('owner-check', false)))).toEqual([
      "fault source-early-free cannot fire in this configuration: P's source pages are not modelled here (--source-pages is off); a verdict says nothing about it",
    ]);
    expect(configWarnings(compile(smallest('owner-check', true, ['source-early-free'])))).toEqual([
      "fault source-early-free cannot fire in this configuration: without torn-write P's write lands whole when it is posted: no transfer is in flight for P's abort to overtake; a verdict says nothing about it",
    ]);
    expect(configWarnings(compile(smallest('owner-check')))).toEqual([]);
  });
});

describe('fault source-early-free: shortest counterexamples', () => {
  const LEAK = ['allocate(A)', 'prefill(A)', 'abortSource(A)', 'landData(A)', 'handoff(A)', 'decode(A)'];

  it.each([
    ['buggy', 11, LEAK],
    ['length-fix', 11, LEAK],
    ['owner-check', 15, ['allocate(A)', 'prefill(A)', 'landTag(A)', 'abortSource(A)', 'landData(A)', 'handoff(A)', 'decode(A)']],
  ] as const)('%s: Isolation breaks (%i states); A reads another user\'s KV copied from its reused source page', (variant, states, trace) => {
    const m = compile(smallest(variant));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', states, trace.length]);
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', trace.length], ['Integrity', trace.length]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(trace);
  });

  it('owner-check: A\'s page holds another user\'s KV under A\'s own tag, so decode\'s check passes', () => {
    const { m, last } = runLabels(smallest('owner-check'), ['allocate(A)', 'prefill(A)', 'abortSource(A)', 'landData(A)', 'landTag(A)', 'handoff(A)', 'decode(A)']);
    expect([dataOf(m, last, 0), tagOf(m, last, 0)]).toEqual([m.staleLabel, 1]);
    expect([Isolation.holds(m, last), Integrity.holds(m, last)]).toEqual([false, false]);
  });

  it('a tag computed from the source when its part lands would not help: in owner-check\'s shortest trace the tag part lands before the abort, while the source still holds A\'s KV', () => {
    const { m, trace } = runLabels(smallest('owner-check'), ['allocate(A)', 'prefill(A)', 'landTag(A)', 'abortSource(A)', 'landData(A)', 'handoff(A)', 'decode(A)']);
    const at = (k: number) => trace.steps[k - 1]!.state;
    // After step 3 (landTag) the source is not freed yet: a tag read from it is A's; the content part, after step 4, copies the reused page.
    expect([sourceFreedOf(m, at(3), 0), sourceFreedOf(m, at(4), 0)]).toEqual([false, true]);
    expect(dataOf(m, at(5), 0)).toBe(m.staleLabel);
  });
});

describe('hardened: hold-source', () => {
  it('holds on the smallest configuration (11 states, depth 7), the abort reached; without hold-source it leaks as owner-check does (7 actions)', () => {
    const m = compile(smallest('hardened'));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 11, 7]);
    expect(r.witnesses.find((w) => w.name === 'SourceFreed')).toMatchObject({ applies: true, reached: true });
    const bare = check(checkedModel(withoutHold(m)), { invariants: READS });
    expect(labels(m, bare.violations[0]!.trace)).toEqual(['allocate(A)', 'prefill(A)', 'landTag(A)', 'abortSource(A)', 'landData(A)', 'handoff(A)', 'decode(A)']);
  });

  it('holds Isolation and Integrity with every fault but auto-truncate and --source-pages on issue 14\'s acceptance configuration (280,366 states, depth 37; 86,438 and 31 before premature-success and aux-torn joined the catalogue), every witness that applies reached, SourceFreed among them', { timeout: 60_000 }, () => {
    const r = check(checkedModel(acceptance(true)), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 280366, 37]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
    expect(r.witnesses.find((w) => w.name === 'SourceFreed')).toMatchObject({ applies: true, reached: true });
  });

  it('and without hold-source the acceptance configuration leaks', { timeout: 60_000 }, () => {
    const r = check(checkedModel(withoutHold(acceptance(true))), { invariants: READS });
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.invariant).toBe('Isolation');
  });
});
