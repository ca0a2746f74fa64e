/**
 * States as 32-bit words. A state is `m.size` bytes; the search keeps each one in a slot
 * of `stride` bytes, the size rounded up to whole words, with the padding always zero.
 * Copying and hashing a word at a time is four times fewer loads and stores than a byte
 * at a time, and those copies run several times per state.
 */

/** `size` rounded up to a multiple of 4. */
export function strideOf(size: number): number {
  return (size + 3) & ~3;
}

/** A state buffer of `size` bytes over a zero-padded word buffer, with its word view. */
export interface WordState {
  /** The state's bytes, as the spec reads them. */
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** The same memory as words, padding included. */
  readonly words: Int32Array<ArrayBuffer>;
}

/** A fresh, zeroed word state. */
export function wordState(size: number): WordState {
  const buffer = new ArrayBuffer(strideOf(size));
  return { bytes: new Uint8Array(buffer, 0, size), words: new Int32Array(buffer) };
}

/** Copies `count` words from `src[from..]` to `dst[to..]`. */
export function copyWords(src: Int32Array, from: number, dst: Int32Array, to: number, count: number): void {
  for (let k = 0; k < count; k++) dst[to + k] = src[from + k]!;
}
