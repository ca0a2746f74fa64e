/**
 * Breadth-first search over any {@link Checkable} model. States are stored once, in the
 * order found, so the queue is an index and the first violating state found is at the
 * least depth: its path of parent links is a shortest counterexample. The visited set
 * holds only 64-bit fingerprints; a path is kept as action numbers and rebuilt by replay.
 *
 * States are expanded a few at a time: their successors are generated and fingerprinted
 * into a batch, the batch's table slots are touched together, then the successors are
 * probed in the order generated. The numbering, and so every count and trace, is the
 * same as expanding one state at a time; only the memory misses overlap. A search that
 * stops at a violation or at `maxStates` stops where that one would; at a deadlock, see
 * `STOP_GROUP`.
 *
 * Deadlock: a state that produces no successor at all and is not a legitimate end of the
 * model is reported as `Deadlock` when it is expanded. Expansion is in breadth-first
 * order, so the first one found is at the least depth among deadlocks.
 */
import { SuccessorBatch } from './batch.ts';
import { checkHashed } from './bfs-hashed.ts';
import { FingerprintSet } from './fingerprints.ts';
import { invariantsToCheck, successorsOf, type Checkable, type SuccessorSink } from './model.ts';
import { PropertyMonitor } from './monitor.ts';
import { ScratchState } from './scratch.ts';
import { ParentLinks, StateQueue } from './store.ts';
import { searchResult } from './search-result.ts';
import type { CheckOptions, CheckResult } from './types.ts';
import { WordViews } from './word-views.ts';
import { strideOf, wordState } from './words.ts';

/** How often, in new states, `onProgress` is called. */
const PROGRESS_MASK = 0xffff;
/** States expanded per batch, at most: enough successors to overlap their misses (64 measured 5% faster than 8), few enough to stay in cache. */
const BATCH_STATES = 64;
/**
 * A deadlock that stops the search takes effect at the start of its group of this many
 * states of its level: the successors of the states before that group are stored, the
 * others not (the search once expanded 8 states per batch, and the parallel search
 * applies the same rule). A multiple of it divides `BATCH_STATES`.
 */
const STOP_GROUP = 8;
/** Bytes a batch may take when every action of every state in it is enabled: fewer states per batch for large states. */
const BATCH_BYTES = 1 << 20;

/** Explores every state reachable in `model` breadth-first and checks its invariants (and deadlock) in each. */
export function check<A>(model: Checkable<A>, options: CheckOptions = {}): CheckResult<A> {
  const symmetry = options.symmetry ?? true;
  const canonicalize = symmetry ? model.canonicalize?.bind(model) : undefined;
  const maxStates = options.maxStates ?? Number.POSITIVE_INFINITY;
  const keepGoing = options.continueAfterViolation ?? false;
  const onProgress = options.onProgress;
  let isEnd = (options.deadlock ?? true) ? model.isLegitimateEnd?.bind(model) : undefined;
  if (model.actionCount > 256) throw new Error(`checker: ${model.actionCount} actions do not fit a one-byte action index`);
  const size = model.stateBytes;
  const expand = successorsOf(model);
  const seen = new FingerprintSet();
  const queue = new StateQueue(strideOf(size));
  const links = new ParentLinks();
  const monitor = new PropertyMonitor(invariantsToCheck(model, options.invariants), model.properties.filter((p) => p.kind === 'sometimes'), model.conjunction);
  const perBatch = Math.max(1, Math.min(BATCH_STATES, Math.floor(BATCH_BYTES / (Math.max(model.actionCount, 1) * strideOf(size)))));
  // Without a canonicaliser, a model that gives its successors fingerprint first writes only the new ones (bfs-hashed.ts).
  if (model.hashed !== undefined && canonicalize === undefined) return checkHashed(model, model.hashed, options, { perBatch, stopGroup: STOP_GROUP });
  const batch = new SuccessorBatch(size, Math.max(perBatch * model.actionCount, 1));
  const words = new WordViews(size);
  // A model that copies its input once by slice() gets a scratch state that slices straight into the batch.
  const scratch = model.slicesOnce === true ? new ScratchState(size) : undefined;
  const expanded: { readonly bytes: Uint8Array; readonly words: Int32Array } = scratch === undefined ? wordState(size) : { bytes: scratch, words: scratch.words };
  const fresh = wordState(size);
  const deadlocks: { state: number; depth: number }[] = [];

  // The initial states, canonical and without repeats, are states 0 .. roots-1.
  let stop = false;
  for (const init of model.initialStates()) {
    batch.count = 0;
    batch.add(words.of(canonicalize === undefined ? init : canonicalize(init)), -1, 0);
    if (!seen.add(batch.hashes[0]!, batch.hashes[1]!)) continue;
    batch.copyTo(0, fresh.words);
    queue.push(fresh.words);
    stop = (monitor.visit(fresh.bytes, queue.length - 1, 0) && !keepGoing) || stop;
  }
  links.roots = queue.length;
  const roots = Array.from({ length: queue.length }, (_, i) => {
    queue.take(i, expanded.words);
    return new Uint8Array(expanded.bytes); // not slice(): a scratch state's slice() is its shared successor
  });
  // Where the model puts each successor: canonical form, words, fingerprint, into the batch;
  // a successor already in the batch's next slot (sliced there, and canonical) stays where it is.
  let parent = 0;
  const sink: SuccessorSink = (t, a) => {
    const c = canonicalize === undefined ? t : canonicalize(t);
    if (c === batch.next) batch.commit(parent, a);
    else batch.add(words.of(c), parent, a);
    if (scratch !== undefined) scratch.target(batch.next, batch.nextWords);
  };
  let incomplete = false;
  let depth = 0;
  let deepest = 0;
  let levelStart = 0;
  let levelEnd = queue.length;
  let i = 0;
  while (i < queue.length && !stop) {
    // Crossing into the next level: everything queued so far is one level deeper.
    if (i === levelEnd) {
      depth++;
      levelStart = i;
      levelEnd = queue.length;
    }
    // Generate the successors of a few states of this level.
    batch.count = 0;
    if (scratch !== undefined) scratch.target(batch.next, batch.nextWords);
    const batchEnd = Math.min(i + perBatch, levelEnd);
    // A deadlock that stops the search, and the first parent whose successors it leaves unstored (STOP_GROUP).
    let stuck: { state: number; depth: number } | undefined;
    let cut = Number.POSITIVE_INFINITY;
    for (; i < batchEnd; i++) {
      queue.take(i, expanded.words);
      parent = i;
      const before = batch.count;
      expand(expanded.bytes, sink); // enabled actions only reach the sink
      // Nothing enabled, and not a legitimate end: a deadlock.
      if (batch.count === before && isEnd !== undefined && !isEnd(expanded.bytes)) {
        isEnd = undefined; // the first is the shortest
        if (keepGoing) deadlocks.push({ state: i, depth });
        else {
          stuck = { state: i, depth };
          cut = levelStart + STOP_GROUP * Math.floor((i - levelStart) / STOP_GROUP);
          i++;
          break;
        }
      }
    }
    seen.touch(batch.hashes, batch.count);
    // Store the new ones, in the order generated.
    for (let k = 0; k < batch.count && !stop; k++) {
      if (batch.parents[k]! >= cut) break;
      if (!seen.add(batch.hashes[2 * k]!, batch.hashes[2 * k + 1]!)) continue; // seen before
      if (queue.length >= maxStates) {
        incomplete = true;
        stop = true;
        break;
      }
      const j = queue.length;
      queue.push(batch.wordsOf(k));
      links.set(j, batch.parents[k]!, batch.actions[k]!);
      deepest = depth + 1;
      if (monitor.visit(batch.bytesOf(k), j, deepest) && !keepGoing) stop = true;
      if ((j & PROGRESS_MASK) === 0 && onProgress !== undefined) {
        onProgress({ states: queue.length, queue: queue.length - i, depth: deepest });
      }
    }
    // The deadlock stops the search only if nothing stopped it before.
    if (stuck !== undefined && !stop) {
      deadlocks.push(stuck);
      stop = true;
    }
  }

  return searchResult({
    model,
    canonical: canonicalize !== undefined,
    roots,
    links,
    monitor,
    deadlocks,
    incomplete,
    distinctStates: queue.length,
    depth: deepest,
    // The table as allocated; links and queue as used (their chunk slack is at most a chunk each).
    bytesPerState: (seen.byteLength + ParentLinks.BYTES * queue.length + queue.peakQueued * strideOf(size)) / queue.length,
    symmetry,
  });
}
