/**
 * The fingerprint-first strategy of the search's loop (`expansion.ts`), for a model with
 * {@link HashedSuccessors} and no canonicaliser in effect. Most successors are states
 * already seen; here a successor is only a fingerprint (its parent's, updated by the
 * bytes its action changes: `zobrist.ts`) until the table says it is new, and only then
 * is it written, straight into the state that goes to the queue. Every queued state keeps
 * its fingerprint in two words after its own, so that its own successors start from it.
 * Only the fingerprint function differs from the states-first strategy, which changes no
 * count (a 64-bit collision aside).
 */
import type { Expansion } from './expansion.ts';
import type { Checkable, FingerprintSink, HashedSuccessors } from './model.ts';
import { copyWords, strideOf, type WordState } from './words.ts';
import { tableKey, Zobrist } from './zobrist.ts';

/** A zeroed state of `size` bytes over its words, with two more words for its fingerprint. */
function printedState(size: number): WordState {
  const buffer = new ArrayBuffer(strideOf(size) + 8);
  return { bytes: new Uint8Array(buffer, 0, size), words: new Int32Array(buffer) };
}

/** `count` zeroed states with room for their fingerprints: a batch's parents, copied out of the queue (whose chunks are recycled as it goes). */
function parentSlots(size: number, count: number): { words: Int32Array[]; bytes: Uint8Array[] } {
  const slots = Array.from({ length: count }, () => printedState(size));
  return { words: slots.map((w) => w.words), bytes: slots.map((w) => w.bytes) };
}

/** Writes initial state `s` into `out` with its raw fingerprint under `z` after it, and its table key into `key`. */
function printRoot(z: Zobrist, s: Uint8Array, out: WordState, key: Int32Array): WordState {
  const width = out.words.length - 2;
  out.words.fill(0);
  out.bytes.set(s.subarray(0, out.bytes.length));
  z.hash(out.bytes, key, 0);
  out.words[width] = key[0]!;
  out.words[width + 1] = key[1]!;
  key[1] = tableKey(key[1]!);
  return out;
}

/** A batch of fingerprinted successors, as `printExpansion` holds them. */
interface PrintBatch {
  readonly keys: Int32Array;
  readonly raw: Int32Array;
  readonly parents: Int32Array;
  readonly actions: Uint8Array;
  readonly quiets: Uint8Array;
}

/** Keeps of the successors `from ..` only those at offsets `keep[0 .. kept)`, moved down in order; returns the new count. */
function retainPrints(b: PrintBatch, from: number, keep: Int32Array, kept: number): number {
  for (let j = 0; j < kept; j++) {
    const k = from + keep[j]!;
    const to = from + j;
    b.keys[2 * to] = b.keys[2 * k]!;
    b.keys[2 * to + 1] = b.keys[2 * k + 1]!;
    b.raw[to] = b.raw[k]!;
    b.parents[to] = b.parents[k]!;
    b.actions[to] = b.actions[k]!;
    b.quiets[to] = b.quiets[k]!;
  }
  return from + kept;
}

/** Fingerprints first, through `hashed` (see above). */
export function printExpansion<A>(model: Checkable<A>, hashed: HashedSuccessors, perBatch: number): Expansion {
  const size = model.stateBytes;
  const width = strideOf(size) >>> 2;
  const z = new Zobrist(size);
  const capacity = Math.max(perBatch * model.actions.length, 1);
  const keys = new Int32Array(2 * capacity);
  const raw = new Int32Array(capacity);
  const parents = new Int32Array(capacity);
  const actions = new Uint8Array(capacity);
  const quiets = new Uint8Array(capacity);
  const { words: parentWords, bytes: parentBytes } = parentSlots(size, perBatch);
  const fresh = printedState(size);
  const rootKey = new Int32Array(2);
  let count = 0;
  let parent = 0;
  let first = 0;
  const sink: FingerprintSink = (a, h1, h2, quiet) => {
    keys[2 * count] = h1;
    keys[2 * count + 1] = tableKey(h2);
    raw[count] = h2;
    parents[count] = parent;
    actions[count] = a;
    quiets[count] = quiet === true ? 1 : 0;
    count++;
  };
  return {
    stride: strideOf(size) + 8,
    keys,
    parents,
    actions,
    rootKey,
    root: (s) => printRoot(z, s, fresh, rootKey),
    begin: (i) => {
      count = 0;
      first = i;
    },
    expand: (queue, i, j) => {
      const words = parentWords[j]!;
      queue.take(i, words);
      parent = i;
      hashed.fingerprints(parentBytes[j]!, words[width]!, words[width + 1]!, z, sink);
      return count;
    },
    parentBytes: (j) => parentBytes[j]!,
    retain: (from, keep, kept) => (count = retainPrints({ keys, raw, parents, actions, quiets }, from, keep, kept)),
    // Written only now that it is known to be new: the parent's copy, then the action's changes.
    write: (k) => {
      const from = parents[k]! - first;
      copyWords(parentWords[from]!, 0, fresh.words, 0, width);
      hashed.apply(parentBytes[from]!, actions[k]!, fresh.bytes);
      fresh.words[width] = keys[2 * k]!;
      fresh.words[width + 1] = raw[k]!;
      return fresh.words;
    },
    bytesOf: () => fresh.bytes,
    // A quiet successor's conjoined invariants are its parent's, and those still open held there.
    quiet: (k) => quiets[k] === 1,
  };
}
