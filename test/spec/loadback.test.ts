/**
 * The host cache's load back (config `loadback`, spec/loadback.ts) and its faults
 * `host-evict-during-load` (the host copy a load reads is evicted and its slot reused:
 * SGLang's `evict_host` without `protect_host` on a loading node) and `read-before-load`
 * (decode reads before the load lands: no wait on the load's own `LayerDoneCounter`).
 * Pinned here: the switch's inertness where it is off, each variant's shortest
 * counterexample, where the owner check stops each fault and where it does not,
 * `hardened`'s verdict and the removal tests of `protect-host` and `wait-own-load`.
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, dataOf, decodeConfig, FAULTS, Integrity, Isolation, phaseOf, Ph, tagOf, prefixLabel, type Config, type Fault, type Mechanism, type Model, type Trace, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runLabels } from './helpers.ts';
import { agreement } from '../binding/por-agreement.ts';

const READS = [Isolation, Integrity];
const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const without = (m: Model, k: Mechanism): Model => ({ ...m, mechanism: { ...m.mechanism, [k]: false } });
const HOST_FAULTS: readonly Fault[] = ['host-evict-during-load', 'read-before-load'];

/** The smallest configuration: 2 pages, prefill limit 2, A of 1 page, B of 2 with prefix sys (its one page on the host), the switch on. */
const smallest = (variant: Variant, faults: readonly Fault[], loadback = true): Config => ({
  ...configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }], variant, faults: [...faults] }),
  ...(loadback ? { loadback } : {}),
});

/** Issue 14's acceptance configuration (3 pages, prefill limit 2, A:2, B:3:sys, C:2:sys, two decode steps) under `hardened`, every fault but auto-truncate and source-early-free (which needs --source-pages), with the switch. */
const acceptance = (): Model =>
  compile({
    ...configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'hardened', faults: FAULTS.filter((f) => f !== 'auto-truncate' && f !== 'source-early-free'), decodeSteps: 2 }),
    loadback: true,
  });

describe('the switch', () => {
  it.each(['buggy', 'owner-check', 'hardened'] as const)('%s: off, the two faults change no state count (no load is ever posted, evictHost does not exist)', (variant) => {
    const base = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant, faults: ['early-free'] });
    const plain = check(checkedModel(compile(base)));
    const faulted = check(checkedModel(compile({ ...base, faults: ['early-free', ...HOST_FAULTS] })));
    expect([faulted.verdict, faulted.distinctStates, faulted.depth]).toEqual([plain.verdict, plain.distinctStates, plain.depth]);
    expect(compile({ ...base, faults: ['early-free', ...HOST_FAULTS] }).layout.fields.load).toBeUndefined();
  });

  it('needs a request with a prefix (exit 2 names the flag), and is inert with radix or retraction', () => {
    const refused = decodeConfig({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 2 }], loadback: true });
    expect(refused._tag).toBe('Left');
    expect(JSON.stringify(refused)).toContain('loadback loads a prompt prefix back from host memory: it needs a request with a prefix');
    expect(JSON.stringify(decodeConfig({ pages: 2, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }], loadback: 'yes' }))).toContain('expected true or false, got \\"yes\\"');
    const base = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }], variant: 'buggy', faults: [], eviction: true, radix: true });
    expect(compile({ ...base, loadback: true }).layout.fields.load).toBeUndefined();
  });

  it('on, with no fault: every variant holds in 90 states (depth 13), the load and a host eviction reached', () => {
    for (const variant of ['buggy', 'length-fix', 'owner-check', 'hardened'] as const) {
      const r = check(checkedModel(compile(smallest(variant, []))), { invariants: READS });
      expect([variant, r.verdict, r.distinctStates, r.depth]).toEqual([variant, 'holds', 90, 13]);
      expect(r.witnesses.filter((w) => w.name === 'LoadedBack' || w.name === 'HostEvicted').map((w) => w.reached)).toEqual([true, true]);
    }
  });
});

describe('fault host-evict-during-load', () => {
  const LEAK = ['allocate(B)', 'prefill(B)', 'handoff(B)', 'evictHost(B)', 'loadBack(B)', 'decode(B)'];

  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s: Isolation breaks in 6 actions (37 states): the load copies the reused host slot into B\'s prefix page', (variant) => {
    const m = compile(smallest(variant, ['host-evict-during-load']));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 37, 6]);
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', 6], ['Integrity', 6]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(LEAK);
    expect(r.witnesses.find((w) => w.name === 'HostReusedUnderLoad')).toMatchObject({ applies: true, reached: true });
  });

  it('owner-check does not stop it: D tags the page with what it asked to load (the prefix\'s page), whatever the host slot held', () => {
    const { m, last } = runLabels(smallest('owner-check', ['host-evict-during-load']), LEAK);
    expect([dataOf(m, last, 0), tagOf(m, last, 0)]).toEqual([m.staleLabel, prefixLabel(m, 0, 0)]);
    expect(phaseOf(m, last, 1)).toBe(Ph.decoded);
  });

  it('hardened holds (90 states, depth 13); without protect-host it leaks in the same 6 actions', () => {
    const m = compile(smallest('hardened', ['host-evict-during-load']));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 90, 13]);
    const bare = check(checkedModel(without(m, 'protect-host')), { invariants: READS });
    expect([bare.verdict, bare.distinctStates]).toEqual(['violation', 37]);
    expect(labels(m, bare.violations[0]!.trace)).toEqual(LEAK);
  });
});

describe('fault read-before-load', () => {
  const EARLY = ['allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)'];
  const LEAK = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)'];

  it.each(['buggy', 'length-fix'] as const)('%s: Integrity breaks in 4 (18 states: a prefix page never written), Isolation alone in 9 (80 states: the page still holds A\'s KV)', (variant) => {
    const m = compile(smallest(variant, ['read-before-load']));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 18, 4]);
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Integrity', 4]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(EARLY);
    const leak = check(checkedModel(m), { invariants: [Isolation] });
    expect([leak.verdict, leak.distinctStates, leak.depth]).toEqual(['violation', 80, 9]);
    expect(labels(m, leak.violations[0]!.trace)).toEqual(LEAK);
  });

  it('owner-check stops it, loudly: holds (123 states, depth 13); the allocation cleared the tags and only the load stamps them, so an early decode fails B', () => {
    const m = compile(smallest('owner-check', ['read-before-load']));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 123, 13]);
    expect(r.witnesses.find((w) => w.name === 'ReadBeforeLoad')).toMatchObject({ applies: true, reached: true });
    const { m: mm, last } = runLabels(smallest('owner-check', ['read-before-load']), LEAK);
    expect([tagOf(mm, last, 0), phaseOf(mm, last, 1)]).toEqual([0, Ph.failed]);
  });

  it('hardened holds in 90 states with no failure; without wait-own-load it still holds, in the 123 states where B fails loudly (the removal costs a request, not a leak)', () => {
    const m = compile(smallest('hardened', ['read-before-load']));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 90, 13]);
    const bare = check(checkedModel(without(m, 'wait-own-load')), { invariants: READS });
    expect([bare.verdict, bare.distinctStates]).toEqual(['holds', 123]);
    // Under the owner check the only decode that meets its load unlanded is one that fails.
    expect(bare.witnesses.find((w) => w.name === 'ReadBeforeLoad')).toMatchObject({ applies: true, reached: true });
  });
});

describe('hardened with every fault', () => {
  it('holds Isolation and Integrity on issue 14\'s acceptance configuration with --loadback (349,190 states, depth 39), every witness that applies reached, LoadedBack and HostEvicted among them', { timeout: 120_000 }, () => {
    const r = check(checkedModel(acceptance()), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 349190, 39]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
    expect(r.witnesses.filter((w) => w.name === 'LoadedBack' || w.name === 'HostEvicted').map((w) => w.reached)).toEqual([true, true]);
  });

  it('and without protect-host it leaks', { timeout: 120_000 }, () => {
    const r = check(checkedModel(without(acceptance(), 'protect-host')), { invariants: READS });
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.invariant).toBe('Isolation');
  });
});

describe('partial-order reduction', () => {
  const cfg = (variant: Variant, faults: readonly Fault[]): Config => ({
    ...configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant, faults: [...faults], eviction: true }),
    loadback: true,
  });
  it.each([
    ['buggy', HOST_FAULTS, 6036, 1],
    ['owner-check', [...HOST_FAULTS, 'early-free'], 22290, 1],
    ['hardened', [...HOST_FAULTS, 'early-free', 'torn-write'], 39117, 0],
  ] as const)('%s with %s, eviction and --loadback: the reduced search agrees with the plain one (%i states, %i violations; a host eviction reads every load, so nothing is reduced here)', { timeout: 60_000 }, (variant, faults, states, violations) => {
    const a = agreement(cfg(variant, faults), { continueAfterViolation: true });
    expect([a.difference, a.plain, a.reduced, a.violations, a.deeper]).toEqual([undefined, states, states, violations, 0]);
  });
});
