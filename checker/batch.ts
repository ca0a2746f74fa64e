/**
 * The successors of a few states, held together so that their fingerprint lookups can
 * overlap (see `fingerprints.ts`). Kept in the order generated, so that probing them in
 * order numbers new states exactly as a one-at-a-time search would.
 */
import { fingerprint } from './fingerprints.ts';
import { copyWords } from './words.ts';

/** Successor states (as zero-padded words) with their fingerprints, parents and actions. */
export class SuccessorBatch {
  /** Words per state. */
  private readonly width: number;
  /** The successors, `width` words each. */
  private readonly words: Int32Array;
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
    this.words = new Int32Array(this.width * capacity);
    this.hashes = new Int32Array(2 * capacity);
    this.parents = new Int32Array(capacity);
    this.actions = new Uint8Array(capacity);
  }

  /** Appends a copy of the state in `src` (zero-padded words), found from state `parent` by action `action`, and fingerprints it. */
  add(src: Int32Array, parent: number, action: number): void {
    const k = this.count++;
    const at = k * this.width;
    copyWords(src, 0, this.words, at, this.width);
    if (this.width > 0) this.words[at + this.width - 1] = this.words[at + this.width - 1]! & this.lastMask; // little-endian
    fingerprint(this.words, at, this.width, this.hashes, k);
    this.parents[k] = parent;
    this.actions[k] = action;
  }

  /** Copies successor `k` into `out`. */
  copyTo(k: number, out: Int32Array): void {
    copyWords(this.words, k * this.width, out, 0, this.width);
  }
}
