/**
 * The visited set of the parallel search: 64-bit fingerprints in one open-addressing
 * table in a `SharedArrayBuffer`, which every thread probes and fills with atomics. A
 * slot is four int32: `h1`, `h2` (never 0; a slot is claimed by a compare-and-swap of
 * `h2` from 0), a tag (the level it was first found at plus one, written last: a reader
 * waits for it before comparing `h1`), and a key.
 *
 * The key makes the search deterministic. Within a level, every successor carries its
 * position in the order a one-worker search would generate it (its parent's place in the
 * level, then its action). When several successors are the same new state the slot
 * keeps the least key (an atomic minimum), so the successor that counts the state as new
 * is the one-worker search's, whichever worker got there first. One insert tells the
 * inserter everything: the state is old (an earlier level's), or new and claimed by this
 * successor, or another successor holds a smaller key (this one loses), or this one took
 * the slot from a larger key (that one loses, and the inserter says so). The table is
 * never looked at again for the level: one memory access per successor, as in `bfs.ts`.
 */

/** Int32 words per slot. */
const WORDS = 4;

/** {@link insertFirst}: found at an earlier level. */
export const OLD = -1;
/** {@link insertFirst}: found at this level with a smaller key: this successor is not the first. */
export const LOST = -2;
/** {@link insertFirst}: not in the table before: this successor claimed it. */
export const CLAIMED = -3;

/** Allocates a table of `slots` (a power of two). */
export function sharedTable(slots: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * WORDS * slots));
}

/** The number of slots of a table. */
export function slotsOf(t: Int32Array): number {
  return t.length / WORDS;
}

/** The word to load ahead of an insert of `h1` (see `fingerprints.ts`, touch): its home slot's `h2`. */
export function homeWord(t: Int32Array, h1: number): number {
  return (h1 & (slotsOf(t) - 1)) * WORDS + 1;
}

/**
 * Inserts fingerprint `(h1, h2)` found at the level tagged `tag` (level plus one) with
 * `key`. Returns {@link OLD}, {@link LOST}, {@link CLAIMED}, or the key (at least 0) of
 * the successor this one displaced as the first at this level.
 */
export function insertFirst(t: Int32Array, h1: number, h2: number, tag: number, key: number): number {
  const mask = slotsOf(t) - 1;
  let slot = h1 & mask;
  for (;;) {
    const i = slot * WORDS;
    let cur = t[i + 1]!; // a stale 0 is caught by the compare-and-swap
    if (cur === 0) {
      cur = Atomics.compareExchange(t, i + 1, 0, h2);
      if (cur === 0) {
        t[i] = h1;
        t[i + 3] = key;
        Atomics.store(t, i + 2, tag); // publishes h1 and key
        return CLAIMED;
      }
    }
    if (cur === h2) {
      let found = Atomics.load(t, i + 2);
      while (found === 0) found = Atomics.load(t, i + 2); // the claimer is writing h1: a few instructions
      if (t[i] === h1) return found === tag ? lowerKey(t, i + 3, key) : OLD;
    }
    slot = (slot + 1) & mask;
  }
}

/** Sets the key at `t[i]` to the least of it and `key`: the displaced key, or {@link LOST}. */
function lowerKey(t: Int32Array, i: number, key: number): number {
  for (;;) {
    const old = Atomics.load(t, i);
    if (key >= old) return LOST;
    if (Atomics.compareExchange(t, i, old, key) === old) return old;
  }
}

/** Copies the entries of slots `from .. to` of `t` into the larger `into`, which other threads may be filling too, every word as it is. */
export function rehashRange(t: Int32Array, into: Int32Array, from: number, to: number): void {
  const mask = slotsOf(into) - 1;
  for (let s = from; s < to; s++) {
    const i = s * WORDS;
    const h2 = t[i + 1]!;
    if (h2 === 0) continue;
    const h1 = t[i]!;
    let slot = h1 & mask;
    while (into[slot * WORDS + 1] !== 0 || Atomics.compareExchange(into, slot * WORDS + 1, 0, h2) !== 0) slot = (slot + 1) & mask;
    const j = slot * WORDS;
    into[j] = h1;
    into[j + 2] = t[i + 2]!;
    into[j + 3] = t[i + 3]!;
  }
}
