/**
 * The visited set: 64-bit fingerprints of states in an open-addressing table of 32-bit
 * pairs, as TLC and SPIN's hash compaction do. Only the fingerprint is kept, never the
 * state, so a stored state costs 8 bytes divided by the load factor. Two distinct states
 * with the same 64-bit fingerprint would be merged; with `k` states the chance of that is
 * about `k² / 2^65` (3e-6 at ten million states).
 *
 * A lookup in a table of tens of megabytes is a cache (and, in a VM, TLB) miss that
 * costs more than the rest of a successor's work; misses taken one after another are
 * paid in full. So the search hashes a batch of successors first, {@link FingerprintSet.touch}es
 * all their slots in one tight loop whose loads are independent and overlap in the
 * memory system, and only then probes them in order.
 */

/** Grow when more than this fraction of the slots is taken: linear probing stays short below it. */
const MAX_LOAD = 0.7;
/**
 * From this many slots (1 GiB of table) on, grow only past {@link BIG_LOAD}: a table this
 * big misses the cache on every probe's first slot whatever its load, the next slots
 * are mostly in the same or the next cache line, and doubling at 0.7 would make a
 * 200M-state table 4 GiB (21 bytes a state) where 2 GiB holds up to 241M states.
 */
export const BIG_TABLE_SLOTS = 2 ** 27;
/** The load a table of {@link BIG_TABLE_SLOTS} or more grows past. */
export const BIG_LOAD = 0.9;
/** The most fingerprints a table of `slots` slots holds before it grows. */
const limitOf = (slots: number): number => Math.floor(slots * (slots >= BIG_TABLE_SLOTS ? BIG_LOAD : MAX_LOAD));

/**
 * Writes the 64-bit fingerprint of the `count` words `words[at .. at+count)` as two int32
 * halves into `out[2k]` and `out[2k+1]` (never 0). One pass computes two independent
 * functions: h1 is MurmurHash3's x86_32 body, h2 an xxHash32-style accumulator, each with
 * its own avalanche. Hashes stay int32: V8 boxes a uint32 above 2^31 as a heap number
 * wherever it leaves a register.
 */
export function fingerprint(words: Int32Array, at: number, count: number, out: Int32Array, k: number): void {
  let h1 = 0x9747b28c ^ count;
  let h2 = (0x165667b1 + count) | 0;
  const end = at + count;
  for (let i = at; i < end; i++) {
    const w = words[i]!;
    let k1 = Math.imul(w, 0xcc9e2d51);
    k1 = Math.imul((k1 << 15) | (k1 >>> 17), 0x1b873593);
    h1 ^= k1;
    h1 = (Math.imul((h1 << 13) | (h1 >>> 19), 5) + 0xe6546b64) | 0;
    h2 = (h2 + Math.imul(w, 0xc2b2ae3d)) | 0;
    h2 = Math.imul((h2 << 17) | (h2 >>> 15), 0x27d4eb2f);
  }
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  h2 ^= h2 >>> 15;
  h2 = Math.imul(h2, 0x2c1b3c6d);
  h2 ^= h2 >>> 12;
  h2 = Math.imul(h2, 0x297a2d39);
  h2 ^= h2 >>> 15;
  out[2 * k] = h1;
  out[2 * k + 1] = h2 === 0 ? 1 : h2;
}

/** An ArrayBuffer that can grow in place (ES2024; Node 20 has it, the project's TypeScript lib does not). */
interface ResizableBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}

/** Table bytes reserved up front: 2^29 slots. Reserving is address space only; pages are committed as they are touched. */
const MAX_TABLE_BYTES = 2 ** 32;

const resizableBuffer = (bytes: number): ResizableBuffer =>
  new (ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ResizableBuffer)(bytes, { maxByteLength: MAX_TABLE_BYTES });

/**
 * A set of 64-bit state fingerprints. The table grows in place: a fresh table per
 * doubling would hold old and new at once and touch (page-fault) twice the memory, which
 * on a VM cost more than the rehash itself.
 */
export class FingerprintSet {
  /** `[h1, h2]` per slot; `h2 === 0` marks an empty slot. Tracks its buffer's length. */
  private table: Int32Array;
  private mask: number;
  private limit: number;
  /** Kept so that the touching loads are not optimized away. */
  private sink = 0;
  /** Number of fingerprints stored. */
  size = 0;

  constructor(capacityLog2 = 10) {
    const slots = 1 << capacityLog2;
    this.table = new Int32Array(resizableBuffer(8 * slots));
    this.mask = slots - 1;
    this.limit = limitOf(slots);
  }

  /** Loads the home slot of each of the first `count` fingerprints in `hashes`, so that the probes that follow hit the cache. */
  touch(hashes: Int32Array, count: number): void {
    const t = this.table;
    const mask = this.mask;
    let acc = 0;
    for (let k = 0; k < count; k++) acc ^= t[((hashes[2 * k]! & mask) << 1) + 1]!;
    this.sink ^= acc;
  }

  /** Adds fingerprint `(h1, h2)`; true when it was not there yet. */
  add(h1: number, h2: number): boolean {
    const t = this.table;
    const mask = this.mask;
    let slot = h1 & mask;
    for (;;) {
      const j = slot << 1;
      const e2 = t[j + 1]!;
      if (e2 === 0) break;
      if (e2 === h2 && t[j] === h1) return false;
      slot = (slot + 1) & mask;
    }
    t[slot << 1] = h1;
    t[(slot << 1) + 1] = h2;
    if (++this.size > this.limit) this.grow();
    return true;
  }

  /**
   * The mean number of slots a lookup of a stored fingerprint reads (1 when every one is
   * in its home slot): one pass over the table, for reports, not for the search.
   */
  meanProbe(): number {
    const t = this.table;
    const mask = this.mask;
    let total = 0;
    for (let slot = 0; slot <= mask; slot++) if (t[(slot << 1) + 1] !== 0) total += ((slot - (t[slot << 1]! & mask)) & mask) + 1;
    return this.size === 0 ? 0 : total / this.size;
  }

  /** Bytes held by the table. */
  get byteLength(): number {
    return this.table.byteLength;
  }

  /** Doubles the table: in place while the reservation lasts, else into a new one. */
  private grow(): void {
    const slots = (this.mask + 1) * 2;
    const buffer = this.table.buffer as ResizableBuffer;
    if (buffer.resizable === true && 8 * slots <= buffer.maxByteLength) {
      buffer.resize(8 * slots);
      // Write each page of the new half before anything reads it: a fresh page read first maps
      // the shared zero page, and its first write then faults a second time (and flushes other
      // cores' TLBs). It is zero already, so one write per 4 KB page commits it.
      const t = this.table;
      for (let i = slots; i < 2 * slots; i += 1024) t[i] = 0;
      rehashInPlace(this.table, slots >>> 1);
    } else {
      const old = this.table;
      this.table = new Int32Array(2 * slots);
      for (let j = 0; j < old.length; j += 2) if (old[j + 1] !== 0) insertWrapping(this.table, slots - 1, old[j]!, old[j + 1]!);
    }
    this.mask = slots - 1;
    this.limit = limitOf(slots);
  }
}

/** Inserts a fingerprint known to be absent, probing with wrap-around. */
function insertWrapping(t: Int32Array, mask: number, h1: number, h2: number): void {
  let slot = h1 & mask;
  while (t[(slot << 1) + 1] !== 0) slot = (slot + 1) & mask;
  t[slot << 1] = h1;
  t[(slot << 1) + 1] = h2;
}

/**
 * Rehashes a table whose first `half` slots hold the entries and whose second half was
 * just added, empty. Each entry is taken out and put back under the doubled mask,
 * scanning from just after an empty slot so that every cluster is visited from its
 * start: the slots on an entry's new probe path are then either already final or in
 * the new half. A probe that wraps past the end would land among the first slots, which
 * may not have been visited yet; rather than lean on the argument that this cannot
 * happen, such entries wait and go back in last, when every slot is final.
 */
function rehashInPlace(t: Int32Array, half: number): void {
  const mask = 2 * half - 1;
  let empty = 0;
  while (t[(empty << 1) + 1] !== 0) empty++;
  const waiting: number[] = [];
  for (let n = 1; n <= half; n++) {
    const j = ((empty + n) & (half - 1)) << 1;
    const h2 = t[j + 1]!;
    if (h2 === 0) continue;
    const h1 = t[j]!;
    t[j] = 0;
    t[j + 1] = 0;
    let slot = h1 & mask;
    while (slot <= mask && t[(slot << 1) + 1] !== 0) slot++;
    if (slot > mask) {
      waiting.push(h1, h2);
      continue;
    }
    t[slot << 1] = h1;
    t[(slot << 1) + 1] = h2;
  }
  for (let k = 0; k < waiting.length; k += 2) insertWrapping(t, mask, waiting[k]!, waiting[k + 1]!);
}

/** The slots of a table grown from the default size by `n` adds: the table a search of `n` states ends with (for reports). */
export function slotsAfter(n: number): number {
  let slots = 1 << 10;
  while (n > limitOf(slots)) slots *= 2;
  return slots;
}
