import { describe, expect, it } from 'vitest';
import { FreeSet } from '../../impl/free-set.ts';

/** Every free page, ascending, by asking `has` (the slow way, as an oracle). */
const members = (set: FreeSet): number[] => {
  const out: number[] = [];
  for (let p = 0; p < set.size; p++) if (set.has(p)) out.push(p);
  return out;
};

describe('FreeSet', () => {
  it.each([1, 31, 32, 33, 64, 65, 100])('starts with all %i pages free and none beyond', (size) => {
    const set = new FreeSet(size);
    expect(set.count).toBe(size);
    expect(members(set)).toEqual(Array.from({ length: size }, (_, i) => i));
    const out = new Int32Array(size);
    set.takeLowest(size, out, 0);
    expect(Array.from(out)).toEqual(Array.from({ length: size }, (_, i) => i));
    expect(set.count).toBe(0);
  });

  it('hands out the lowest free ids, across word boundaries, after pages come back', () => {
    const set = new FreeSet(100);
    const out = new Int32Array(100).fill(-1);
    set.takeLowest(70, out, 0);
    expect(set.add(65)).toBe(true);
    expect(set.add(3)).toBe(true);
    expect(set.add(31)).toBe(true);
    expect(set.add(3)).toBe(false);
    expect(set.count).toBe(33);
    set.takeLowest(5, out, 10);
    expect(Array.from(out.subarray(10, 15))).toEqual([3, 31, 65, 70, 71]);
    expect(set.count).toBe(28);
    expect(members(set)).toEqual(Array.from({ length: 28 }, (_, i) => 72 + i));
  });

  it('removes a page only when it is free', () => {
    const set = new FreeSet(40);
    expect(set.remove(33)).toBe(true);
    expect(set.remove(33)).toBe(false);
    expect(set.has(33)).toBe(false);
    expect(set.count).toBe(39);
    const out = new Int32Array(35);
    set.takeLowest(35, out, 0);
    expect(out[33]).toBe(34);
    expect(out[34]).toBe(35);
    expect(members(set)).toEqual([36, 37, 38, 39]);
  });

  it('takes bit 31 of a word (the sign bit) correctly', () => {
    const set = new FreeSet(64);
    const out = new Int32Array(64);
    set.takeLowest(64, out, 0);
    set.add(31);
    set.add(63);
    set.takeLowest(2, out, 0);
    expect([out[0], out[1]]).toEqual([31, 63]);
    expect(set.count).toBe(0);
  });
});
