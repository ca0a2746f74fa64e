import { describe, expect, it } from 'vitest';
import { CLAIMED, insertFirst, LOST, OLD, rehashBounds, rehashRange, sharedTable, slotsOf } from '../../checker/shared-table.ts';

/** `n` distinct fingerprints, many sharing a home slot so that clusters form and wrap around the end. */
function fingerprints(n: number, slots: number): [number, number][] {
  const out: [number, number][] = [];
  let x = 7;
  for (let k = 0; k < n; k++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    // Homes crowd the last eighth of the table, whose clusters run past the end.
    const home = k % 3 === 0 ? slots - 1 - (k % (slots >>> 3)) : x & (slots - 1);
    out.push([(x & ~(slots - 1)) | home, k + 1]);
  }
  return out;
}

/** Entries in `t`: its slots with an h2. */
const entries = (t: Int32Array): number => Array.from({ length: slotsOf(t) }, (_, s) => t[4 * s + 1]).filter((h2) => h2 !== 0).length;

describe('the shared table', () => {
  it('tells a claim, an earlier level, a smaller key, and a displaced key apart', () => {
    const t = sharedTable(16);
    expect(insertFirst(t, 5, 9, 3, 40)).toBe(CLAIMED);
    expect(insertFirst(t, 5, 9, 3, 41)).toBe(LOST);
    expect(insertFirst(t, 5, 9, 3, 12)).toBe(40);
    expect(insertFirst(t, 5, 9, 3, 20)).toBe(LOST);
    expect(insertFirst(t, 5, 9, 4, 1)).toBe(OLD);
    expect(insertFirst(t, 21, 9, 3, 50)).toBe(CLAIMED); // same home, other h1
  });

  it('rehashes in ranges bounded by empty slots, each thread alone, into a table 2 or 4 times as large', () => {
    const slots = 1 << 10;
    const t = sharedTable(slots);
    const all = fingerprints(Math.floor(0.8 * slots), slots);
    for (const [h1, h2] of all) expect(insertFirst(t, h1, h2, 1, h2)).toBe(CLAIMED);
    expect(t[4 * (slots - 1) + 1]).not.toBe(0); // a cluster wraps around the end
    for (const threads of [1, 2, 3, 7]) {
      const bounds = rehashBounds(t, threads);
      expect(bounds).toHaveLength(threads + 1);
      for (let k = 0; k < threads; k++) {
        expect(bounds[k + 1]!).toBeGreaterThanOrEqual(bounds[k]!);
        expect(t[4 * (bounds[k]! % slots) + 1]).toBe(0);
      }
      expect(bounds[threads]! - bounds[0]!).toBe(slots);
      for (const times of [2, 4]) {
        const into = sharedTable(times * slots);
        for (let k = 0; k < threads; k++) rehashRange(t, into, bounds[k]!, bounds[k + 1]!);
        expect(entries(into)).toBe(all.length);
        for (const [h1, h2] of all) expect(insertFirst(into, h1, h2, 2, 0)).toBe(OLD);
        // Each range alone writes only within its images: no two threads write the same slot.
        for (let k = 0; k < threads; k++) {
          const alone = sharedTable(times * slots);
          rehashRange(t, alone, bounds[k]!, bounds[k + 1]!);
          for (let j = 0; j < times * slots; j++) {
            if (alone[4 * j + 1] === 0) continue;
            expect((((j - bounds[k]!) % slots) + slots) % slots).toBeLessThan(bounds[k + 1]! - bounds[k]!);
          }
        }
      }
    }
  });
});
