/**
 * The parents of one batch of the parallel expand step when the model gives its
 * successors fingerprint first (`Checkable.hashed`, `model.ts`) and no canonicaliser is
 * in effect, as `expansion-prints.ts` does for one thread: a successor is only a Zobrist
 * fingerprint (`zobrist.ts`: its parent's, updated by the bytes its action changes)
 * until the shared table says it may be new, and only then is it written, from its
 * parent's copy kept here. Each state in the arenas then carries its raw fingerprint in
 * two words after its own (`arenaWords`), so that its successors start from it.
 *
 * The fingerprint is the one-worker search's for the same model (the same `Zobrist`,
 * from its fixed seed, in every thread), so the table holds what that search's does.
 */
import type { FrontierReader } from './arena.ts';
import type { FingerprintSink, HashedSuccessors } from './model.ts';
import { copyWords, strideOf, wordState, type WordState } from './words.ts';
import { Zobrist } from './zobrist.ts';

/** Int32 words per state in an arena: the state's words, and two more for its raw fingerprint when `hashed`. */
export function arenaWords(size: number, hashed: boolean): number {
  return (strideOf(size) >>> 2) + (hashed ? 2 : 0);
}

/** A batch's parents with their fingerprints, and how a kept successor is written from them. */
export class HashedParents {
  /** The Zobrist numbers, the one-worker search's. */
  readonly z: Zobrist;
  private readonly width: number;
  /** Per batch slot, the parent's words and its fingerprint in two more words. */
  private readonly words: Int32Array<ArrayBuffer>[] = [];
  private readonly bytes: Uint8Array<ArrayBuffer>[] = [];
  /** Where a successor is written before it goes to the arena (the model writes at the state's own offsets). */
  private readonly fresh: WordState;

  constructor(
    private readonly size: number,
    private readonly hashed: HashedSuccessors,
    perBatch: number,
  ) {
    this.z = new Zobrist(size);
    this.width = strideOf(size) >>> 2;
    for (let j = 0; j < perBatch; j++) {
      const buffer = new ArrayBuffer(4 * (this.width + 2));
      this.words.push(new Int32Array(buffer));
      this.bytes.push(new Uint8Array(buffer, 0, size));
    }
    this.fresh = wordState(size);
  }

  /** Reads parent `p` of the level into batch slot `j` and passes its successors' fingerprints to `sink`; returns the parent's bytes. */
  expand(reader: FrontierReader, p: number, j: number, sink: FingerprintSink): Uint8Array {
    const words = this.words[j]!;
    const bytes = this.bytes[j]!;
    reader.copy(p, words);
    this.hashed.fingerprints(bytes, words[this.width]!, words[this.width + 1]!, this.z, sink);
    return bytes;
  }

  /** Writes the successor of the parent in slot `j` by `action`, fingerprint `(h1, h2)` (raw), to `dst` at word `at`; returns it as bytes, valid until the next call. */
  write(j: number, action: number, h1: number, h2: number, dst: Int32Array, at: number): Uint8Array {
    const width = this.width;
    const fresh = this.fresh;
    copyWords(this.words[j]!, 0, fresh.words, 0, width);
    this.hashed.apply(this.bytes[j]!, action, fresh.bytes);
    copyWords(fresh.words, 0, dst, at, width);
    dst[at + width] = h1;
    dst[at + width + 1] = h2;
    return fresh.bytes;
  }

  /** The words of an initial state `s` for the arena: zero-padded, then its raw fingerprint. */
  rootWords(s: Uint8Array): Int32Array {
    const out = new Int32Array(this.width + 2);
    new Uint8Array(out.buffer, 0, this.size).set(s.subarray(0, this.size));
    const print = new Int32Array(2);
    this.z.hash(s, print, 0);
    out[this.width] = print[0]!;
    out[this.width + 1] = print[1]!;
    return out;
  }
}
