/**
 * Breadth-first search over any {@link Checkable} model: the one single-thread loop,
 * with its strategy for successors as an option (`expansion.ts`: states first, or
 * fingerprints first where the model offers them and no canonicaliser is in effect).
 * States are stored once, in the order found, so the queue is an index and the first
 * violating state found is at the least depth: its path of parent links is a shortest
 * counterexample. The visited set holds only 64-bit fingerprints; a path is kept as
 * action numbers and rebuilt by replay.
 *
 * States are expanded a few at a time: their successors are generated and fingerprinted
 * into a batch, the batch's table slots are touched together, then the successors are
 * probed in the order generated. The numbering, and so every count and trace, is the
 * same as expanding one state at a time; only the memory misses overlap. A search that
 * stops at a violation or at `maxStates` stops where that one would; at a deadlock, see
 * `STOP_GROUP` (`options.ts`).
 *
 * Deadlock: a state that produces no successor at all and is not a legitimate end of the
 * model is reported as `Deadlock` when it is expanded. Expansion is in breadth-first
 * order, so the first one found is at the least depth among deadlocks.
 */
import { stateExpansion, type Expansion } from './expansion.ts';
import { printExpansion } from './expansion-prints.ts';
import { FingerprintSet } from './fingerprints.ts';
import { invariantsToCheck, type Checkable, type Reducer } from './model.ts';
import { openProperties, reducedResult, reductionIn, replanPlain, type SearchPlan } from './reduction.ts';
import { PropertyMonitor } from './monitor.ts';
import { batchStates, canonicalizerOf, checkActionLimit, endTestOf, fingerprintFirstOf, PROGRESS_MASK, settingsOf, STOP_GROUP, type Settings } from './options.ts';
import { ParentLinks, StateQueue } from './store.ts';
import { searchResult } from './search-result.ts';
import { DEADLOCK, type CheckOptions, type CheckResult } from './types.ts';

/**
 * Explores every state reachable in `model` breadth-first and checks its invariants (and
 * deadlock) in each; with `por`, only an ample subset of each state's successors, and a
 * violation's shortest trace is found again without it (`reduction.ts`).
 */
export function check<A>(model: Checkable<A>, options: CheckOptions = {}): CheckResult<A> {
  const reduction = reductionIn(model, settingsOf(options));
  const first = search(model, options, { reduction });
  if (reduction === undefined) return first;
  const keepGoing = settingsOf(options).continueAfterViolation;
  const plain = first.violations.length === 0 ? undefined : search(model, options, replanPlain(first, keepGoing));
  return reducedResult(first, plain, keepGoing);
}

/** One breadth-first search of `model`, as `plan` says: with a reduction or without, and when to stop early (the parallel search re-finds traces with it too). */
export function search<A>(model: Checkable<A>, options: CheckOptions, plan: SearchPlan): CheckResult<A> {
  checkActionLimit(model);
  const settings = settingsOf(options);
  const canonicalize = canonicalizerOf(model, settings);
  const hashed = fingerprintFirstOf(model, settings);
  const perBatch = batchStates(model);
  const expansion = hashed === undefined ? stateExpansion(model, canonicalize, perBatch) : printExpansion(model, hashed, perBatch);
  const search = new Search(model, options, settings, expansion, perBatch, plan);
  try {
    search.seed();
    search.run();
    return resultOf(model, search, canonicalize !== undefined, settings.symmetry);
  } finally {
    search.queue.close();
    search.links.close();
  }
}

/** The finished search's result; its traces read the parent links, which may be on disk, so it comes before they are closed. */
function resultOf<A>(model: Checkable<A>, search: Search<A>, canonical: boolean, symmetry: boolean): CheckResult<A> {
  const spilled = search.queue.spilledBytes + search.links.spilledBytes;
  const result = searchResult({
    model,
    canonical,
    roots: search.roots,
    links: search.links,
    monitor: search.monitor,
    deadlocks: search.deadlocks,
    incomplete: search.incomplete,
    distinctStates: search.queue.length,
    depth: search.deepest,
    bytesPerState: bytesPerState(search, spilled > 0),
    symmetry,
  });
  return spilled > 0 ? { ...result, spilledBytes: spilled } : result;
}

/**
 * The memory the search's stores held, per state: the table as allocated; in memory, the
 * links and the queue as used (their chunk slack is at most a chunk each); spilled, the
 * chunks they held at most (the rest was on disk).
 */
function bytesPerState<A>(search: Search<A>, spilled: boolean): number {
  const { seen, queue, links } = search;
  const stores = spilled ? queue.peakBytes + links.memoryBytes : ParentLinks.BYTES * queue.length + queue.peakQueued * search.stride;
  return (seen.byteLength + stores) / queue.length;
}

/** One search's stores and progress. */
class Search<A> {
  readonly seen = new FingerprintSet();
  readonly queue: StateQueue;
  readonly links: ParentLinks;
  /** Bytes of a queued state. */
  readonly stride: number;
  readonly monitor: PropertyMonitor;
  readonly deadlocks: { state: number; depth: number }[] = [];
  /** The initial states as stored, by root number. */
  readonly roots: Uint8Array[] = [];
  incomplete = false;
  deepest = 0;
  private stop = false;
  private depth = 0;
  private levelStart = 0;
  private levelEnd = 0;
  /** The legitimate-end test while no deadlock is found yet (the first is the shortest), else undefined. */
  private isEnd: ((s: Uint8Array) => boolean) | undefined;
  private readonly keepGoing: boolean;
  private readonly maxStates: number;
  private readonly onProgress: CheckOptions['onProgress'];
  /** The reducer of the level being expanded (the properties still open at its start), or undefined without reduction. */
  private reducer: Reducer | undefined;
  /** A reducer's ample set, as offsets into a parent's successors. */
  private readonly keep: Int32Array;
  /** Going on after violations: stop once these are all found. */
  private readonly until: readonly string[] | undefined;

  constructor(
    private readonly model: Checkable<A>,
    options: CheckOptions,
    settings: Settings,
    private readonly expansion: Expansion,
    private readonly perBatch: number,
    private readonly plan: SearchPlan,
  ) {
    this.queue = new StateQueue(expansion.stride, settings.spill);
    this.links = new ParentLinks(settings.spill);
    this.stride = expansion.stride;
    this.monitor = new PropertyMonitor(invariantsToCheck(model, options.invariants), model.properties.filter((p) => p.kind === 'sometimes'), model.fast?.conjunction);
    this.isEnd = endTestOf(model, settings);
    this.keepGoing = settings.continueAfterViolation;
    this.maxStates = settings.maxStates;
    this.onProgress = options.onProgress;
    this.keep = new Int32Array(Math.max(model.actions.length, 1));
    this.until = plan.until;
  }

  /** A new level begins: the reducer keeps the properties open now (at a level's start, so that every number of threads reduces alike). */
  private reduceFor(): void {
    const reduction = this.plan.reduction;
    this.reducer = reduction?.reducer(openProperties(this.model, (name) => this.monitor.isOpen(name)));
  }

  /** Going on after violations with `until`: whether every one named is found. */
  private allFound(): boolean {
    const until = this.until;
    if (until === undefined) return false;
    return until.every((name) => (name === DEADLOCK ? this.deadlocks.length > 0 : this.monitor.failures.some((f) => f.invariant === name)));
  }

  /** The initial states, canonical and without repeats, are states 0 .. roots-1. */
  seed(): void {
    const { expansion, queue } = this;
    for (const init of this.model.initialStates()) {
      const root = expansion.root(init);
      if (!this.seen.add(expansion.rootKey[0]!, expansion.rootKey[1]!)) continue;
      queue.push(root.words);
      this.roots.push(root.bytes.slice());
      this.stop = (this.monitor.visit(root.bytes, queue.length - 1, 0) && !this.keepGoing) || this.stop;
    }
    this.links.roots = queue.length;
    this.levelEnd = queue.length;
    this.reduceFor();
  }

  /** Expands batch after batch, level by level, until nothing is left or something stops the search. */
  run(): void {
    let i = 0;
    while (i < this.queue.length && !this.stop) {
      // Crossing into the next level: everything queued so far is one level deeper.
      if (i === this.levelEnd) {
        this.depth++;
        this.levelStart = i;
        this.levelEnd = this.queue.length;
        this.reduceFor();
      }
      i = this.batch(i);
    }
  }

  /** Expands the states of this level from `i`, a batch's worth, stores their new successors; returns the next state to expand. */
  private batch(i: number): number {
    const { expansion, levelStart, depth } = this;
    expansion.begin(i);
    const batchEnd = Math.min(i + this.perBatch, this.levelEnd);
    // A deadlock that stops the search, and the first parent whose successors it leaves unstored (STOP_GROUP).
    let stuck: { state: number; depth: number } | undefined;
    let cut = Number.POSITIVE_INFINITY;
    let count = 0;
    for (let j = 0; i < batchEnd; i++, j++) {
      const before = count;
      count = expansion.expand(this.queue, i, j);
      // With the reduction, only an ample set of the successors (never none of them: a deadlock stays one).
      if (this.reducer !== undefined && count - before > 1) {
        const kept = this.reducer.ample(expansion.parentBytes(j), expansion.actions, before, count, this.keep);
        if (kept < count - before) count = expansion.retain(before, this.keep, kept);
      }
      // Nothing enabled, and not a legitimate end: a deadlock.
      if (count === before && this.isEnd !== undefined && !this.isEnd(expansion.parentBytes(j))) {
        this.isEnd = undefined; // the first is the shortest
        if (this.keepGoing) {
          this.deadlocks.push({ state: i, depth });
          if (this.allFound()) this.stop = true;
        } else {
          stuck = { state: i, depth };
          cut = levelStart + STOP_GROUP * Math.floor((i - levelStart) / STOP_GROUP);
          i++;
          break;
        }
      }
    }
    this.seen.touch(expansion.keys, count);
    this.store(count, cut, i);
    // The deadlock stops the search only if nothing stopped it before.
    if (stuck !== undefined && !this.stop) {
      this.deadlocks.push(stuck);
      this.stop = true;
    }
    return i;
  }

  /** Stores the batch's new successors, in the order generated, up to the first whose parent is `cut`; `next` is the next state to expand. */
  private store(count: number, cut: number, next: number): void {
    const { expansion, seen, queue, links, monitor, onProgress } = this;
    const keys = expansion.keys;
    const parents = expansion.parents;
    const actions = expansion.actions;
    const deepest = this.depth + 1;
    for (let k = 0; k < count && !this.stop; k++) {
      if (parents[k]! >= cut) break;
      if (!seen.add(keys[2 * k]!, keys[2 * k + 1]!)) continue; // seen before
      if (queue.length >= this.maxStates) {
        this.incomplete = true;
        this.stop = true;
        break;
      }
      const j = queue.length;
      queue.push(expansion.write(k));
      links.set(j, parents[k]!, actions[k]!);
      this.deepest = deepest;
      if (monitor.visit(expansion.bytesOf(k), j, deepest, expansion.quiet(k)) && (!this.keepGoing || this.allFound())) this.stop = true;
      if ((j & PROGRESS_MASK) === 0 && onProgress !== undefined) onProgress({ states: queue.length, queue: queue.length - next, depth: deepest });
    }
  }
}
