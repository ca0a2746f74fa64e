/**
 * How the search's one loop (`bfs.ts`) gets the successors of a batch of states and
 * writes the new ones: the strategy it is given. Two strategies number states alike:
 *
 * - states first (here): every successor is written, canonicalised when symmetry is in
 *   effect, and fingerprinted from its words (`batch.ts`);
 * - fingerprints first (`expansion-prints.ts`): a successor is only a fingerprint until
 *   the table says it is new, and only then is it written.
 *
 * The loop sees only fingerprints (table keys), parents and actions, and asks the
 * strategy for a new state's words and bytes.
 */
import { SuccessorBatch } from './batch.ts';
import { successorsOf, type Checkable, type SuccessorSink } from './model.ts';
import { ScratchState } from './scratch.ts';
import type { StateQueue } from './store.ts';
import { WordViews } from './word-views.ts';
import { strideOf, wordState, type WordState } from './words.ts';

/** A strategy of the search: the batch it fills and how a kept successor is written. */
export interface Expansion {
  /** Bytes of a queued state's slot. */
  readonly stride: number;
  /** The batch's successors' table keys, two int32 each. */
  readonly keys: Int32Array;
  /** Each successor's parent, by state number. */
  readonly parents: Int32Array;
  /** Each successor's action number. */
  readonly actions: Uint8Array;
  /** The table key of the state {@link root} last returned. */
  readonly rootKey: Int32Array;
  /** An initial state as the queue holds it (its words) and as properties read it (its bytes); valid until the next call. */
  root(s: Uint8Array): WordState;
  /** Starts a batch whose first parent is state number `first`. */
  begin(first: number): void;
  /** Expands queued state `i`, the `j`-th of the batch; returns the number of successors in the batch. */
  expand(queue: StateQueue, i: number, j: number): number;
  /** The bytes of the `j`-th parent of the batch (valid until the next expand). */
  parentBytes(j: number): Uint8Array;
  /** Keeps of the successors `from ..` (the last parent's) only those at offsets `keep[0 .. kept)`: a reducer's ample set; returns the batch's count. */
  retain(from: number, keep: Int32Array, kept: number): number;
  /** Successor `k`'s words for the queue, written now if need be; valid until the next call. */
  write(k: number): Int32Array;
  /** The bytes of successor `k`, once written. */
  bytesOf(k: number): Uint8Array;
  /** Whether successor `k` leaves the conjunction's invariants as its parent had them (see `FingerprintSink`). */
  quiet(k: number): boolean;
}

/** States first: successors written, canonicalised by `canonicalize` when given, and fingerprinted from their words. */
export function stateExpansion<A>(model: Checkable<A>, canonicalize: ((s: Uint8Array) => Uint8Array) | undefined, perBatch: number): Expansion {
  const size = model.stateBytes;
  const successors = successorsOf(model);
  const batch = new SuccessorBatch(size, Math.max(perBatch * model.actions.length, 1));
  const words = new WordViews(size);
  // A model that copies its input once by slice() gets a scratch state that slices straight into the batch.
  const scratch = model.fast?.slicesOnce === true ? new ScratchState(size) : undefined;
  const expanded: WordState = scratch === undefined ? wordState(size) : { bytes: scratch, words: scratch.words };
  const first = wordState(size);
  const rootKey = new Int32Array(2);
  // Where the model puts each successor: canonical form, words, fingerprint, into the batch;
  // a successor already in the batch's next slot (sliced there, and canonical) stays where it is.
  let parent = 0;
  const sink: SuccessorSink = (t, a) => {
    const c = canonicalize === undefined ? t : canonicalize(t);
    if (c === batch.next) batch.commit(parent, a);
    else batch.add(words.of(c), parent, a);
    if (scratch !== undefined) scratch.target(batch.next, batch.nextWords);
  };
  return {
    stride: strideOf(size),
    keys: batch.hashes,
    parents: batch.parents,
    actions: batch.actions,
    rootKey,
    root: (s) => {
      batch.count = 0;
      batch.add(words.of(canonicalize === undefined ? s : canonicalize(s)), -1, 0);
      batch.copyTo(0, first.words);
      rootKey[0] = batch.hashes[0]!;
      rootKey[1] = batch.hashes[1]!;
      return first;
    },
    begin: () => {
      batch.count = 0;
      if (scratch !== undefined) scratch.target(batch.next, batch.nextWords);
    },
    expand: (queue, i) => {
      queue.take(i, expanded.words);
      parent = i;
      successors(expanded.bytes, sink); // enabled actions only reach the sink
      return batch.count;
    },
    parentBytes: () => expanded.bytes,
    retain: (from, keep, kept) => {
      batch.retain(from, keep, kept);
      if (scratch !== undefined) scratch.target(batch.next, batch.nextWords);
      return batch.count;
    },
    write: (k) => batch.wordsOf(k),
    bytesOf: (k) => batch.bytesOf(k),
    quiet: () => false,
  };
}
