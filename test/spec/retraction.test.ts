/**
 * Retraction and resume (config `retraction`, actions `retract`, `offload`, `resume`,
 * spec/retraction.ts; SGLang's `retract_decode` and `resume_retracted_reqs`). Pinned here:
 * what retraction alone does to each variant on the minimal incident (the owner check is
 * laundered by the load's stamp), the two faults' shortest counterexamples, `hardened`'s
 * verdict with every fault and the removal test of its `copy-carries-tag`, and that a
 * request holds twice on the pages the allocation order gives it.
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, dataOf, dataPosOf, FAULTS, Integrity, Isolation, tableOf, tagFillOf, tagOf, type Config, type Fault, type Model, type Trace, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runLabels } from './helpers.ts';

const READS = [Isolation, Integrity];
const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const withoutCopyTag = (m: Model): Model => ({ ...m, mechanism: { ...m.mechanism, 'copy-carries-tag': false } });

/** The minimal incident (3 pages, prefill limit 2, A of 2 pages then B of 3) with retraction. */
const incident = (variant: Variant): Config => configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant, retraction: true });

/** Two requests that fit P (A of 2 pages, B of 1) on 3 pages, with one of retraction's faults. */
const faulty = (variant: Variant, fault: Fault): Config => configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2 }, { length: 1 }], variant, faults: [fault], retraction: true });

/** The first violation of `invariant`, its trace in labels. */
function firstOf(m: Model, invariant: 'Isolation' | 'Integrity'): string[] | undefined {
  const r = check(checkedModel(m), { invariants: invariant === 'Isolation' ? [Isolation] : [Integrity] });
  const v = r.violations[0];
  return v === undefined ? undefined : labels(m, v.trace);
}

describe('retraction alone, on the minimal incident', () => {
  it.each([
    ['buggy', 'violation', 35, 8],
    ['length-fix', 'holds', 32, 10],
    ['owner-check', 'violation', 63, 10],
    ['hardened', 'holds', 125, 14],
  ] as const)('%s: %s, %i states, depth %i (Isolation)', (variant, verdict, states, depth) => {
    const r = check(checkedModel(compile(incident(variant))), { invariants: [Isolation] });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual([verdict, states, depth]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  it('buggy: the retraction frees A\'s pages before its decode, and the incident leaks in 8 actions', () => {
    const m = compile(incident('buggy'));
    expect(firstOf(m, 'Isolation')).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)']);
  });

  it('owner-check: the load stamps B\'s tag on the stale pages the stub left, and B reads A\'s data in 10 actions, garbage in 6', () => {
    const m = compile(incident('owner-check'));
    expect(firstOf(m, 'Isolation')).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'retract(B)', 'resume(B)', 'decode(B)']);
    expect(firstOf(m, 'Integrity')).toEqual(['allocate(B)', 'stub(B)', 'handoff(B)', 'retract(B)', 'resume(B)', 'decode(B)']);
  });

  it('hardened holds both, and without copy-carries-tag the owner check\'s laundering comes back (the same two traces)', () => {
    const m = compile(incident('hardened'));
    expect(check(checkedModel(m), { invariants: READS }).verdict).toBe('holds');
    const bare = withoutCopyTag(m);
    expect(firstOf(bare, 'Integrity')).toEqual(['allocate(B)', 'stub(B)', 'handoff(B)', 'retract(B)', 'resume(B)', 'decode(B)']);
    expect(firstOf(bare, 'Isolation')).toHaveLength(10);
  });

  it('a resumed request holds again, on the pages the allocation order hands out, its saved KV loaded into them', () => {
    const config = configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2 }, { length: 1 }], variant: 'owner-check', retraction: true });
    const { m, last } = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'resume(A)', 'decode(A)']);
    // A held 0 and 1; B took 0 (the lowest free); A resumed on 1 and 2, each holding A's KV for its position, tagged A.
    expect(tableOf(m, last, 0)).toEqual([1, 2]);
    expect([1, 2].map((p) => [dataOf(m, last, p), dataPosOf(m, last, p), tagOf(m, last, p)])).toEqual([[1, 0, 1], [1, 1, 1]]);
    expect([Isolation.holds(m, last), Integrity.holds(m, last)]).toEqual([true, true]);
  });
});

describe('fault offload-after-free (SGLang PR #30899)', () => {
  const LEAK = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'prefill(B)', 'offload(A)', 'resume(A)', 'decode(A)'];

  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s: the copy reads B\'s KV from A\'s released pages, and A reads it back as its own (9 actions)', (variant) => {
    expect(firstOf(compile(faulty(variant, 'offload-after-free')), 'Isolation')).toEqual(LEAK);
  });

  it('hardened holds (1,534 states, depth 27); without copy-carries-tag it leaks in the same 9 actions', () => {
    const m = compile(faulty('hardened', 'offload-after-free'));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 1534, 27]);
    expect(firstOf(withoutCopyTag(m), 'Isolation')).toEqual(LEAK);
  });
});

describe('fault resume-stale (SGLang PR #35957)', () => {
  it('length-fix: A resumes on a page never written for it and reads garbage (7 actions)', () => {
    expect(firstOf(compile(faulty('length-fix', 'resume-stale')), 'Integrity')).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'resume(A)', 'decode(A)']);
  });

  it('owner-check holds (513 states, depth 14): the new pages\' tags were cleared when taken and nothing stamped them, so the request fails loudly', () => {
    const r = check(checkedModel(compile(faulty('owner-check', 'resume-stale'))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 513, 14]);
    expect(r.witnesses.find((w) => w.name === 'FailsLoudly')).toMatchObject({ applies: true, reached: true });
  });
});

describe('a resume matches no prefix (SGLang\'s resume_retracted_reqs: _pre_alloc with prefix length 0)', () => {
  it('so a cached prefix that is never evicted starves it: a deadlock in 10 actions, and with eviction it holds (101 states)', () => {
    const config = (eviction: boolean): Config => configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'length-fix', retraction: true, ...(eviction ? { eviction } : {}) });
    const m = compile(config(false));
    const r = check(checkedModel(m));
    expect([r.verdict, r.violations[0]?.invariant]).toEqual(['violation', 'Deadlock']);
    expect(labels(m, r.violations[0]!.trace)).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'retract(B)']);
    const evicting = check(checkedModel(compile(config(true))));
    expect([evicting.verdict, evicting.distinctStates]).toEqual(['holds', 101]);
  });

  it('and the resumed request\'s prefix position is a page of its own, holding the prefix loaded from its copy', () => {
    const config = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'owner-check', retraction: true });
    const { m, last } = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'retract(B)', 'resume(B)', 'decode(B)']);
    // B hit the entry (page 0) at its allocation; resumed, it holds pages 1 and 2, page 0 still the cache's.
    expect(tableOf(m, last, 1)).toEqual([1, 2]);
    expect([Isolation.holds(m, last), Integrity.holds(m, last)]).toEqual([true, true]);
  });
});

describe('hardened with every fault', () => {
  // Issue 24's premature-success is refused with retraction (spec/config-checks.ts), and aux-torn's metadata slot, which retraction
  // does not touch, would triple this space: its every-fault runs are in test/spec/wire.test.ts and test/hardened.
  const faults = FAULTS.filter((f) => f !== 'auto-truncate' && f !== 'premature-success' && f !== 'aux-torn');
  const acceptance = (extra: Partial<Config>): Model =>
    compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'hardened', faults, decodeSteps: 2, retraction: true, ...extra }));

  it('holds Isolation and Integrity on issue 14\'s acceptance configuration with retraction and eviction (833,979 states, depth 45), every witness that applies reached', { timeout: 120_000 }, () => {
    const r = check(checkedModel(acceptance({ eviction: true })), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 833979, 45]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  // With table growth and eviction (2.5 million states): test/spec/retraction-heavy.test.ts.
});

describe('the saved copy, page by page', () => {
  it("hardened with 2-token pages: resume restores the tag's slot count with the tag (copy-carries-tag), 1 of 2 on A's half-filled last page", () => {
    // A of 3 tokens holds 2 pages, the second with one slot written; the copy saves each page's tag and how many slots it counts.
    const config = configFrom({ pages: 3, pageSize: 2, prefillLimit: 4, requests: [{ length: 3 }], variant: 'hardened', retraction: true });
    const { m, last } = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'resume(A)']);
    const table = tableOf(m, last, 0);
    expect(table.map((p) => [tagOf(m, last, p), tagFillOf(m, last, p)])).toEqual([
      [1, 2],
      [1, 1],
    ]);
  });
});
