import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, ExclusiveHold, incidentConfig, DEFAULT_INVARIANTS, Isolation, lastState, propertyNamed, run, type Model, type Trace } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { MINIMAL_LEAK } from '../spec/helpers.ts';

/*
 * Provenance of the pinned counts: the whole-space counts of the minimal incident (21, 16,
 * 21) are also SPIN's on the exported model (test/spin/cross-check.test.ts) and a
 * brute-force enumeration's (test/proofs/reachable.test.ts); the 9-action leak is
 * derived by hand in the protocol's description (README, "the incident in nine actions").
 * Counts of a search that stops at its first violation (18) are regression pins.
 */
const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const reached = (r: ReturnType<typeof check>): string[] => r.witnesses.filter((w) => w.reached).map((w) => w.name);
const unreached = (r: ReturnType<typeof check>): string[] => r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name);

describe('check on the minimal incident (3 pages, prefill limit 2, requests 2,3)', () => {
  it('buggy: stops at the first violating state, the 9-action leak of docs/BACKGROUND.md ("The minimal leak")', () => {
    const m = compile(incidentConfig('buggy'));
    const r = check(checkedModel(m));
    expect(r.verdict).toBe('violation');
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', 9]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual([...MINIMAL_LEAK]);
    expect([r.distinctStates, r.depth]).toEqual([18, 9]);
  });

  it('buggy with continueAfterViolation: the whole space, 21 states at depth 10, and the same shortest leak', () => {
    const m = compile(incidentConfig('buggy'));
    const r = check(checkedModel(m), { continueAfterViolation: true });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 21, 10]);
    expect(r.violations.map((v) => `${v.invariant}@${v.depth}`)).toEqual(['Isolation@9']);
    expect(reached(r)).toEqual(['DecodeSucceeds', 'PageReused', 'OverLongStubbed']);
  });

  it('length-fix holds on 16 states at depth 8 with every applicable witness reached', () => {
    const r = check(checkedModel(compile(incidentConfig('length-fix'))));
    expect([r.verdict, r.distinctStates, r.depth, r.violations.length]).toEqual(['holds', 16, 8, 0]);
    expect(reached(r)).toEqual(['DecodeSucceeds', 'PageReused', 'OverLongRefused']);
    expect(unreached(r)).toEqual([]);
  });

  it('owner-check holds on 21 states at depth 10; the would-be leak fails loudly', () => {
    const r = check(checkedModel(compile(incidentConfig('owner-check'))));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 21, 10]);
    expect(reached(r)).toEqual(['DecodeSucceeds', 'PageReused', 'OverLongStubbed', 'FailsLoudly']);
    expect(unreached(r)).toEqual([]);
  });
});

describe('counterexamples are genuine, shortest executions', () => {
  const m = compile(configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2, prefix: 's' }, { length: 2, prefix: 's' }, { length: 3 }], faults: ['silent-stub', 'stale-free', 'prefix-poison'] }));
  const r = check(checkedModel(m), { continueAfterViolation: true });

  it('keeps the first violation of each invariant, in breadth-first order', () => {
    expect(r.violations.map((v) => `${v.invariant}@${v.depth}`)).toEqual(['ExclusiveHold@7', 'Conservation@7', 'NoUseAfterFree@7', 'Isolation@9', 'ReadsOwnPages@10']);
    expect([r.distinctStates, r.depth]).toEqual([1880, 20]); // regression pin; the same configuration's raw count is enumerated in symmetry.test.ts
  });

  it('each trace re-runs from the initial state and ends in a state that violates its invariant, and only there', () => {
    for (const v of r.violations) {
      const replayed = run(m, v.trace.steps.map((s) => s.action));
      expect('trace' in replayed).toBe(true);
      const inv = propertyNamed(v.invariant)!;
      const states = [v.trace.initial, ...v.trace.steps.map((s) => s.state)];
      expect(states.map((s) => inv.holds(m, s)).lastIndexOf(true)).toBe(states.length - 2);
      expect(inv.holds(m, lastState(v.trace))).toBe(false);
      expect(v.trace.steps.length).toBe(v.depth);
    }
  });
});

describe('options', () => {
  it('invariants restricts what is checked: without Isolation, buggy holds on its minimal incident', () => {
    const m = compile(incidentConfig('buggy'));
    const r = check(checkedModel(m), { invariants: DEFAULT_INVARIANTS.filter((p) => p !== Isolation) });
    expect([r.verdict, r.distinctStates]).toEqual(['holds', 21]);
    const only = check(checkedModel(m), { invariants: [ExclusiveHold] });
    expect(only.verdict).toBe('holds');
  });

  it('maxStates stops the search with verdict incomplete and exactly that many states', () => {
    const m = compile(incidentConfig('owner-check'));
    const r = check(checkedModel(m), { maxStates: 10 });
    expect([r.verdict, r.distinctStates, r.violations.length]).toEqual(['incomplete', 10, 0]);
    // A budget as large as the space is not a cut.
    expect(check(checkedModel(m), { maxStates: 21 }).verdict).toBe('holds');
  });

  it('a violation found within the budget wins over incomplete', () => {
    const r = check(checkedModel(compile(incidentConfig('buggy'))), { maxStates: 18 });
    expect(r.verdict).toBe('violation');
  });

  it('onProgress is called about every 65,536 states with the running figures', () => {
    const m = compile(configFrom({ pages: 7, prefillLimit: 3, requests: [{ length: 1 }, { length: 2 }, { length: 2 }, { length: 3 }, { length: 3 }], variant: 'length-fix' }));
    const seen: Array<{ states: number; queue: number; depth: number }> = [];
    const r = check(checkedModel(m), { symmetry: false, continueAfterViolation: true, onProgress: (p) => seen.push(p) });
    // Regression pin (293,212 in the naive encoding that keeps dead tables: see test/spec/liveness.test.ts).
    expect([r.distinctStates, r.depth]).toEqual([175194, 25]);
    expect(seen.map((p) => p.states)).toEqual([65537, 131073]);
    expect(seen.every((p) => p.queue > 0 && p.depth <= 25)).toBe(true);
  }, 30_000);

  it('reports the memory per stored state', () => {
    const r = check(checkedModel(compile(incidentConfig('buggy'))), { continueAfterViolation: true });
    expect(r.bytesPerState).toBeGreaterThan(5);
    expect(r.symmetry).toBe(true);
  });
});
