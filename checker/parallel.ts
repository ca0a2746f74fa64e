/**
 * Parallel breadth-first search: level by level, with one visited set shared by all
 * threads (`shared-table.ts`) and every state in shared memory where the thread that
 * found it wrote it (`arena.ts`). A level takes two steps with a barrier after each
 * (`level.ts`): expand (threads take blocks of the level from a shared counter, insert
 * every successor with its one-worker position as key, and append the possible firsts
 * to their own arenas, flagged where they may settle a property still open) and keep
 * (each thread takes the blocks it expanded, leaves out the successors that lost to a
 * smaller key, links the rest and evaluates the flagged ones in order; a model that
 * gives its successors fingerprint first is fingerprinted as `expansion-prints.ts` does, and
 * only its candidates are written). The main thread takes blocks as well (it is one of
 * the N threads: N - 1 workers are started), then orders the blocks and numbers them by
 * prefix sums, and applies the one-worker search's stopping rules
 * (`level-outcome.ts`): a few numbers per block, no state crosses it.
 *
 * The new states and their numbers are exactly those of the one-worker search in
 * `bfs.ts`, so the distinct-state count, the verdict, the shortest counterexample and its
 * trace are the same for every number of workers.
 *
 * Workers build the model themselves from a {@link ModelFactory}. A level smaller than
 * `parallelFrom` states is done by the main thread alone (same steps, same table), so a
 * small search starts no thread; workers are started ahead, while the main thread still
 * works, once a level reaches a sixteenth of that, and take part from the first level
 * after their 'ready' (the main thread lets the event loop run between its levels to see it).
 */
import { arenaChunkBytes, type Frontier } from './arena.ts';
import { cutLevel, frontierSegments, keptBefore, numberBlocks, orderBlocks } from './level-outcome.ts';
import { CLAIMS, NEXT_BLOCK, type ExpandReply, type ExpandRequest, type KeepRequest, type OpenProperties } from './level-protocol.ts';
import { LevelTask } from './level.ts';
import { invariantsToCheck, type Checkable, type ModelFactory, type ModelProperty } from './model.ts';
import { canonicalizerOf, checkActionLimit, DEFAULTS, endTestOf, settingsOf, STOP_GROUP } from './options.ts';
import { PropertyMonitor } from './monitor.ts';
import { localThread, WorkerHandle, type Thread } from './parallel-threads.ts';
import { ParallelLinks } from './parallel-links.ts';
import { replayPath } from './replay.ts';
import { CLAIMED, grownTable, insertFirst, rehashBounds, sharedTable, slotsOf } from './shared-table.ts';
import { DEADLOCK, type CheckOptions, type CheckResult, type Violation } from './types.ts';
import { wordState } from './words.ts';

/** How to search in parallel. */
export interface ParallelOptions extends CheckOptions {
  /** Threads: the main thread and `workers - 1` worker threads. */
  readonly workers: number;
  /**
   * Levels of fewer states are done by the main thread alone (starting a worker costs
   * a tenth to half a second from the sources under tsx, and a small level gains
   * little); default 20,000. Workers start once a level has a sixteenth of this (levels
   * grow about twice per step: they are ready about when the levels reach it, not a few
   * levels later with the main thread working alone meanwhile); while they start,
   * levels below four times this stay on the main thread rather than wait. 0: workers
   * from the start, and every level goes to them.
   */
  readonly parallelFrom?: number;
  /** Grow the table ahead of each level by the last level's growth (default); false: only when threads find it full, a path a test takes. */
  readonly growAhead?: boolean;
}

/** Workers start once a level has this fraction of `parallelFrom` states. */
const START_AHEAD = 16;
/** Grow the table before a level could fill it past this (by an estimate of what the level adds). */
const GROW_AT = 0.7;
/** Within a level, threads stop taking blocks past this load, and wait for the table to grow. */
const PAUSE_AT = 0.85;

/** States per block: about 16 blocks per thread, so that a thread with cheaper states takes more; a multiple of 32. */
function blockSize(count: number, threads: number): number {
  const cap = threads === 1 ? 256 : 2048;
  return Math.min(cap, Math.max(32, Math.ceil(count / (16 * threads) / 32) * 32));
}

/** A table with room for `needed` entries at load {@link GROW_AT}: `table` itself, or a larger copy rehashed by `team`, each thread a share. */
async function withRoom(table: Int32Array, needed: number, team: readonly Thread[]): Promise<Int32Array> {
  const old = slotsOf(table);
  let slots = old;
  while (needed > GROW_AT * slots) slots *= 2;
  if (slots === old) return table;
  const threads = team.length === 1 || old < 1 << 16 ? [team[0]!] : team;
  const bounds = rehashBounds(table, threads.length);
  const into = grownTable(table, slots);
  const last = threads.length - 1;
  // The last thread takes the short wrap-around range after its own.
  const wrap = (): Promise<unknown> => threads[last]!.rehash(table, into, bounds[last + 1]!, bounds[last + 2]!);
  await Promise.all(threads.map((t, k) => t.rehash(table, into, bounds[k]!, bounds[k + 1]!).then(() => (k === last ? wrap() : undefined))));
  return into;
}

/** Explores `model` breadth-first with `options.workers` threads that build their model from `factory`. */
export async function checkParallel<A>(model: Checkable<A>, factory: ModelFactory, options: ParallelOptions): Promise<CheckResult<A>> {
  checkActionLimit(model);
  const settings = settingsOf(options);
  const { symmetry, deadlock, continueAfterViolation: keepGoing, maxStates } = settings;
  const parallelFrom = options.parallelFrom ?? DEFAULTS.parallelFrom;
  const canonicalize = canonicalizerOf(model, settings);
  const size = model.stateBytes;
  const actions = model.actions.length;
  const invariants = invariantsToCheck(model, options.invariants);
  const witnesses = model.properties.filter((p) => p.kind === 'sometimes');
  const taskOptions = { symmetry, deadlock, fingerprintFirst: settings.fingerprintFirst, invariants: invariants.map((p) => p.name) };
  const task = new LevelTask(model, taskOptions);
  const local = localThread(task);
  const workers: WorkerHandle[] = [];
  const monitor = new PropertyMonitor(invariants, witnesses);
  const deadlocks: { state: number; depth: number }[] = [];
  let table = sharedTable(1 << 12);
  let stop = false;
  let incomplete = false;
  // Per witness, whether the monitor has seen it hold (false) somewhere: what the threads still look for.
  const reached = witnesses.map(() => false);
  const falsified = witnesses.map(() => false);

  // The initial states, canonical and without repeats, are states 0 .. roots-1: level 0, in the main thread's even arena.
  const roots: Uint8Array[] = [];
  const rootWords: Int32Array[] = [];
  const word = wordState(size);
  const hash = new Int32Array(2);
  for (const init of model.initialStates()) {
    const c = canonicalize === undefined ? init : canonicalize(init);
    word.bytes.set(c.subarray(0, size));
    // The one-worker search's fingerprint: Zobrist's when the model gives its successors fingerprint first (level-hashed.ts).
    task.rootPrint(word.bytes, word.words, hash);
    if (insertFirst(table, hash[0]!, hash[1]!, 1, roots.length) !== CLAIMED) continue;
    stop = (monitor.visit(word.bytes, roots.length, 0) && !keepGoing) || stop;
    witnesses.forEach((w, k) => (w.holds(word.bytes) ? (reached[k] = true) : (falsified[k] = true)));
    roots.push(word.bytes.slice());
    rootWords.push(task.rootWords(word.bytes, word.words));
  }
  task.seed(rootWords);
  const links = new ParallelLinks(roots.length);
  let found = roots.length;
  let frontier: Frontier = { segments: Int32Array.of(0, 0, roots.length), chunks: [task.arenas[0].chunks] };
  let frontierCount = roots.length;
  let levelBase = 0;
  let stored = roots.length;
  let depth = 0;
  let deepest = 0;
  let peakArenas = 0;
  let branching = 2;
  let deadlockSeen = endTestOf(model, settings) === undefined;
  const control = new Int32Array(new SharedArrayBuffer(8));
  let losers = new Int32Array(new SharedArrayBuffer(4));
  const arenaChunks: number[][] = [[task.arenas[0].chunks.length, 0]];
  const startWorkers = (): void => {
    while (workers.length < options.workers - 1) workers.push(new WorkerHandle(workers.length + 1, { factory, options: taskOptions }));
  };

  try {
    while (frontierCount > 0 && !stop) {
      if (frontierCount * actions >= 2 ** 31) throw new Error(`checker: a level of ${frontierCount} states is too large for the parallel search's keys`);
      if (options.workers > 1 && frontierCount >= parallelFrom / START_AHEAD) startWorkers();
      // A worker's 'ready' is a message: the main thread, working alone, sees it only when it lets the event loop run.
      if (workers.some((w) => !w.isReady)) await new Promise<void>((resolve) => setImmediate(resolve));
      // Workers still starting leave the level to the main thread, unless it is much larger: then waiting for them pays.
      const parallel = options.workers > 1 && frontierCount >= parallelFrom && (frontierCount >= 4 * parallelFrom || workers.every((w) => w.isReady));
      if (parallel) for (const w of workers) await w.ready;
      // The main thread is one of the team, last: the workers have their requests before it starts its own share.
      const team: readonly Thread[] = parallel ? [...workers, local] : [local];
      const block = blockSize(frontierCount, team.length);
      const blocks = Math.ceil(frontierCount / block);
      const lossWords = Math.ceil((frontierCount * actions) / 32);
      // Written before any thread reads it: a page read first is mapped to the zero page, and its first write faults again and interrupts the other core (shared-table.ts).
      // At least doubled: levels grow a little at a time, and each new bitmap is memory committed and written over again.
      if (losers.length < lossWords) losers = new Int32Array(new SharedArrayBuffer(4 * Math.max(lossWords, 2 * losers.length))).fill(0);
      const margin = team.length * block * actions;
      if (options.growAhead ?? DEFAULTS.growAhead) table = await withRoom(table, found + Math.ceil(frontierCount * branching * 1.25) + margin, team);
      control[NEXT_BLOCK] = 0;
      control[CLAIMS] = 0;
      const level = depth + 1;
      const parity = level & 1;
      const open: OpenProperties = {
        invariants: maskOpen(invariants, monitor),
        held: maskOf(witnesses.map((w, k) => w.applies !== false && !reached[k])),
        failed: maskOf(witnesses.map((w, k) => w.applies !== false && !falsified[k])),
      };
      let expanded: ExpandReply[];
      for (let resume = false; ; resume = true) {
        const room = Math.floor(PAUSE_AT * slotsOf(table)) - found - margin;
        const request: ExpandRequest = { table, losers, control, frontier, count: frontierCount, block, tag: level + 1, parity, room, resume, open };
        expanded = await Promise.all(team.map((t) => t.expand(request)));
        if (Atomics.load(control, NEXT_BLOCK) >= blocks) break;
        // A thread stopped for the table to fill no further: grow it and go on where the threads left off.
        table = await withRoom(table, found + Atomics.load(control, CLAIMS) + 2 * margin, team);
      }
      const claims = Atomics.load(control, CLAIMS);
      found += claims;
      branching = Math.max(claims / frontierCount, 0.5);

      const chunks: SharedArrayBuffer[][] = [];
      team.forEach((t, k) => (chunks[t.id] = [...expanded[k]!.chunks]));
      for (let id = 0; id <= workers.length; id++) chunks[id] ??= [];
      const ordered = orderBlocks(team.map((t, k) => ({ thread: t.id, blocks: expanded[k]!.blocks })));
      const keepRequest: KeepRequest = { losers, levelBase, open };
      const kept = await Promise.all(team.map((t) => t.keep(keepRequest)));
      team.forEach((t, k) => links.reader(t.id, kept[k]!.links));
      const merged = numberBlocks(ordered, team.map((t, k) => ({ thread: t.id, kept: kept[k]!.kept })));
      // Where each property first failed (or held) in the level, by the level's numbering.
      const firstAt = (f: number): number => {
        let best = Number.POSITIVE_INFINITY;
        for (const r of kept) {
          const b = r.firsts[2 * f]!;
          if (b >= 0) best = Math.min(best, merged.blocks[b]!.position + r.firsts[2 * f + 1]!);
        }
        return best;
      };
      const failAt = invariants.map((_, k) => firstAt(k));
      const firstDeadlock = expanded.reduce((d, e) => (e.deadlock >= 0 && (d < 0 || e.deadlock < d) ? e.deadlock : d), -1);
      const deadlockAt =
        deadlockSeen || firstDeadlock < 0
          ? Number.POSITIVE_INFINITY
          : keptBefore(merged.blocks, STOP_GROUP * Math.floor(firstDeadlock / STOP_GROUP), levelBase, (thread, link) => links.reader(thread).parent(link));
      const cut = cutLevel(merged.total, deadlockAt, maxStates - stored, Math.min(...failAt), keepGoing);

      // The monitor learns what the one-worker search would have seen in the states it stores.
      const failures = failAt.flatMap((at, k) => (at < cut.stored ? [{ at, k }] : [])).sort((x, y) => x.at - y.at || x.k - y.k);
      for (const { at, k } of failures) monitor.failedAt(invariants[k]!.name, stored + at, level);
      witnesses.forEach((w, k) => {
        const held = firstAt(invariants.length + 2 * k);
        const failed = firstAt(invariants.length + 2 * k + 1);
        if (held < cut.stored) {
          monitor.observed(w.name, true, stored + held);
          reached[k] = true;
        }
        if (failed < cut.stored) {
          monitor.observed(w.name, false, stored + failed);
          falsified[k] = true;
        }
      });
      if (cut.deadlock) {
        deadlocks.push({ state: levelBase + firstDeadlock, depth });
        deadlockSeen = true;
      }
      incomplete = cut.incomplete;
      stop = cut.stop;
      for (const b of merged.blocks) if (b.kept > 0) links.add(stored + b.position, b.keeper, b.firstLink);
      stored += cut.stored;
      if (cut.stored > 0) deepest = level;
      options.onProgress?.({ states: stored, queue: cut.stored, depth: deepest });

      team.forEach((t, k) => {
        (arenaChunks[t.id] ??= [0, 0])[parity] = expanded[k]!.chunks.length;
      });
      peakArenas = Math.max(peakArenas, arenaChunks.reduce((n, c) => n + (c[0] ?? 0) + (c[1] ?? 0), 0));
      frontier = { segments: frontierSegments(merged.blocks, kept), chunks };
      levelBase += frontierCount;
      frontierCount = merged.total;
      depth = level;
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }

  const canonical = canonicalize !== undefined;
  const traceTo = (state: number): Violation<A>['trace'] => {
    const { root, path } = links.pathFrom(state);
    return replayPath(model, canonical, roots[root]!, path);
  };
  const violations: Violation<A>[] = [
    ...monitor.failures.map((f) => ({ invariant: f.invariant, depth: f.depth, trace: traceTo(f.state) })),
    ...deadlocks.map((d) => ({ invariant: DEADLOCK, depth: d.depth, trace: traceTo(d.state) })),
  ];
  return {
    verdict: violations.length > 0 ? 'violation' : incomplete ? 'incomplete' : 'holds',
    violations,
    distinctStates: stored,
    depth: deepest,
    witnesses: monitor.witnesses(),
    bytesPerState: (table.byteLength + ParallelLinks.BYTES * stored + peakArenas * arenaChunkBytes(task.stride)) / stored,
    symmetry,
  };
}

/** Bit `k` set where `bits[k]`. */
function maskOf(bits: readonly boolean[]): number {
  return bits.reduce((m, b, k) => (b ? m | (1 << k) : m), 0);
}

/** Bit `k` set where property `k` is still open in the monitor. */
function maskOpen(properties: readonly ModelProperty[], monitor: PropertyMonitor): number {
  let bits = 0;
  for (let k = 0; k < properties.length; k++) if (monitor.isOpen(properties[k]!.name)) bits |= 1 << k;
  return bits;
}
