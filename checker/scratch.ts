/**
 * The state the search hands to a model's transitions. Every transition copies its input
 * with `slice()` before writing; a fresh typed array per successor costs an allocation
 * and, above 64 bytes (V8 keeps only smaller typed arrays on the heap), an off-heap
 * buffer, which measured ten times slower than the copy itself. The search consumes each
 * successor before taking the next action, so all of them can share one buffer: this
 * state's `slice()` copies into that buffer and returns it. The model is unchanged and
 * still decides enabledness and effects; only where its copies live changes.
 *
 * The search may point the successor buffer elsewhere ({@link ScratchState.target}): at
 * the slot of its batch where the next successor is to be kept, so that a successor is
 * written where it is fingerprinted and not copied again.
 */
import { strideOf } from './words.ts';

/** A state whose argument-less `slice()` returns a copy in a buffer reused by the next call. */
export class ScratchState extends Uint8Array<ArrayBuffer> {
  /** This state as words (padding included, always zero). */
  readonly words: Int32Array<ArrayBuffer>;
  private next: Uint8Array<ArrayBuffer>;
  private nextWords: Int32Array<ArrayBuffer>;

  /** Arrays derived from this one (`subarray`, `map`, ...) are plain: only `slice()` is special. */
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }

  constructor(size: number) {
    super(new ArrayBuffer(strideOf(size)), 0, size);
    this.words = new Int32Array(this.buffer);
    const next = new ArrayBuffer(strideOf(size));
    this.next = new Uint8Array(next, 0, size);
    this.nextWords = new Int32Array(next);
  }

  /** The buffer the next `slice()` returns. */
  get successor(): Uint8Array<ArrayBuffer> {
    return this.next;
  }

  /** The successor buffer as words. */
  get successorWords(): Int32Array<ArrayBuffer> {
    return this.nextWords;
  }

  /** Makes `slice()` copy into `bytes` (this state's length), whose words (a stride's worth, padding zero) are `words`. */
  target(bytes: Uint8Array<ArrayBuffer>, words: Int32Array<ArrayBuffer>): void {
    this.next = bytes;
    this.nextWords = words;
  }

  /** A copy of this state in the shared successor buffer; with a range, an ordinary fresh copy. */
  override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
    if (start !== undefined || end !== undefined) return new Uint8Array(this.buffer, this.byteOffset, this.length).slice(start, end);
    const from = this.words;
    const to = this.nextWords;
    for (let k = 0; k < from.length; k++) to[k] = from[k]!;
    return this.next;
  }
}
