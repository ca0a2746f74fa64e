/**
 * Word views of the states a model hands over, as both searches read them: a state in a buffer of exactly a stride's bytes, at offset 0, is read in
 * place through a cached word view (the reader clears its padding); any other is copied
 * into a spare word buffer first.
 */
import { strideOf, wordState, type WordState } from './words.ts';

/** Hands out word views of model states. */
export class WordViews {
  private readonly stride: number;
  private readonly spare: WordState;
  private readonly buffers: ArrayBufferLike[] = [];
  private readonly views: Int32Array[] = [];

  constructor(size: number) {
    this.stride = strideOf(size);
    this.spare = wordState(size);
  }

  /** The words of state `s`. */
  of(s: Uint8Array): Int32Array {
    const buffer = s.buffer;
    if (s.byteOffset !== 0 || buffer.byteLength !== this.stride) {
      this.spare.bytes.set(s);
      return this.spare.words;
    }
    for (let k = 0; k < this.buffers.length; k++) if (this.buffers[k] === buffer) return this.views[k]!;
    const view = new Int32Array(buffer, 0, this.stride >>> 2);
    // A few buffers recur (the model's scratch, its canonicaliser's output); keep the last four.
    if (this.buffers.length === 4) {
      this.buffers.shift();
      this.views.shift();
    }
    this.buffers.push(buffer);
    this.views.push(view);
    return view;
  }
}
