/**
 * The breadth-first search of `bfs.ts` for a model with {@link HashedSuccessors} and no
 * canonicaliser in effect. Most successors are states already seen; here a successor is
 * only a fingerprint (its parent's, updated by the bytes its action changes:
 * `zobrist.ts`) until the table says it is new, and only then is it written, straight
 * into the state that goes to the queue. Every queued state keeps its fingerprint, so
 * that its own successors start from it.
 *
 * Everything else is `bfs.ts`'s, in the same order: batches of states whose successors'
 * table slots are touched together, then probed in the order generated; the same
 * numbering, depths, deadlock rule (`STOP_GROUP`), budget and property checks. Only the
 * fingerprint function differs, which changes no count (a 64-bit collision aside), and
 * a successor the model calls quiet is not asked the conjunction's invariants again.
 */
import { FingerprintSet } from './fingerprints.ts';
import { invariantsToCheck, type Checkable, type FingerprintSink, type HashedSuccessors } from './model.ts';
import { PropertyMonitor } from './monitor.ts';
import { ParentLinks, StateQueue } from './store.ts';
import { searchResult } from './search-result.ts';
import type { CheckOptions, CheckResult } from './types.ts';
import { copyWords, strideOf, type WordState } from './words.ts';
import { tableKey, Zobrist } from './zobrist.ts';

/** How often, in new states, `onProgress` is called (as `bfs.ts`). */
const PROGRESS_MASK = 0xffff;

/** The batch and deadlock parameters of `bfs.ts`, which the numbering depends on. */
export interface BatchRule {
  /** States expanded per batch. */
  readonly perBatch: number;
  /** A stopping deadlock takes effect at the start of its group of this many states of its level. */
  readonly stopGroup: number;
}

/** A zeroed state of `size` bytes over its words, with two more words for its fingerprint. */
function printedState(size: number): WordState {
  const buffer = new ArrayBuffer(strideOf(size) + 8);
  return { bytes: new Uint8Array(buffer, 0, size), words: new Int32Array(buffer) };
}

/** {@link check}'s search through `hashed` (see above); `rule` is `bfs.ts`'s batching. */
export function checkHashed<A>(model: Checkable<A>, hashed: HashedSuccessors, options: CheckOptions, rule: BatchRule): CheckResult<A> {
  const maxStates = options.maxStates ?? Number.POSITIVE_INFINITY;
  const keepGoing = options.continueAfterViolation ?? false;
  const onProgress = options.onProgress;
  let isEnd = (options.deadlock ?? true) ? model.isLegitimateEnd?.bind(model) : undefined;
  const size = model.stateBytes;
  const stride = strideOf(size);
  const width = stride >>> 2;
  const z = new Zobrist(size);
  const seen = new FingerprintSet();
  // Each queued state with its raw fingerprint in two more words.
  const queue = new StateQueue(stride + 8);
  const links = new ParentLinks();
  const monitor = new PropertyMonitor(invariantsToCheck(model, options.invariants), model.properties.filter((p) => p.kind === 'sometimes'), model.conjunction);
  const { perBatch, stopGroup } = rule;
  const capacity = Math.max(perBatch * model.actionCount, 1);
  const keys = new Int32Array(2 * capacity);
  const raw = new Int32Array(capacity);
  const parents = new Int32Array(capacity);
  const actions = new Uint8Array(capacity);
  const quiets = new Uint8Array(capacity);
  // The batch's parents, copied out of the queue (whose chunks are recycled as it goes).
  const parentWords: Int32Array[] = [];
  const parentBytes: Uint8Array[] = [];
  for (let j = 0; j < perBatch; j++) {
    const w = printedState(size);
    parentWords.push(w.words);
    parentBytes.push(w.bytes);
  }
  const fresh = printedState(size);
  const deadlocks: { state: number; depth: number }[] = [];

  // The initial states, without repeats, are states 0 .. roots-1.
  let stop = false;
  for (const init of model.initialStates()) {
    fresh.words.fill(0);
    fresh.bytes.set(init.subarray(0, size));
    const print = new Int32Array(2);
    z.hash(fresh.bytes, print, 0);
    if (!seen.add(print[0]!, tableKey(print[1]!))) continue;
    fresh.words[width] = print[0]!;
    fresh.words[width + 1] = print[1]!;
    queue.push(fresh.words);
    stop = (monitor.visit(fresh.bytes, queue.length - 1, 0) && !keepGoing) || stop;
  }
  links.roots = queue.length;
  const roots = Array.from({ length: queue.length }, (_, i) => {
    queue.take(i, fresh.words);
    return fresh.bytes.slice();
  });

  let count = 0;
  let parent = 0;
  const sink: FingerprintSink = (a, h1, h2, quiet) => {
    keys[2 * count] = h1;
    keys[2 * count + 1] = tableKey(h2);
    raw[count] = h2;
    parents[count] = parent;
    actions[count] = a;
    quiets[count] = quiet === true ? 1 : 0;
    count++;
  };
  let incomplete = false;
  let depth = 0;
  let deepest = 0;
  let levelStart = 0;
  let levelEnd = queue.length;
  let i = 0;
  while (i < queue.length && !stop) {
    if (i === levelEnd) {
      depth++;
      levelStart = i;
      levelEnd = queue.length;
    }
    count = 0;
    const batchStart = i;
    const batchEnd = Math.min(i + perBatch, levelEnd);
    let stuck: { state: number; depth: number } | undefined;
    let cut = Number.POSITIVE_INFINITY;
    for (; i < batchEnd; i++) {
      const j = i - batchStart;
      const words = parentWords[j]!;
      queue.take(i, words);
      parent = i;
      const before = count;
      hashed.fingerprints(parentBytes[j]!, words[width]!, words[width + 1]!, z, sink);
      if (count === before && isEnd !== undefined && !isEnd(parentBytes[j]!)) {
        isEnd = undefined;
        if (keepGoing) deadlocks.push({ state: i, depth });
        else {
          stuck = { state: i, depth };
          cut = levelStart + stopGroup * Math.floor((i - levelStart) / stopGroup);
          i++;
          break;
        }
      }
    }
    seen.touch(keys, count);
    for (let k = 0; k < count && !stop; k++) {
      const from = parents[k]!;
      if (from >= cut) break;
      if (!seen.add(keys[2 * k]!, keys[2 * k + 1]!)) continue;
      if (queue.length >= maxStates) {
        incomplete = true;
        stop = true;
        break;
      }
      const j = queue.length;
      // Written only now that it is known to be new: the parent's copy, then the action's changes.
      copyWords(parentWords[from - batchStart]!, 0, fresh.words, 0, width);
      hashed.apply(parentBytes[from - batchStart]!, actions[k]!, fresh.bytes);
      fresh.words[width] = keys[2 * k]!;
      fresh.words[width + 1] = raw[k]!;
      queue.push(fresh.words);
      links.set(j, from, actions[k]!);
      deepest = depth + 1;
      // A quiet successor's conjoined invariants are its parent's, and those still open held there.
      if (monitor.visit(fresh.bytes, j, deepest, quiets[k] === 1) && !keepGoing) stop = true;
      if ((j & PROGRESS_MASK) === 0 && onProgress !== undefined) {
        onProgress({ states: queue.length, queue: queue.length - i, depth: deepest });
      }
    }
    if (stuck !== undefined && !stop) {
      deadlocks.push(stuck);
      stop = true;
    }
  }

  return searchResult({
    model,
    canonical: false,
    roots,
    links,
    monitor,
    deadlocks,
    incomplete,
    distinctStates: queue.length,
    depth: deepest,
    // As bfs.ts, with each queued state's fingerprint (8 bytes) beside it.
    bytesPerState: (seen.byteLength + ParentLinks.BYTES * queue.length + queue.peakQueued * (stride + 8)) / queue.length,
    symmetry: options.symmetry ?? true,
  });
}
