/**
 * Breadth-first search over the spec. States are stored once, in the order found, so the
 * queue is an index and the first violating state found is at the least depth: its path
 * of parent links is a shortest counterexample. The visited set holds only 64-bit
 * fingerprints; a path is kept as action indices and rebuilt by replay.
 *
 * States are expanded a few at a time: their successors are generated and fingerprinted
 * into a batch, the batch's table slots are touched together, then the successors are
 * probed in the order generated. The numbering, and so every count and trace, is the
 * same as expanding one state at a time; only the memory misses overlap.
 */
import { DEFAULT_INVARIANTS, initial, type Model } from '../spec/index.ts';
import { SuccessorBatch } from './batch.ts';
import { FingerprintSet } from './fingerprints.ts';
import { PropertyMonitor } from './monitor.ts';
import { replayPath } from './replay.ts';
import { ScratchState } from './scratch.ts';
import { ParentLinks, StateQueue } from './store.ts';
import { createCanonicalizer } from './symmetry.ts';
import { actionTable, type Sink } from './transitions.ts';
import { strideOf, wordState, type WordState } from './words.ts';
import type { CheckOptions, CheckResult, Violation } from './types.ts';

/** How often, in new states, `onProgress` is called. */
const PROGRESS_MASK = 0xffff;
/** States expanded per batch: enough successors to overlap their misses, few enough to stay in cache. */
const BATCH_STATES = 8;

/** Explores every state reachable in `m` breadth-first and checks the invariants in each. */
export function check(m: Model, options: CheckOptions = {}): CheckResult {
  const symmetry = options.symmetry ?? true;
  const maxStates = options.maxStates ?? Number.POSITIVE_INFINITY;
  const keepGoing = options.continueAfterViolation ?? false;
  const onProgress = options.onProgress;
  const table = actionTable(m);
  if (table.actions.length > 256) throw new Error(`checker: ${table.actions.length} actions do not fit a one-byte action index`);
  const expanders = table.expanders;
  const actionCount = table.actions.length;
  const size = m.size;
  const canon = symmetry ? createCanonicalizer(m) : undefined;
  const seen = new FingerprintSet();
  const queue = new StateQueue(strideOf(size));
  const links = new ParentLinks();
  const monitor = new PropertyMonitor(m, options.invariants ?? DEFAULT_INVARIANTS);
  const batch = new SuccessorBatch(strideOf(size), BATCH_STATES * actionCount);
  // Buffers whose word views are known: the state expanded, its successor, the canonical form.
  const s = new ScratchState(size);
  const successor = s.successor;
  const successorWords = s.successorWords;
  const canonical = canon?.output;
  const canonicalWords = canon?.outputWords ?? successorWords;
  const fresh = wordState(size);
  const spare = wordState(size);

  batch.add(padded(canon === undefined ? initial(m) : canon.canonical(initial(m)), spare), -1, 0);
  seen.add(batch.hashes[0]!, batch.hashes[1]!);
  batch.copyTo(0, fresh.words);
  queue.push(fresh.words);
  let stop = monitor.visit(fresh.bytes, 0, 0) && !keepGoing;
  // Where the expanders put each successor: canonical form, words, fingerprint, into the batch.
  let parent = 0;
  const sink: Sink = (t, a) => {
    const c = canon === undefined ? t : canon.canonical(t);
    batch.add(c === successor ? successorWords : c === canonical ? canonicalWords : padded(c, spare), parent, a);
  };
  let incomplete = false;
  let depth = 0;
  let deepest = 0;
  let levelEnd = 1;
  let i = 0;
  while (i < queue.length && !stop) {
    // Crossing into the next level: everything queued so far is one level deeper.
    if (i === levelEnd) {
      depth++;
      levelEnd = queue.length;
    }
    // Generate the successors of a few states of this level.
    batch.count = 0;
    const batchEnd = Math.min(i + BATCH_STATES, levelEnd);
    for (; i < batchEnd; i++) {
      queue.take(i, s.words);
      parent = i;
      for (let k = 0; k < expanders.length; k++) expanders[k]!(s, sink); // enabled actions only reach the sink
    }
    seen.touch(batch.hashes, batch.count);
    // Store the new ones, in the order generated.
    for (let k = 0; k < batch.count; k++) {
      if (!seen.add(batch.hashes[2 * k]!, batch.hashes[2 * k + 1]!)) continue; // seen before
      if (queue.length >= maxStates) {
        incomplete = true;
        stop = true;
        break;
      }
      const j = queue.length;
      batch.copyTo(k, fresh.words);
      queue.push(fresh.words);
      links.set(j, batch.parents[k]!, batch.actions[k]!);
      deepest = depth + 1;
      if (monitor.visit(fresh.bytes, j, deepest) && !keepGoing) {
        stop = true;
        break;
      }
      if ((j & PROGRESS_MASK) === 0 && onProgress !== undefined) {
        onProgress({ states: queue.length, queue: queue.length - i, depth: deepest });
      }
    }
  }

  const violations: Violation[] = monitor.failures.map((f) => ({
    invariant: f.invariant.name,
    depth: f.depth,
    trace: replayPath(m, table, canon, links.pathTo(f.state)),
  }));
  return {
    verdict: violations.length > 0 ? 'violation' : incomplete ? 'incomplete' : 'holds',
    violations,
    distinctStates: queue.length,
    depth: deepest,
    witnesses: monitor.witnesses(),
    // The table as allocated; links and queue as used (their chunk slack is at most a chunk each).
    bytesPerState: (seen.byteLength + ParentLinks.BYTES * queue.length + queue.peakQueued * strideOf(size)) / queue.length,
    symmetry,
  };
}

/** The words of a state in a buffer the search does not know: copied into `spare`. */
function padded(state: Uint8Array, spare: WordState): Int32Array {
  spare.bytes.set(state);
  return spare.words;
}
