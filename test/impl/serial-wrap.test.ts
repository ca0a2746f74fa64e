/**
 * The pool's serials past 2^31 - 1 admissions: the next after {@link MAX_SERIAL} is 1, never
 * 0 (the label of a free page, "nobody") nor a negative number (a prefix's label). A pool
 * that starts near the maximum shows the wrap in three admissions instead of two billion;
 * across it, pages are held by their new request, a leak is still a foreign read, and the
 * model-based test still finds the pool and the spec in step.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SERIAL, PagePool, runMbt, type PoolOptions } from '../../impl/index.ts';

/** A pool whose next admission gets serial `MAX_SERIAL - before + 1`: the wrap comes after `before` admissions. */
class NearMaxSerial extends PagePool {
  constructor(options: PoolOptions, before: number) {
    super(options);
    this.lastSerial = MAX_SERIAL - before;
  }
}

const OPTIONS: PoolOptions = { pages: 4, prefillLimit: 2, variant: 'buggy', faults: ['silent-stub'], slots: 3, maxLength: 3 };

describe('a pool whose serials wrap', () => {
  it('the admission after MAX_SERIAL gets serial 1, and holds its pages', () => {
    const pool = new NearMaxSerial(OPTIONS, 1);
    expect(pool.allocate(0, 2)).toBe(true);
    expect(pool.allocate(1, 1)).toBe(true);
    expect(pool.allocate(2, 1)).toBe(true);
    expect([pool.serial(0), pool.serial(1), pool.serial(2)]).toEqual([MAX_SERIAL, 1, 2]);
    expect(Array.from(pool.holder)).toEqual([MAX_SERIAL, MAX_SERIAL, 1, 2]);
    expect(pool.freePages).toBe(0);
    // Nobody may take a page of theirs: the pool is full.
    expect(pool.allocate(0, 1)).toBe(false);
  });

  it('before the wrap the serials count up as usual', () => {
    const pool = new NearMaxSerial(OPTIONS, 3);
    for (const slot of [0, 1, 2]) expect(pool.allocate(slot, 1)).toBe(true);
    expect([pool.serial(0), pool.serial(1), pool.serial(2)]).toEqual([MAX_SERIAL - 2, MAX_SERIAL - 1, MAX_SERIAL]);
  });

  it('a stub over the pages of the request before the wrap reads its data: a foreign read, as on any other day', () => {
    const pool = new NearMaxSerial(OPTIONS, 1);
    for (const step of [() => pool.allocate(0, 2), () => pool.prefill(0), () => pool.handoff(0), () => pool.decode(0), () => pool.free(0)]) expect(step()).toBe(true);
    expect(pool.foreignReads(0)).toBe(0);
    for (const step of [() => pool.allocate(1, 3), () => pool.stub(1), () => pool.handoff(1), () => pool.decode(1)]) expect(step()).toBe(true);
    expect(pool.serial(1)).toBe(1);
    // pages 0 and 1: the stub wrote page 0, page 1 still holds the data of serial MAX_SERIAL
    expect(Array.from(pool.data)).toEqual([1, MAX_SERIAL, 0, 0]);
    expect(pool.foreignReads(1)).toBe(1);
  });

  it('the model-based test passes on pools that wrap after one, two or three admissions', () => {
    for (const before of [1, 2, 3]) {
      const r = runMbt({ runs: 300, seed: 27, isolation: false, makePool: (o) => new NearMaxSerial(o, before) });
      expect([before, r.failure?.message]).toEqual([before, undefined]);
      expect(r.runs).toBe(300);
    }
  });
});
