import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CLAIMED, commitImages, grownTable, insertFirst, LOST, OLD, oldAtHome, PAGE_WORDS, rehashBounds, rehashRange, sharedTable, slotsOf } from '../../checker/shared-table.ts';

/** `n` distinct fingerprints, many sharing a home slot so that clusters form and wrap around the end. */
function fingerprints(n: number, slots: number): [number, number][] {
  const out: [number, number][] = [];
  let x = 7;
  for (let k = 0; k < n; k++) {
    x = (Math.imul(x, 1103515245) + 12345) | 0;
    // Homes crowd the last 64 slots of the table: their cluster runs past the end.
    const home = k % 15 === 0 ? slots - 1 - (k % 64) : x & (slots - 1);
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

  it('answers an insert of an earlier level at its home slot without one, and nothing else', () => {
    const t = sharedTable(16);
    expect(oldAtHome(t, 5, 9, 4)).toBe(false); // empty
    insertFirst(t, 5, 9, 3, 40);
    insertFirst(t, 21, 8, 3, 50); // same home, not in it
    expect(oldAtHome(t, 5, 9, 3)).toBe(false); // this level's: insertFirst settles the key
    expect(oldAtHome(t, 5, 9, 4)).toBe(true);
    expect(insertFirst(t, 5, 9, 4, 1)).toBe(OLD);
    expect(oldAtHome(t, 21, 8, 4)).toBe(false); // an earlier level's, but not at its home
    expect(insertFirst(t, 21, 8, 4, 1)).toBe(OLD);
    expect(oldAtHome(t, 5, 8, 4)).toBe(false); // another fingerprint
  });

  it('takes a claim in flight (h2 claimed, tag not yet written) for this level, and an insert of it waits for the tag', async () => {
    const t = sharedTable(16);
    const signal = new Int32Array(new SharedArrayBuffer(8)); // [0]: the claimer has its h2 in; [1]: it may publish
    // Another thread claims (5, 9) as insertFirst does, and stops between the claim and the tag that publishes it.
    const claimer = new Worker(
      `const { workerData: { t, signal } } = require('node:worker_threads');
       const i = (5 & 15) * 4;
       Atomics.compareExchange(t, i + 1, 0, 9);
       t[i] = 5;
       Atomics.store(signal, 0, 1); Atomics.notify(signal, 0);
       Atomics.wait(signal, 1, 0);
       t[i + 3] = 40;
       t[i + 2] = 3;`,
      { eval: true, workerData: { t, signal } },
    );
    const done = new Promise((resolve) => claimer.on('exit', resolve));
    Atomics.wait(signal, 0, 0, 10_000);
    expect(t[4 * 5 + 1]).toBe(9);
    expect(t[4 * 5 + 2]).toBe(0);
    expect(oldAtHome(t, 5, 9, 4)).toBe(false); // not an earlier level's: its tag is still 0
    Atomics.store(signal, 1, 1);
    Atomics.notify(signal, 1);
    // Read before the tag, the claim's key would be 0 and this insert would take the slot from key 0; it waits, and displaces 40.
    expect(insertFirst(t, 5, 9, 3, 12)).toBe(40);
    await done;
    expect(insertFirst(t, 5, 9, 4, 1)).toBe(OLD);
  });

  it('grows in place, each thread moving a range bounded by empty slots alone, into a table 2 or 4 times as large', () => {
    // Per-slot checks are collected and asserted once: an expect per slot made this test take 10 s.
    const wrong: string[] = [];
    const slots = 1 << 12;
    const all = fingerprints(Math.floor(0.7 * slots), slots);
    const filled = (): Int32Array => {
      const t = sharedTable(slots);
      for (const [h1, h2] of all) if (insertFirst(t, h1, h2, 1, h2) !== CLAIMED) wrong.push(`filling: ${h2} not claimed`);
      return t;
    };
    const t0 = filled();
    expect(t0[4 * (slots - 1) + 1]).not.toBe(0); // a cluster wraps around the end
    for (const threads of [1, 2, 3, 7]) {
      const bounds = rehashBounds(t0, threads);
      expect(bounds).toHaveLength(threads + 2);
      for (let k = 0; k <= threads; k++) {
        expect(bounds[k + 1]!).toBeGreaterThanOrEqual(bounds[k]!);
        expect(t0[4 * (bounds[k]! % slots) + 1]).toBe(0);
      }
      expect(bounds[threads + 1]! - bounds[0]!).toBe(slots);
      expect(bounds[threads + 1]! - bounds[threads]!).toBeLessThan(slots / 2); // the wrap-around range is short
      for (const times of [2, 4]) {
        const t = filled();
        const into = grownTable(t, times * slots);
        expect(into.buffer).toBe(t.buffer);
        for (let k = 0; k <= threads; k++) rehashRange(t, into, bounds[k]!, bounds[k + 1]!);
        expect(entries(into)).toBe(all.length);
        for (const [h1, h2] of all) if (insertFirst(into, h1, h2, 2, 0) !== OLD) wrong.push(`${threads} threads x${times}: ${h2} lost in the move`);
        // Into a fresh table (past the reservation) the same moves give the same table.
        const fresh = sharedTable(times * slots);
        const from = filled();
        for (let k = 0; k <= threads; k++) rehashRange(from, fresh, bounds[k]!, bounds[k + 1]!);
        expect(fresh.length).toBe(into.length);
        const differs = fresh.findIndex((v, w) => v !== into[w]);
        if (differs >= 0) wrong.push(`${threads} threads x${times}: the fresh table differs at word ${differs}`);
        // Each range alone moves only its own entries, and only within its images: no two threads write the same slot.
        for (let k = 0; k <= threads; k++) {
          const before = filled();
          const alone = grownTable(before, times * slots);
          const own = new Set<number>();
          for (let s = bounds[k]!; s < bounds[k + 1]!; s++) if (t0[4 * (s % slots) + 1] !== 0) own.add(t0[4 * (s % slots) + 1]!);
          rehashRange(before, alone, bounds[k]!, bounds[k + 1]!);
          for (let j = 0; j < times * slots; j++) {
            const h2 = alone[4 * j + 1]!;
            if (h2 === 0) continue;
            const fine = own.has(h2) ? (((j - bounds[k]!) % slots) + slots) % slots < bounds[k + 1]! - bounds[k]! : j < slots && t0[4 * j + 1] === h2;
            if (!fine) wrong.push(`${threads} threads x${times}, range ${k}: ${h2} at slot ${j}`);
          }
        }
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it("commits a range's images in the new part with one write in every page of them, and writes nowhere else", () => {
    const old = 1 << 12;
    for (const [from, to, times] of [
      [0, old, 2],
      [100, 1900, 4],
      [old - 300, old + 40, 2], // the wrap-around range
      [517, 518, 2],
    ] as const) {
      // A sentinel where the buffer would hold zeros: a word commitImages writes reads 0 after.
      const into = new Int32Array(4 * old * times).fill(-1);
      commitImages(into, old, from, to);
      const written = (w: number): boolean => into[w] === 0;
      for (let base = 0; base < old * times; base += old) {
        const start = 4 * Math.max(base + from, old);
        const end = 4 * Math.min(base + to, old * times);
        for (let page = Math.floor(start / PAGE_WORDS); start < end && page * PAGE_WORDS < end; page++) {
          const lo = Math.max(start, page * PAGE_WORDS);
          const hi = Math.min(end, (page + 1) * PAGE_WORDS);
          expect(into.subarray(lo, hi).some((v) => v === 0), `page ${page} of [${from}, ${to}) x${times}`).toBe(true);
        }
      }
      // In the new part, and in [base + from, base + to) for the last base (a multiple of old) with base + from at most the slot.
      const inImage = (w: number): boolean => {
        const slot = Math.floor(w / 4);
        const base = old * Math.floor((slot - from) / old);
        return slot >= old && base >= 0 && slot < base + to;
      };
      for (let w = 0; w < into.length; w++) if (written(w)) expect(inImage(w), `word ${w}`).toBe(true);
    }
  });
});
