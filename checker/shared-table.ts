/**
 * The visited set of the parallel search: 64-bit fingerprints in one open-addressing
 * table in a `SharedArrayBuffer`, which every worker probes and fills with atomics. A
 * slot is four int32: `h1`, `h2` (never 0; a slot is claimed by a compare-and-swap of
 * `h2` from 0), the level it was first found at plus one (written last: a reader waits
 * for it before comparing `h1`), and a key.
 *
 * The key makes the search deterministic. Within a level, every successor carries its
 * position in the order a one-worker search would generate it (its parent's place in
 * the level, then its action); when several workers find the same new state, the slot
 * keeps the least key (an atomic minimum), and only the successor with that key counts
 * the state as new. So the new states, and their order, are the one-worker search's,
 * whichever worker got there first.
 */

/** Int32 words per slot. */
const WORDS = 4;

/** Allocates a table of `slots` (a power of two). */
export function sharedTable(slots: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * WORDS * slots));
}

/** The number of slots of a table. */
export function slotsOf(t: Int32Array): number {
  return t.length / WORDS;
}

/**
 * Inserts fingerprint `(h1, h2)` found at `level` with `key`; returns its slot. When it
 * was already found at this level, the slot's key becomes the least of the two.
 */
export function insertShared(t: Int32Array, h1: number, h2: number, level: number, key: number): number {
  const mask = slotsOf(t) - 1;
  let slot = h1 & mask;
  for (;;) {
    const i = slot * WORDS;
    let cur = Atomics.load(t, i + 1);
    if (cur === 0) {
      const prev = Atomics.compareExchange(t, i + 1, 0, h2);
      if (prev === 0) {
        Atomics.store(t, i, h1);
        Atomics.store(t, i + 3, key);
        Atomics.store(t, i + 2, level + 1);
        return slot;
      }
      cur = prev;
    }
    if (cur === h2) {
      let found = Atomics.load(t, i + 2);
      while (found === 0) found = Atomics.load(t, i + 2); // the claimer is writing h1: a few instructions
      if (Atomics.load(t, i) === h1) {
        if (found === level + 1) lowerKey(t, i + 3, key);
        return slot;
      }
    }
    slot = (slot + 1) & mask;
  }
}

/** Whether fingerprint `(h1, h2)` is in the table; only while nobody inserts (the expand step), so plain reads suffice. */
export function hasShared(t: Int32Array, h1: number, h2: number): boolean {
  const mask = slotsOf(t) - 1;
  for (let slot = h1 & mask; ; slot = (slot + 1) & mask) {
    const i = slot * WORDS;
    const e2 = t[i + 1]!;
    if (e2 === 0) return false;
    if (e2 === h2 && t[i] === h1) return true;
  }
}

/** Whether the successor with `key` in `slot` is the one that makes its state new at `level`. */
export function isNewAt(t: Int32Array, slot: number, level: number, key: number): boolean {
  const i = slot * WORDS;
  return Atomics.load(t, i + 2) === level + 1 && Atomics.load(t, i + 3) === key;
}

/** A table of twice `slots`-or-more slots with the same fingerprints and levels; done by one thread between levels. */
export function grownTable(t: Int32Array, slots: number): Int32Array {
  const out = sharedTable(slots);
  const mask = slots - 1;
  for (let i = 0; i < t.length; i += WORDS) {
    if (t[i + 1] === 0) continue;
    let slot = t[i]! & mask;
    while (out[slot * WORDS + 1] !== 0) slot = (slot + 1) & mask;
    out.set(t.subarray(i, i + WORDS), slot * WORDS);
  }
  return out;
}

/** Atomically sets `t[i]` to `min(t[i], key)`. */
function lowerKey(t: Int32Array, i: number, key: number): void {
  for (;;) {
    const old = Atomics.load(t, i);
    if (key >= old || Atomics.compareExchange(t, i, old, key) === old) return;
  }
}
