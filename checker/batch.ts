/**
 * The successors of a few states, held together so that their fingerprint lookups can
 * overlap (see `fingerprints.ts`). Kept in the order generated, so that probing them in
 * order numbers new states exactly as a one-at-a-time search would.
 *
 * Each slot has views of its own (bytes and words), made once: a model whose transitions
 * copy through a {@link ScratchState} can write a successor straight into the next slot
 * ({@link SuccessorBatch.next}), which is then only fingerprinted ({@link SuccessorBatch.commit}),
 * and a new state is stored and checked from its slot, with no copy in between.
 */
import { fingerprint } from './fingerprints.ts';
import { copyWords } from './words.ts';

/** Successor states (as zero-padded words) with their fingerprints, parents and actions. */
export class SuccessorBatch {
  /** Words per state. */
  private readonly width: number;
  /** The successors, `width` words each. */
  private readonly words: Int32Array<ArrayBuffer>;
  /** Per slot: its bytes (the state's length) and its words. */
  private readonly slotBytes: Uint8Array<ArrayBuffer>[] = [];
  private readonly slotWords: Int32Array<ArrayBuffer>[] = [];
  /** Their fingerprints, two int32 each. */
  readonly hashes: Int32Array;
  /** The number of the state each was generated from. */
  readonly parents: Int32Array;
  /** The action index that generated each. */
  readonly actions: Uint8Array;
  /** Keeps the state's bytes of its last word, clears the padding: a model's buffer may hold anything past its state. */
  private readonly lastMask: number;
  /** Number of successors held. */
  count = 0;

  constructor(size: number, capacity: number) {
    const stride = (size + 3) & ~3;
    this.width = stride >>> 2;
    const tail = size & 3;
    this.lastMask = tail === 0 ? -1 : (1 << (8 * tail)) - 1;
    // One spare slot: the next slot exists even when the batch is full.
    this.words = new Int32Array(this.width * (capacity + 1));
    for (let k = 0; k <= capacity; k++) {
      this.slotBytes.push(new Uint8Array(this.words.buffer, 4 * k * this.width, size));
      this.slotWords.push(new Int32Array(this.words.buffer, 4 * k * this.width, this.width));
    }
    this.hashes = new Int32Array(2 * capacity);
    this.parents = new Int32Array(capacity);
    this.actions = new Uint8Array(capacity);
  }

  /** The bytes of the slot the next successor goes to. */
  get next(): Uint8Array<ArrayBuffer> {
    return this.slotBytes[this.count]!;
  }

  /** The words of the slot the next successor goes to. */
  get nextWords(): Int32Array<ArrayBuffer> {
    return this.slotWords[this.count]!;
  }

  /** Appends a copy of the state in `src` (zero-padded words), found from state `parent` by action `action`, and fingerprints it. */
  add(src: Int32Array, parent: number, action: number): void {
    copyWords(src, 0, this.words, this.count * this.width, this.width);
    this.commit(parent, action);
  }

  /** Keeps the state already written into slot {@link next}, found from `parent` by `action`, and fingerprints it. */
  commit(parent: number, action: number): void {
    const k = this.count++;
    const at = k * this.width;
    if (this.width > 0) this.words[at + this.width - 1] = this.words[at + this.width - 1]! & this.lastMask; // little-endian
    fingerprint(this.words, at, this.width, this.hashes, k);
    this.parents[k] = parent;
    this.actions[k] = action;
  }

  /** Keeps of the successors `from ..` only those at offsets `keep[0 .. kept)` (ascending), moved down in order. */
  retain(from: number, keep: Int32Array, kept: number): void {
    const width = this.width;
    for (let j = 0; j < kept; j++) {
      const k = from + keep[j]!;
      const to = from + j;
      if (k === to) continue;
      copyWords(this.words, k * width, this.words, to * width, width);
      this.hashes[2 * to] = this.hashes[2 * k]!;
      this.hashes[2 * to + 1] = this.hashes[2 * k + 1]!;
      this.parents[to] = this.parents[k]!;
      this.actions[to] = this.actions[k]!;
    }
    this.count = from + kept;
  }

  /** Successor `k`'s bytes (valid until the batch is refilled). */
  bytesOf(k: number): Uint8Array<ArrayBuffer> {
    return this.slotBytes[k]!;
  }

  /** Successor `k`'s words (valid until the batch is refilled). */
  wordsOf(k: number): Int32Array<ArrayBuffer> {
    return this.slotWords[k]!;
  }

  /** Copies successor `k` into `out`. */
  copyTo(k: number, out: Int32Array): void {
    copyWords(this.words, k * this.width, out, 0, this.width);
  }
}
