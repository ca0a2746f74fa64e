/**
 * The incident replay's only source of randomness: xoshiro128** seeded through splitmix32,
 * so that a run is a pure function of its seed and `--seed S` replays it exactly. 32-bit
 * integer arithmetic only (`Math.imul`, `>>> 0`), which is exact in JavaScript.
 */

/** A seeded pseudo-random generator: xoshiro128** (Blackman and Vigna). */
export class Prng {
  /** The seed this generator was built from; printed in every report. */
  readonly seed: number;
  private readonly s = new Uint32Array(4);

  constructor(seed: number) {
    this.seed = seed >>> 0;
    // splitmix32 spreads a small seed over the 128-bit state, which must not be all zero.
    let x = this.seed;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.s[i] = (z ^ (z >>> 16)) >>> 0;
    }
  }

  /** A generator started from a raw 128-bit state, to check against the reference's test vectors; its `seed` is 0. */
  static fromState(state: readonly [number, number, number, number]): Prng {
    const prng = new Prng(0);
    prng.s.set(state);
    return prng;
  }

  /** The next 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const s0 = s[0] ?? 0;
    const s1 = s[1] ?? 0;
    const s2 = s[2] ?? 0;
    const s3 = s[3] ?? 0;
    const r = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (s1 << 9) >>> 0;
    const n2 = (s2 ^ s0) >>> 0;
    const n3 = (s3 ^ s1) >>> 0;
    s[1] = (s1 ^ n2) >>> 0;
    s[0] = (s0 ^ n3) >>> 0;
    s[2] = (n2 ^ t) >>> 0;
    s[3] = rotl(n3, 11);
    return r;
  }

  /** A float in `[0, 1)` with 32 bits of randomness. */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** A whole number in `[min, max]`, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A number in `[min, max]` whose logarithm is uniform: many small values, a long tail. */
  logUniform(min: number, max: number): number {
    return Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min)));
  }
}

/** Rotates a 32-bit word left by `k`. */
function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
