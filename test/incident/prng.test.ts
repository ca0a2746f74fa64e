import { describe, expect, it } from 'vitest';
import { Prng } from '../../incident/prng.ts';

describe('Prng (xoshiro128**)', () => {
  it('matches the reference implementation from state {1, 2, 3, 4}', () => {
    // From the authors' C code (prng.di.unimi.it/xoshiro128starstar.c), compiled and run.
    const prng = Prng.fromState([1, 2, 3, 4]);
    const out = Array.from({ length: 6 }, () => prng.nextU32());
    expect(out).toEqual([11520, 0, 5927040, 70819200, 2031721883, 1637235492]);
  });

  it('replays a seed exactly, and different seeds differ', () => {
    const draw = (seed: number): number[] => {
      const prng = new Prng(seed);
      return Array.from({ length: 8 }, () => prng.nextU32());
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    expect(new Prng(0xffffffff).seed).toBe(0xffffffff);
  });

  it('keeps int() and logUniform() inside their ranges', () => {
    const prng = new Prng(7);
    let intLow = Infinity;
    let intHigh = -Infinity;
    let logLow = Infinity;
    let logHigh = -Infinity;
    let mean = 0;
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const k = prng.int(3, 9);
      intLow = Math.min(intLow, k);
      intHigh = Math.max(intHigh, k);
      const x = prng.logUniform(200, 8000);
      logLow = Math.min(logLow, x);
      logHigh = Math.max(logHigh, x);
      mean += prng.next() / n;
    }
    expect([intLow, intHigh]).toEqual([3, 9]);
    expect(logLow).toBeGreaterThanOrEqual(200);
    expect(logHigh).toBeLessThanOrEqual(8000);
    expect(mean).toBeCloseTo(0.5, 2);
  });
});
