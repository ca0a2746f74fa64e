import { describe, expect, it } from 'vitest';
import { Ph } from '../../spec/index.ts';
import { PagePool, type PoolOptions } from '../../impl/index.ts';

/** The incident's sizes: D's pool of 16,384 pages of 64 tokens, P computes at most 10,645 pages. */
const REAL: Omit<PoolOptions, 'variant'> = { pages: 16_384, prefillLimit: 10_645, slots: 8, maxLength: 16_384 };

/** A serves the longest prompt P computes and frees it; B (the advertised maximum) follows. */
function incident(variant: PoolOptions['variant']): PagePool {
  const pool = new PagePool({ ...REAL, variant });
  expect(pool.allocate(0, 10_645)).toBe(true);
  expect(pool.prefill(0)).toBe(true);
  expect(pool.handoff(0)).toBe(true);
  expect(pool.decode(0)).toBe(true);
  expect(pool.foreignReads(0)).toBe(0);
  expect(pool.free(0)).toBe(true);
  expect(pool.freePages).toBe(16_384);
  expect(pool.allocate(1, 16_384)).toBe(true);
  expect(pool.freePages).toBe(0);
  return pool;
}

describe('PagePool at real scale', () => {
  it('buggy: the stubbed request reads every page A wrote but its own first one', () => {
    const pool = incident('buggy');
    expect(pool.stub(1)).toBe(true);
    expect(pool.handoff(1)).toBe(true);
    expect(pool.decode(1)).toBe(true);
    expect(pool.phase(1)).toBe(Ph.decoded);
    expect(pool.foreignReads(1)).toBe(10_644);
  });

  it('owner-check: the same request fails loudly and reads nothing', () => {
    const pool = incident('owner-check');
    expect(pool.stub(1)).toBe(true);
    expect(pool.handoff(1)).toBe(true);
    expect(pool.decode(1)).toBe(true);
    expect(pool.phase(1)).toBe(Ph.failed);
    expect(pool.foreignReads(1)).toBe(0);
    expect(pool.free(1)).toBe(true);
    expect(pool.freePages).toBe(16_384);
  });

  it('length-fix: the request is refused before the handoff', () => {
    const pool = incident('length-fix');
    expect(pool.prefill(1)).toBe(false);
    expect(pool.stub(1)).toBe(true);
    expect(pool.phase(1)).toBe(Ph.refused);
    expect(pool.handoff(1)).toBe(false);
    expect(pool.decode(1)).toBe(false);
    expect(pool.free(1)).toBe(true);
  });
});

describe('PagePool actions', () => {
  const small = (variant: PoolOptions['variant'], extra: Partial<PoolOptions> = {}): PagePool =>
    new PagePool({ pages: 8, prefillLimit: 4, slots: 3, maxLength: 8, variant, ...extra });

  it('refuses what is not enabled and changes nothing', () => {
    const pool = small('buggy');
    expect(pool.prefill(0)).toBe(false);
    expect(pool.free(0)).toBe(false);
    expect(pool.timeout(0)).toBe(false);
    expect(pool.insert(0)).toBe(false);
    expect(pool.allocate(0, 8)).toBe(true);
    expect(pool.allocate(1, 1)).toBe(false);
    expect(pool.freePages).toBe(0);
    expect(pool.phase(1)).toBe(Ph.new);
    expect(pool.allocate(0, 1)).toBe(false);
  });

  it('hands out the lowest free pages: the ones the last request freed', () => {
    const pool = small('buggy');
    pool.allocate(0, 3);
    pool.allocate(1, 2);
    expect(Array.from(pool.pageTable(1).subarray(0, 2))).toEqual([3, 4]);
    pool.prefill(0);
    pool.handoff(0);
    pool.decode(0);
    pool.free(0);
    pool.allocate(2, 4);
    expect(Array.from(pool.pageTable(2).subarray(0, 4))).toEqual([0, 1, 2, 5]);
  });

  it('gives every admission a fresh serial and reuses finished slots', () => {
    const pool = small('buggy');
    pool.allocate(0, 2);
    const first = pool.serial(0);
    pool.prefill(0);
    pool.handoff(0);
    pool.decode(0);
    expect(pool.allocate(0, 2)).toBe(false);
    pool.free(0);
    expect(pool.allocate(0, 2)).toBe(true);
    expect(pool.serial(0)).toBe(first + 1);
    expect(pool.phase(0)).toBe(Ph.allocated);
    pool.prefill(0);
    pool.handoff(0);
    pool.decode(0);
    // The same pages, written by the previous admission: its own data now, not foreign.
    expect(pool.foreignReads(0)).toBe(0);
  });

  it('does not reuse a slot when reuseSlots is off, as the refinement harness needs', () => {
    const pool = small('buggy', { reuseSlots: false });
    pool.allocate(0, 1);
    pool.prefill(0);
    pool.handoff(0);
    pool.decode(0);
    pool.free(0);
    expect(pool.allocate(0, 1)).toBe(false);
  });

  it('counts own prefix pages as legitimate and other requests\' as foreign', () => {
    const pool = small('buggy', { prefixes: 1 });
    pool.allocate(0, 3, 0);
    pool.prefill(0);
    pool.handoff(0);
    pool.decode(0);
    expect(pool.insert(0)).toBe(true);
    pool.free(0);
    expect(pool.freePages).toBe(7);
    expect(pool.allocate(1, 6, 0)).toBe(true);
    expect(pool.pageTable(1)[0]).toBe(0);
    pool.stub(1);
    pool.handoff(1);
    pool.decode(1);
    // Page 0 is the shared prefix (legitimate), the stub overwrote page 1; page 2 still holds A's data.
    expect(Array.from(pool.pageTable(1).subarray(0, 6))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(pool.foreignReads(1)).toBe(1);
  });

  it('throws RangeError on misuse, naming the value', () => {
    const pool = small('buggy');
    expect(() => pool.allocate(3, 1)).toThrow(/slot 3/);
    expect(() => pool.allocate(0, 0)).toThrow(/length 0/);
    expect(() => pool.allocate(0, 9)).toThrow(/length 9/);
    expect(() => pool.allocate(0, 1, 0)).toThrow(/prefix 0/);
    // A prefix is one page; a one-page request with one would make a stub write past its table.
    expect(() => small('buggy', { prefixes: 1 }).allocate(0, 1, 0)).toThrow(/at least 2 pages, got 1/);
    expect(() => new PagePool({ pages: 0, prefillLimit: 1, slots: 1, maxLength: 1, variant: 'buggy' })).toThrow(/pages.*got 0/);
  });
});
