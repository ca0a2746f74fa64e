import { describe, expect, it } from 'vitest';
import { Zobrist } from '../../checker/zobrist.ts';

describe('Zobrist tables', () => {
  it('are a pure function of the state length: every run and every thread builds the same numbers', () => {
    const a = new Zobrist(16);
    const b = new Zobrist(16);
    expect(a.lo).toEqual(b.lo);
    expect(a.hi).toEqual(b.hi);
    // a longer state's table starts with the shorter one's: positions do not depend on the length
    expect(new Zobrist(32).lo.subarray(0, a.lo.length)).toEqual(a.lo);
    // and the numbers are not degenerate: no zero, few repeats
    expect(new Set(a.lo).size).toBeGreaterThan(a.lo.length - 2);
    expect(a.lo.includes(0)).toBe(false);
  });
});
