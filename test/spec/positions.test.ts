import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { compile, configFrom, Integrity, Isolation, phaseOf, Ph, type Config } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runLabels } from './helpers.ts';

/** The configuration of issue 14's defect: C's late write puts the prefix's content into B's page at position 1. */
const defect = (variant: Config['variant']): Config =>
  configFrom({ pages: 4, prefillLimit: 3, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }, { length: 3, prefix: 'sys' }], variant, faults: ['silent-stub', 'early-free'] });

/** allocate(A) allocate(C) timeout(A) timeout(C) allocate(B) prefill(B) prefill(C) handoff(B) decode(B). */
const LATE_PREFIX_WRITE = ['allocate(A)', 'allocate(C)', 'timeout(A)', 'timeout(C)', 'allocate(B)', 'prefill(B)', 'prefill(C)', 'handoff(B)', 'decode(B)'];

describe('content has a position: a prefix page is accepted only at the prefix position', () => {
  it("owner-check: B's decode over C's misplaced prefix page fails loudly (it used to read it silently)", () => {
    const { m, last } = runLabels(defect('owner-check'), LATE_PREFIX_WRITE);
    expect(phaseOf(m, last, 1)).toBe(Ph.failed);
    expect(Isolation.holds(m, last)).toBe(true);
    expect(Integrity.holds(m, last)).toBe(true);
  });

  it('buggy: the same trace is a leak, and the breach names B and its page at position 1', () => {
    const { m, last } = runLabels(defect('buggy'), LATE_PREFIX_WRITE);
    expect(phaseOf(m, last, 1)).toBe(Ph.decoded);
    expect(Isolation.breach?.(m, last)).toEqual({ requests: [1], pages: [{ r: 1, i: 1, page: 1 }] });
    expect(Integrity.breach?.(m, last)).toEqual({ requests: [1], pages: [{ r: 1, i: 1, page: 1 }] });
  });

  it('owner-check on the configuration holds, the owner check failing loudly (check --variant owner-check --pages 4 --prefill-limit 3 --requests 1,2:sys,3:sys --faults silent-stub,early-free)', () => {
    const m = compile(defect('owner-check'));
    const r = check(checkedModel(m), { invariants: [Isolation, Integrity] });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 4769, 16]);
    expect(r.witnesses.find((w) => w.name === 'FailsLoudly')?.reached).toBe(true);
  });
});

describe('Integrity: a stub over pages never written is garbage, not a leak', () => {
  it('buggy, B (3 pages) stubbed on a fresh pool: Integrity breaks at its two unwritten pages, Isolation holds', () => {
    const config = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant: 'buggy' });
    const { m, last } = runLabels(config, ['allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)']);
    expect(Isolation.holds(m, last)).toBe(true);
    expect(Integrity.breach?.(m, last)).toEqual({ requests: [1], pages: [{ r: 1, i: 1, page: 1 }, { r: 1, i: 2, page: 2 }] });
  });

  it('buggy incident, Integrity named: the shortest breach is that 4-action stub (check --variant buggy --pages 3 --prefill-limit 2 --requests 2,3 --invariant Integrity)', () => {
    const m = compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant: 'buggy' }));
    const r = check(checkedModel(m), { invariants: [Integrity] });
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Integrity', 4]]);
  });
});
