import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, checkedModel, compile, configFrom, incidentConfig, matrixConfig, VARIANTS } from '../../spec/index.ts';
import { pagecheck } from '../support/cli.ts';

/**
 * A prefix cache that cannot evict: 2 pages, A (2 pages, prefix sys), B (2 pages). Once A
 * has put its first page into the cache and freed the other, one page is free for ever
 * and B, which needs two, waits for ever. Derived by hand: `insert` needs A decoded, so
 * the shortest way there is A's whole life with the insert before the free, 6 actions;
 * if B goes first, A still ends the same way after it (11 actions). The state counts are
 * regression pins.
 */
const STUCK = { pages: 2, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2 }] };
const STUCK_TRACE = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'free(A)'];

describe('Deadlock', () => {
  it('a prefix cache that cannot evict deadlocks: the 6-action trace', () => {
    const m = compile(configFrom(STUCK));
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 15, 6]);
    expect(r.violations.map((v) => [v.invariant, v.depth, v.trace.steps.map((s) => actionLabel(m, s.action))])).toEqual([['Deadlock', 6, STUCK_TRACE]]);
  });

  it('with the whole space explored, the same first deadlock and no other violation', () => {
    const m = compile(configFrom(STUCK));
    const r = check(checkedModel(m), { continueAfterViolation: true });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 25, 11]);
    expect(r.violations.map((v) => `${v.invariant}@${v.depth}`)).toEqual(['Deadlock@6']);
  });

  it('deadlock: false turns it off', () => {
    const r = check(checkedModel(compile(configFrom(STUCK))), { deadlock: false });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 25, 11]);
  });

  it('the configurations pinned elsewhere do not deadlock: every end state has every request finished', () => {
    for (const v of VARIANTS) {
      for (const config of [incidentConfig(v), matrixConfig(v)]) {
        const r = check(checkedModel(compile(config)), { continueAfterViolation: true });
        expect(r.violations.filter((x) => x.invariant === 'Deadlock'), `${v} ${config.requests.length}`).toEqual([]);
      }
    }
  });

  it('pagecheck check reports it and exits 1; --no-deadlock holds', async () => {
    const args = ['check', '--pages', '2', '--prefill-limit', '2', '--requests', '2:sys,2'];
    const found = await pagecheck(...args, '--json');
    expect(found.code).toBe(1);
    expect(JSON.parse(found.out)).toMatchObject({ verdict: 'violation', invariant: 'Deadlock', traceLength: 6, trace: STUCK_TRACE });
    const text = await pagecheck(...args);
    expect(text.out).toContain('no action is enabled, but B (new, needs 2 free pages) has not finished: 1 page is free; the prefix cache holds page 0 and never evicts.');
    const off = await pagecheck(...args, '--no-deadlock', '--json');
    expect([off.code, JSON.parse(off.out).verdict]).toEqual([0, 'holds']);
  });
});

describe('witnesses that cannot be vacuous', () => {
  it('on the minimal incident every reached witness was also false somewhere', () => {
    for (const v of VARIANTS) {
      const r = check(checkedModel(compile(incidentConfig(v))), { continueAfterViolation: true });
      expect(r.witnesses.filter((w) => w.reached && w.trivial).map((w) => w.name), v).toEqual([]);
      expect(r.witnesses.some((w) => w.reached)).toBe(true);
    }
  });
});
