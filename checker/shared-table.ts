/**
 * The visited set of the parallel search: 64-bit fingerprints in one open-addressing
 * table in a `SharedArrayBuffer`, which every thread probes and fills. A slot is four
 * int32: `h1`, `h2` (never 0), a tag (the level it was first found at plus one, never 0)
 * and a key. A slot is claimed by a compare-and-swap of its `h2` from 0; the claimer
 * then writes `h1` and the key, and publishes them with the tag, written last. A reader
 * loads `h2` first: a slot whose `h2` is not its own is not its state, whatever the rest
 * holds. Where `h2` is its own, it waits for the tag and reads `h1` and the key after it:
 * whatever it sees once the tag is set was written before the tag was (x86 keeps stores
 * in order and loads in order, and V8 moves neither across another on typed arrays).
 * Only a claim and a lowered key take atomics, which V8 does not inline and which wait
 * for every store still in flight: one compare-and-swap per new state, no atomic store,
 * and on the common path, a successor found at an earlier level, none at all, so that
 * an insert costs what `bfs.ts`'s does.
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

/** Table bytes reserved up front: 2^28 slots. Reserving is address space only; pages are committed as the table grows into them. */
const MAX_TABLE_BYTES = 2 ** 32;

/** A growable `SharedArrayBuffer` (ES2024; Node 20 has it, the project's TypeScript lib does not). */
interface GrowableBuffer extends SharedArrayBuffer {
  readonly maxByteLength: number;
  grow(byteLength: number): void;
}

/** Allocates a table of `slots` (a power of two), in a buffer that can grow in place ({@link grownTable}). */
export function sharedTable(slots: number): Int32Array {
  const Growable = SharedArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => GrowableBuffer;
  // A view of fixed length: one that tracks the buffer's would grow with it, and the old table's size is needed while its entries move.
  return new Int32Array(new Growable(4 * WORDS * slots, { maxByteLength: MAX_TABLE_BYTES }), 0, WORDS * slots);
}

/**
 * The table `t` grown in place to `slots` (a power of two times its own): the same
 * buffer, longer, its new slots empty (past the buffer's reservation, a fresh one). `t`'s entries are still where they were: the
 * threads move them with {@link rehashRange}, ranges from {@link rehashBounds}. Growing in
 * place commits only the new part: a fresh table would commit (the kernel zeroing
 * every page) the old size over again at every doubling.
 */
export function grownTable(t: Int32Array, slots: number): Int32Array {
  const buffer = t.buffer as GrowableBuffer;
  // Past the reservation, a fresh table: the entries move into it just as well (only their order of moving matters in place).
  if (4 * WORDS * slots > (buffer.maxByteLength ?? 0)) return new Int32Array(new SharedArrayBuffer(4 * WORDS * slots));
  buffer.grow(4 * WORDS * slots);
  return new Int32Array(buffer, 0, WORDS * slots);
}

/** The number of slots of a table. */
export function slotsOf(t: Int32Array): number {
  // A shift, not a division by WORDS (4): the inserts mask with it, and V8 divides in floating point.
  return t.length >>> 2;
}

/** The word to load ahead of an insert of `h1` (see `fingerprints.ts`, touch): its home slot's `h2`. */
export function homeWord(t: Int32Array, h1: number): number {
  return (h1 & (slotsOf(t) - 1)) * WORDS + 1;
}

/**
 * Whether fingerprint `(h1, h2)` is in its home slot from an earlier level: what most
 * inserts find, answered here by a function small enough to be inlined where
 * {@link insertFirst} (a loop, and atomics) is not. Where true, {@link insertFirst}
 * would return {@link OLD}.
 */
export function oldAtHome(t: Int32Array, h1: number, h2: number, tag: number): boolean {
  const i = (h1 & (slotsOf(t) - 1)) * WORDS;
  if (t[i + 1] !== h2 || t[i] !== h1) return false;
  // An earlier level's tag was published before this level began; 0 is a claim in flight, this level's.
  const found = t[i + 2]!;
  return found !== tag && found !== 0;
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
      // Empty: claim it, or learn the h2 of whoever claimed it first.
      cur = Atomics.compareExchange(t, i + 1, 0, h2);
      if (cur === 0) {
        t[i] = h1;
        t[i + 3] = key;
        t[i + 2] = tag; // publishes h1 and key
        return CLAIMED;
      }
    }
    if (cur === h2) {
      // Its h1 and key are to be read only once its tag is published (a few instructions after the claim).
      let found = t[i + 2]!;
      while (found === 0) found = Atomics.load(t, i + 2);
      if (t[i] === h1) return found === tag ? lowerKey(t, i + 3, key) : OLD;
    }
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

/** Slots at the end of the table, about, that the wrap-around range takes (see {@link rehashBounds}). */
const WRAP_SLOTS = 1024;

/**
 * Where `threads` threads rehash `t` when it grows: `threads + 2` ascending slot numbers,
 * range `k` from the `k`-th to the next; the last range, a short one at the end of the
 * table, goes on past it (taken modulo the table's slots) to the first empty slot, and
 * is the last thread's as well as its own range. Every boundary is an empty slot, so
 * that no cluster crosses one: every entry of a range has its home in the range. In a
 * table a power of two times as large, such an entry's home is the same slot plus a
 * multiple of the old size, and the entries of a range fit, probing, within the range's
 * images there (they did within the range, and a subset of them with the same homes
 * needs no more room): each thread writes its own slots alone, and needs no atomics.
 */
export function rehashBounds(t: Int32Array, threads: number): number[] {
  const slots = slotsOf(t);
  const emptyFrom = (s: number): number => {
    while (s < slots && t[s * WORDS + 1] !== 0) s++;
    return s;
  };
  const first = emptyFrom(0); // a table below full load has one
  const bounds = [first];
  for (let k = 1; k <= threads; k++) {
    const at = k < threads ? Math.floor((k * slots) / threads) : slots - WRAP_SLOTS;
    const b = emptyFrom(Math.max(at, bounds[k - 1]!));
    // No empty slot up to the end: this range is empty, and the wrap-around range starts where the last one did.
    bounds.push(b < slots ? b : bounds[k - 1]!);
  }
  bounds.push(slots + first);
  return bounds;
}

/**
 * Moves the entries of slots `from .. to` (a range of {@link rehashBounds}) of `t` into
 * `into`, the same table grown in place ({@link grownTable}), every word as it is. A
 * range within the table is done in place, in slot order from its first slot (an empty
 * one): an entry taken out of its slot goes back into the range's first image at or
 * before that slot (every slot before it is final, and its own is free now), or into a
 * new image. The wrap-around range is short: its entries are taken out first, then put
 * back (its images there hold the slots at both ends of the table).
 */
export function rehashRange(t: Int32Array, into: Int32Array, from: number, to: number): void {
  const old = slotsOf(t);
  commitImages(into, old, from, to);
  if (to <= old) {
    for (let s = from; s < to; s++) {
      const i = s * WORDS;
      if (t[i + 1] === 0) continue;
      const h1 = t[i]!;
      const h2 = t[i + 1]!;
      const tag = t[i + 2]!;
      const key = t[i + 3]!;
      t[i] = t[i + 1] = t[i + 2] = t[i + 3] = 0;
      place(into, h1, h2, tag, key);
    }
    return;
  }
  const taken: number[] = [];
  for (let s = from; s < to; s++) {
    const i = (s & (old - 1)) * WORDS;
    if (t[i + 1] === 0) continue;
    taken.push(t[i]!, t[i + 1]!, t[i + 2]!, t[i + 3]!);
    t[i] = t[i + 1] = t[i + 2] = t[i + 3] = 0;
  }
  for (let k = 0; k < taken.length; k += WORDS) place(into, taken[k]!, taken[k + 1]!, taken[k + 2]!, taken[k + 3]!);
}

/** Int32 words of a memory page (4 KiB): {@link commitImages} writes one word in each. */
export const PAGE_WORDS = 1024;

/**
 * Writes a zero into every page of the range's images in the new part of the table
 * before anything reads them. A page first read maps the kernel's shared zero page, and
 * the first write then faults again and flushes the page from every core's TLB (an
 * interrupt to the core that runs the other thread); written first, a page faults once.
 * The new part is zero already (a grown or fresh buffer): one word per page commits it,
 * where filling every word wrote the table's new half over again.
 */
export function commitImages(into: Int32Array, old: number, from: number, to: number): void {
  const slots = slotsOf(into);
  for (let base = 0; base < slots; base += old) {
    const start = Math.max(base + from, old) * WORDS;
    const end = Math.min(base + to, slots) * WORDS;
    if (start >= end) continue;
    // Any PAGE_WORDS consecutive words hold a page boundary's next word, so every page of the image gets one write, the last one's too.
    for (let w = start; w < end; w += PAGE_WORDS) into[w] = 0;
    into[end - 1] = 0;
  }
}

/** Puts an entry into the first free slot from its home (this thread's alone, see {@link rehashBounds}). */
function place(into: Int32Array, h1: number, h2: number, tag: number, key: number): void {
  const mask = slotsOf(into) - 1;
  let slot = h1 & mask;
  while (into[slot * WORDS + 1] !== 0) slot = (slot + 1) & mask;
  const j = slot * WORDS;
  into[j] = h1;
  into[j + 1] = h2;
  into[j + 2] = tag;
  into[j + 3] = key;
}
