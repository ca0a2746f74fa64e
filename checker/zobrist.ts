/**
 * Zobrist fingerprints: a state's fingerprint is the XOR, over its bytes, of a fixed
 * 64-bit number for each (position, value), held as two int32 tables. Its point is that a
 * successor's fingerprint follows from its parent's and the bytes the action changes:
 * for each, XOR out the old value's number and XOR in the new one. A model that knows
 * what its actions change (`Checkable.hashed`, `model.ts`) can then fingerprint a
 * successor without writing it, and the search writes only the successors that are new
 * (most are not). Tabulation hashing of this kind is 3-independent; two distinct states
 * get the same 64 bits with probability 2^-64.
 *
 * The numbers are a pure function of the position and value: SplitMix32 from one fixed
 * seed, read from no clock and no global generator, so every run, and every worker thread
 * of a parallel search, builds the same table and gives the same fingerprints. (The
 * incident replay's seeded generator, incident/prng.ts, is not used: the checker depends
 * on nothing outside itself.) The table, 2 KB per state byte, stays in the second-level cache.
 */

/** Per-(position, byte value) fixed pseudo-random numbers for states of a fixed length. */
export class Zobrist {
  /** Low halves: `lo[(position << 8) | value]`. */
  readonly lo: Int32Array;
  /** High halves, likewise. */
  readonly hi: Int32Array;

  constructor(readonly size: number) {
    this.lo = new Int32Array(size << 8);
    this.hi = new Int32Array(size << 8);
    // SplitMix32 from a fixed seed: the table is the same in every run and every thread.
    let x = 0x9e3779b9 | 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return z ^ (z >>> 16);
    };
    for (let k = 0; k < this.lo.length; k++) {
      this.lo[k] = next();
      this.hi[k] = next();
    }
  }

  /** Writes the fingerprint of the first `size` bytes of `s` into `out[2k]`, `out[2k+1]` (the raw XORs: see {@link tableKey}). */
  hash(s: Uint8Array, out: Int32Array, k: number): void {
    const lo = this.lo;
    const hi = this.hi;
    let h1 = 0;
    let h2 = 0;
    for (let i = 0; i < this.size; i++) {
      const x = (i << 8) | s[i]!;
      h1 ^= lo[x]!;
      h2 ^= hi[x]!;
    }
    out[2 * k] = h1;
    out[2 * k + 1] = h2;
  }
}

/** The fingerprint table's second half of a raw Zobrist high half: never 0, which marks an empty slot. */
export function tableKey(h2: number): number {
  return h2 === 0 ? 1 : h2;
}
