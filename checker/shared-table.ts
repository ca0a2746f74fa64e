/**
 * The visited set of the parallel search: 64-bit fingerprints in one open-addressing
 * table in a `SharedArrayBuffer`, which every thread probes and fills. A slot is four
 * int32: `h1`, `h2` (never 0), a tag (the level it was first found at plus one) and a
 * key. A slot is claimed by a compare-and-swap of its tag from 0; the claimer writes
 * `h1` and the key, then publishes `h2` with an atomic store. A reader loads `h2` first
 * and everything else after it, with plain loads: whatever it sees once `h2` is set was
 * written before `h2` was (the store is sequentially consistent, and neither x86 nor V8
 * reorders the reader's loads). Only a claim, a slot being claimed, and a lowered key
 * take atomics, which V8 does not inline: on the common path, a successor found at an
 * earlier level, an insert costs what `bfs.ts`'s does.
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
    let cur = t[i + 1]!;
    if (cur === 0) {
      // Empty, or being claimed: claim it, or wait for the claimer to publish its h2 (a few instructions).
      if (t[i + 2] === 0 && Atomics.compareExchange(t, i + 2, 0, tag) === 0) {
        t[i] = h1;
        t[i + 3] = key;
        Atomics.store(t, i + 1, h2); // publishes h1 and key
        return CLAIMED;
      }
      while (cur === 0) cur = Atomics.load(t, i + 1);
    }
    if (cur === h2 && t[i] === h1) return t[i + 2] === tag ? lowerKey(t, i + 3, key) : OLD;
    slot = (slot + 1) & mask;
  }
}

/** Sets the key at `t[i]` to the least of it and `key`: the displaced key, or {@link LOST}. */
function lowerKey(t: Int32Array, i: number, key: number): number {
  // Keys only go down: a stale plain load is at least the current key, so a key not below it loses, and a smaller one is settled by the swap.
  let old = t[i]!;
  for (;;) {
    if (key >= old) return LOST;
    const seen = Atomics.compareExchange(t, i, old, key);
    if (seen === old) return old;
    old = seen;
  }
}

/**
 * Where each of `threads` threads rehashes `t`: `threads + 1` ascending slot numbers,
 * range `k` from the `k`-th to the next, taken modulo the table's slots (the last range
 * wraps around the end). Every boundary is an empty slot, so that no cluster crosses
 * one: every entry of a range has its home in the range. In a table a power of two
 * times as large, such an entry's home is the same slot plus a multiple of the old size,
 * and the entries of a range fit, probing, within the range's images there (they did
 * within the range, and a subset of them with the same homes needs no more room): each
 * thread writes its own slots alone, and needs no atomics.
 */
export function rehashBounds(t: Int32Array, threads: number): number[] {
  const slots = slotsOf(t);
  const emptyFrom = (s: number): number => {
    while (s < slots && t[s * WORDS + 1] !== 0) s++;
    return s;
  };
  const first = emptyFrom(0); // a table below full load has one
  const bounds = [first];
  for (let k = 1; k < threads; k++) {
    const b = emptyFrom(Math.max(Math.floor((k * slots) / threads), bounds[k - 1]!));
    bounds.push(b < slots ? b : slots + first);
  }
  bounds.push(slots + first);
  return bounds;
}

/** Copies the entries of slots `from .. to` of `t` (modulo its slots; a range of {@link rehashBounds}) into the larger `into`, every word as it is. */
export function rehashRange(t: Int32Array, into: Int32Array, from: number, to: number): void {
  const old = slotsOf(t) - 1;
  const mask = slotsOf(into) - 1;
  for (let s = from; s < to; s++) {
    const i = (s & old) * WORDS;
    const h2 = t[i + 1]!;
    if (h2 === 0) continue;
    const h1 = t[i]!;
    let slot = h1 & mask;
    while (into[slot * WORDS + 1] !== 0) slot = (slot + 1) & mask;
    const j = slot * WORDS;
    into[j] = h1;
    into[j + 1] = h2;
    into[j + 2] = t[i + 2]!;
    into[j + 3] = t[i + 3]!;
  }
}
