import { describe, expect, it } from 'vitest';
import { compile, incidentConfig, initial, matrixConfig, parseAction, step, type Action, type Model } from '../../spec/index.ts';
import { abstractState, applyAction, PagePool, poolOptionsFor, refinementDiff, sameState } from '../../impl/index.ts';

const actions = (m: Model, labels: string): Action[] =>
  labels.split(' ').map((l) => {
    const a = parseAction(m, l);
    if (a === undefined) throw new Error(`no action ${l}`);
    return a;
  });

/** The minimal leak of docs/BACKGROUND.md ("The minimal leak"). */
const INCIDENT = 'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) stub(B) handoff(B) decode(B)';

describe('abstraction function', () => {
  it('maps a fresh pool to the initial state', () => {
    const m = compile(matrixConfig('owner-check', ['silent-stub', 'early-free', 'stale-free', 'prefix-poison']));
    const pool = new PagePool(poolOptionsFor(m));
    expect(sameState(abstractState(m, pool), initial(m))).toBe(true);
  });

  it('follows the spec step by step along the incident trace', () => {
    const m = compile(incidentConfig('buggy'));
    const pool = new PagePool(poolOptionsFor(m));
    let s = initial(m);
    for (const a of actions(m, INCIDENT)) {
      const next = step(m, s, a);
      expect(next).toBeDefined();
      expect(applyAction(m, pool, a)).toBe(true);
      s = next ?? s;
      expect(refinementDiff(m, s, abstractState(m, pool))).toEqual([]);
    }
    expect(pool.foreignReads(1)).toBe(1);
  });

  it('follows a prefix hit, a poisoned insert and a stale release', () => {
    const m = compile(matrixConfig('owner-check', ['silent-stub', 'stale-free', 'prefix-poison']));
    const pool = new PagePool(poolOptionsFor(m));
    let s = initial(m);
    const trace = 'allocate(B) stub(B) handoff(B) decode(B) insert(B) free(B) allocate(C) prefill(C) handoff(C) decode(C) free(C) free(C)';
    for (const a of actions(m, trace)) {
      const next = step(m, s, a);
      expect(next).toBeDefined();
      expect(applyAction(m, pool, a)).toBe(true);
      s = next ?? s;
      expect(refinementDiff(m, s, abstractState(m, pool))).toEqual([]);
    }
    // B failed the owner check, its first page was cached anyway, C hit it and was caught.
    expect(refinementDiff(m, initial(m), s).filter((l) => l.includes('phase'))).toEqual([
      'B phase: spec new, impl freed',
      'C phase: spec new, impl released',
    ]);
  });

  it('names each field where the pool and the spec differ', () => {
    const m = compile(incidentConfig('buggy'));
    const pool = new PagePool(poolOptionsFor(m));
    let s = initial(m);
    for (const a of actions(m, 'allocate(A) prefill(A)')) {
      applyAction(m, pool, a);
      s = step(m, s, a) ?? s;
    }
    pool.data[1] = 0;
    pool.phases[0] = 3;
    expect(refinementDiff(m, s, abstractState(m, pool))).toEqual(['page 1 data: spec A, impl none', 'A phase: spec written, impl handedOff']);
  });

  it('refuses a label that no request or prefix of the model has', () => {
    const m = compile(incidentConfig('buggy'));
    const pool = new PagePool(poolOptionsFor(m));
    pool.data[2] = 77;
    expect(() => abstractState(m, pool)).toThrow(/label 77/);
  });
});
