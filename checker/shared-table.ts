/**
 * The visited sets of the parallel search, in `SharedArrayBuffer`s that every thread
 * probes and fills with atomics; both are open-addressing tables of 64-bit fingerprints
 * (two int32, `h2` never 0: a slot is claimed by a compare-and-swap of `h2` from 0).
 *
 * The seen set holds the states of the levels before this one, two words a slot as in
 * `fingerprints.ts`. While a level is expanded nobody writes it, so a probe is plain
 * loads; the level's new states go in after, all distinct, so an insert needs no compare.
 *
 * The level set holds the new states of the level being expanded, with a key: a
 * successor's position in the order a one-worker search would generate it (its parent's
 * place in the level, then its action). When several successors are the same new state
 * the slot keeps the least key (an atomic minimum), so the successor that counts the
 * state as new is the one-worker search's, whichever worker got there first. One insert
 * tells the inserter everything: new (this successor claimed it), or another successor
 * holds a smaller key (this one loses), or this one took the slot from a larger key
 * (that one loses, and the inserter says so). The table is never looked at again.
 */

/** {@link insertFirst}: in the seen set: found at an earlier level. */
export const OLD = -1;
/** {@link insertFirst}: found at this level with a smaller key: this successor is not the first. */
export const LOST = -2;
/** {@link insertFirst}: not in the level set before: this successor claimed it. */
export const CLAIMED = -3;

/** Allocates a seen set of `slots` (a power of two). */
export function seenSet(slots: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(8 * slots));
}

/** Whether fingerprint `(h1, h2)` is in the seen set; only while nobody inserts, so plain loads suffice. */
export function hasSeen(t: Int32Array, h1: number, h2: number): boolean {
  const mask = (t.length >>> 1) - 1;
  for (let slot = h1 & mask; ; slot = (slot + 1) & mask) {
    const e2 = t[2 * slot + 1]!;
    if (e2 === 0) return false;
    if (e2 === h2 && t[2 * slot] === h1) return true;
  }
}

/** The word to load ahead of a probe of `h1` (see `fingerprints.ts`, touch): the seen set's home slot. */
export function seenHome(t: Int32Array, h1: number): number {
  return 2 * (h1 & ((t.length >>> 1) - 1)) + 1;
}

/** Adds fingerprint `(h1, h2)`, known to be absent and not added by anyone else at the same time, to the seen set. */
export function addSeen(t: Int32Array, h1: number, h2: number): void {
  const mask = (t.length >>> 1) - 1;
  let slot = h1 & mask;
  while (t[2 * slot + 1] !== 0 || Atomics.compareExchange(t, 2 * slot + 1, 0, h2) !== 0) slot = (slot + 1) & mask;
  t[2 * slot] = h1;
}

/** Copies the entries of slots `from .. to` of seen set `t` into the larger `into`, which other threads may be filling too. */
export function reseenRange(t: Int32Array, into: Int32Array, from: number, to: number): void {
  for (let s = from; s < to; s++) {
    const h2 = t[2 * s + 1]!;
    if (h2 !== 0) addSeen(into, t[2 * s]!, h2);
  }
}

/** Int32 words per slot of a level set: `h1`, `h2`, key plus one (0 while the claimer writes), unused. */
const WORDS = 4;

/** Allocates a level set of `slots` (a power of two). */
export function levelSet(slots: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * WORDS * slots));
}

/** The slots of a level set. */
export function levelSlots(t: Int32Array): number {
  return t.length / WORDS;
}

/**
 * Inserts fingerprint `(h1, h2)` with `key` into the level set `t`, unless it is in the
 * seen set `seen`, which is asked only when the level set does not have it: most
 * successors of a level are states of that level, found in the smaller, hotter table.
 * Returns {@link OLD}, {@link LOST}, {@link CLAIMED}, or the key (at least 0) of the
 * successor this one displaced as the first.
 */
export function insertFirst(t: Int32Array, seen: Int32Array, h1: number, h2: number, key: number): number {
  const mask = levelSlots(t) - 1;
  let slot = h1 & mask;
  let unseen = false;
  for (;;) {
    const i = slot * WORDS;
    let cur = t[i + 1]!; // a stale 0 is caught by the compare-and-swap
    if (cur === 0) {
      if (!unseen) {
        if (hasSeen(seen, h1, h2)) return OLD;
        unseen = true;
      }
      cur = Atomics.compareExchange(t, i + 1, 0, h2);
      if (cur === 0) {
        t[i] = h1;
        Atomics.store(t, i + 2, key + 1); // publishes h1
        return CLAIMED;
      }
    }
    if (cur === h2) {
      let held = Atomics.load(t, i + 2);
      while (held === 0) held = Atomics.load(t, i + 2); // the claimer is writing h1: a few instructions
      if (t[i] === h1) return lowerKey(t, i + 2, key + 1, held);
    }
    slot = (slot + 1) & mask;
  }
}

/** Sets the key plus one at `t[i]` (now `held`) to the least of it and `mine`: the displaced key, or {@link LOST}. */
function lowerKey(t: Int32Array, i: number, mine: number, held: number): number {
  for (let old = held; ; old = Atomics.load(t, i)) {
    if (mine >= old) return LOST;
    if (Atomics.compareExchange(t, i, old, mine) === old) return old - 1;
  }
}

/** The word to load ahead of an insert of `h1` into level set `t`: its home slot. */
export function levelHome(t: Int32Array, h1: number): number {
  return (h1 & (levelSlots(t) - 1)) * WORDS + 1;
}

/** Copies the entries of slots `from .. to` of level set `t` into the larger `into`, which other threads may be filling too. */
export function relevelRange(t: Int32Array, into: Int32Array, from: number, to: number): void {
  const mask = levelSlots(into) - 1;
  for (let s = from; s < to; s++) {
    const h2 = t[s * WORDS + 1]!;
    if (h2 === 0) continue;
    const h1 = t[s * WORDS]!;
    let slot = h1 & mask;
    while (into[slot * WORDS + 1] !== 0 || Atomics.compareExchange(into, slot * WORDS + 1, 0, h2) !== 0) slot = (slot + 1) & mask;
    into[slot * WORDS] = h1;
    into[slot * WORDS + 2] = t[s * WORDS + 2]!;
  }
}

/** Empties slots `from .. to` of level set `t`, for the next level. */
export function clearLevelRange(t: Int32Array, from: number, to: number): void {
  t.fill(0, from * WORDS, to * WORDS);
}
