/**
 * The prefix cache as it is: lock counts while requests that hit it are live, `evict`
 * when an allocation finds too few free pages, and fault `lock-underflow`. Figures from
 * `npm run -s pagecheck -- check --continue <flags>` (symmetry on).
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, AllServed, compile, configFrom, enabled, FailsLoudly, Isolation, type Model } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { reachable } from './orbits.ts';

/** 3 pages, prefill limit 3: A (2, prefix sys), B (3), C (2, prefix sys). B needs every page. */
const starving = (eviction: boolean): Model =>
  compile(configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 3 }, { length: 2, prefix: 'sys' }], variant: 'length-fix', faults: [], eviction }));

/** 3 pages, prefill limit 3: A and B (2 pages, prefix sys), C (2 pages); eviction on. */
const underflow = (variant: 'buggy' | 'owner-check', faults: string[]): Model =>
  compile(configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }, { length: 2 }], variant, faults, eviction: true }));

const reachedNames = (r: ReturnType<typeof check>): string[] => r.witnesses.filter((w) => w.reached).map((w) => w.name);

describe('eviction', () => {
  /** The reachable states where no action is enabled although some request was never served. */
  const deadlocks = (m: Model): number => reachable(m).filter((s) => enabled(m, s).length === 0 && !AllServed.holds(m, s)).length;

  it('without it a cached page is held for good: once A inserts its prefix page, B (3 pages) can never be allocated and the run deadlocks', () => {
    expect(deadlocks(starving(false))).toBe(6);
  });

  it('with it no run deadlocks', () => {
    expect(deadlocks(starving(true))).toBe(0);
  });

  it('with it the same configuration holds and every request is served: 116 states, depth 19 (--pages 3 --prefill-limit 3 --requests 2:sys,3,2:sys --variant length-fix --faults none --eviction)', () => {
    const r = check(checkedModel(starving(true)), { continueAfterViolation: true });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 116, 19]);
    expect(reachedNames(r)).toEqual(expect.arrayContaining(['AllServed', 'CacheEvicts']));
    expect(r.witnesses.filter((w) => w.applies && !w.reached)).toEqual([]);
  });

  it('without the fault, lock counts keep a page in the cache while a request that hit it is live: holds on 96 states', () => {
    const r = check(checkedModel(underflow('buggy', [])), { continueAfterViolation: true });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 96, 16]);
  });
});

describe('fault lock-underflow', () => {
  it('buggy: B hits the cache without locking it; A releases, the page is evicted for C and rewritten; B reads C’s data (13 actions)', () => {
    const m = underflow('buggy', ['lock-underflow']);
    const r = check(checkedModel(m), { invariants: [Isolation] });
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', 13]]);
    expect(r.violations[0]!.trace.steps.map((s) => actionLabel(m, s.action))).toEqual([
      'allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)',
      'free(A)', 'evict(C)', 'allocate(C)', 'prefill(C)', 'decode(B)',
    ]);
  });

  it('buggy, whole space: the bookkeeping breaks first (217 states)', () => {
    const r = check(checkedModel(underflow('buggy', ['lock-underflow'])), { continueAfterViolation: true });
    expect([r.distinctStates, r.depth]).toEqual([217, 17]);
    expect(r.violations.map((v) => v.invariant)).toEqual(['ExclusiveHold', 'NoUseAfterFree', 'ReadsOwnPages', 'Isolation']);
    expect(reachedNames(r)).toContain('EvictedWhileRead');
  });

  it('owner-check: Isolation holds; the read that would have leaked fails loudly', () => {
    const r = check(checkedModel(underflow('owner-check', ['lock-underflow'])), { continueAfterViolation: true });
    expect(r.violations.map((v) => v.invariant)).not.toContain('Isolation');
    expect([r.distinctStates, r.depth]).toEqual([221, 17]);
    expect(reachedNames(r)).toContain('EvictedWhileRead');
    const m = underflow('owner-check', ['lock-underflow']);
    expect(reachable(m).some((s) => FailsLoudly.holds(m, s))).toBe(true);
  });
});
