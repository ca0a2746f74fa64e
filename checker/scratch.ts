/**
 * The state the search hands to the spec's transitions. Every transition copies its input
 * with `slice()` before writing; a fresh typed array per successor costs an allocation
 * and, above 64 bytes (V8 keeps only smaller typed arrays on the heap), an off-heap
 * buffer, which measured ten times slower than the copy itself. The search consumes each
 * successor before taking the next action, so all of them can share one buffer: this
 * state's `slice()` copies into that buffer and returns it. The spec is unchanged and
 * still decides enabledness and effects; only where its copies live changes.
 */
import { strideOf } from './words.ts';

/** A state whose argument-less `slice()` returns a copy in a buffer reused by the next call. */
export class ScratchState extends Uint8Array<ArrayBuffer> {
  /** This state as words (padding included, always zero). */
  readonly words: Int32Array<ArrayBuffer>;
  /** The buffer every `slice()` returns. */
  readonly successor: Uint8Array<ArrayBuffer>;
  /** The successor buffer as words. */
  readonly successorWords: Int32Array<ArrayBuffer>;

  /** Arrays derived from this one (`subarray`, `map`, ...) are plain: only `slice()` is special. */
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }

  constructor(size: number) {
    super(new ArrayBuffer(strideOf(size)), 0, size);
    this.words = new Int32Array(this.buffer);
    const next = new ArrayBuffer(strideOf(size));
    this.successor = new Uint8Array(next, 0, size);
    this.successorWords = new Int32Array(next);
  }

  /** A copy of this state in the shared successor buffer; with a range, an ordinary fresh copy. */
  override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
    if (start !== undefined || end !== undefined) return new Uint8Array(this.buffer, this.byteOffset, this.length).slice(start, end);
    const from = this.words;
    const to = this.successorWords;
    for (let k = 0; k < from.length; k++) to[k] = from[k]!;
    return this.successor;
  }
}
