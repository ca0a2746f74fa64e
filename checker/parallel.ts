/**
 * Parallel breadth-first search: level by level, each level's states split into
 * contiguous shares, one per worker thread, with one visited set shared by all (see
 * `shared-table.ts`). A level takes three steps with a barrier after each: expand (every
 * worker generates its share's successors), insert (every fingerprint goes into the
 * shared table, keyed by its one-worker position), select (every worker keeps the
 * successors that are new by that key). Shares are concatenated in order, so the new
 * states and their numbers are exactly those of the one-worker search in `bfs.ts`; the
 * stopping rules (first violation, deadlock, `maxStates`) are then applied to the level
 * as that search would have met them, batch by batch. Hence the same distinct-state
 * count, the same verdict, the same shortest counterexample and the same trace for
 * every number of workers.
 *
 * Workers build the model themselves from a {@link ModelFactory}. A level smaller than
 * `parallelFrom` states is done by the main thread alone (same steps, same table), so a
 * small search starts no thread.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { fingerprint } from './fingerprints.ts';
import { LevelTask, type Expanded } from './level.ts';
import { invariantsToCheck, type Checkable, type ModelFactory, type ModelProperty } from './model.ts';
import { PropertyMonitor } from './monitor.ts';
import type { WorkerRequest, WorkerSetup } from './parallel-worker.ts';
import { replayPath } from './replay.ts';
import { grownTable, insertShared, isNewAt, sharedTable, slotsOf } from './shared-table.ts';
import { ParentLinks } from './store.ts';
import { DEADLOCK, type CheckOptions, type CheckResult, type Violation } from './types.ts';
import { strideOf, wordState } from './words.ts';

/** How to search in parallel. */
export interface ParallelOptions extends CheckOptions {
  /** Worker threads. */
  readonly workers: number;
  /** Levels of fewer states are done by the main thread alone (starting a worker costs about a second); default 50,000. */
  readonly parallelFrom?: number;
}

/** The batch of the one-worker search (`bfs.ts`): its stopping rules are applied per batch of this many states. */
const BATCH_STATES = 8;
/** Grow the table before a level could fill it past this. */
const MAX_LOAD = 0.7;

/** A worker thread and its reply queue. */
class WorkerHandle {
  private readonly worker: Worker;
  private readonly waiting: { resolve: (value: unknown) => void; reject: (e: Error) => void }[] = [];
  readonly ready: Promise<unknown>;

  constructor(setup: WorkerSetup) {
    this.worker = startWorker(setup);
    this.worker.on('message', (m: unknown) => this.waiting.shift()?.resolve(m));
    // A worker that fails (its model cannot be built, say) fails the search with its error.
    this.worker.on('error', (e) => {
      for (const w of this.waiting.splice(0)) w.reject(e);
    });
    this.ready = this.reply();
  }

  /** Sends a request and resolves with the worker's reply. */
  ask<T>(request: WorkerRequest): Promise<T> {
    const answer = this.reply() as Promise<T>;
    this.worker.postMessage(request);
    return answer;
  }

  /** Stops the thread. */
  stop(): Promise<number> {
    return this.worker.terminate();
  }

  private reply(): Promise<unknown> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }
}

/** The URL of tsx's ESM registration API (the package's `import` export of `./esm/api`). */
/** Whether this is the TypeScript source run under tsx (then the worker needs tsx too), not the compiled package. */
const SOURCE = import.meta.url.endsWith('.ts');

/** Starts parallel-worker.js (the build) directly; from the sources, through tsx's loader, which a worker does not inherit. */
function startWorker(setup: WorkerSetup): Worker {
  const entry = new URL(`./parallel-worker.${SOURCE ? 'ts' : 'js'}`, import.meta.url);
  if (!SOURCE) return new Worker(entry, { workerData: setup });
  const boot = `import(${JSON.stringify(tsxEsmApi())}).then((t) => { t.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { eval: true, workerData: setup });
}

function tsxEsmApi(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const entry = pkg.exports['./esm/api']?.import.default;
  if (entry === undefined) throw new Error('checker: this tsx has no ./esm/api export; the parallel search needs it to start workers');
  return pathToFileURL(join(dirname(manifest), entry)).href;
}

/** Explores `model` breadth-first with `options.workers` threads that build their model from `factory`. */
export async function checkParallel<A>(model: Checkable<A>, factory: ModelFactory, options: ParallelOptions): Promise<CheckResult<A>> {
  const symmetry = options.symmetry ?? true;
  const deadlock = options.deadlock ?? true;
  const keepGoing = options.continueAfterViolation ?? false;
  const maxStates = options.maxStates ?? Number.POSITIVE_INFINITY;
  const parallelFrom = options.parallelFrom ?? 50_000;
  const size = model.stateBytes;
  const stride = strideOf(size);
  const invariants = invariantsToCheck(model, options.invariants);
  const witnesses = model.properties.filter((p) => p.kind === 'sometimes');
  const taskOptions = { symmetry, deadlock, invariants: invariants.map((p) => p.name) };
  const local = new LevelTask(model, taskOptions);
  const workers: WorkerHandle[] = [];
  // The monitor sees each state through the bits its share computed: the same rules as the one-worker search.
  let failing = 0;
  let holding = 0;
  const monitor = new PropertyMonitor(
    invariants.map((p, k): ModelProperty => ({ name: p.name, kind: 'always', holds: () => ((failing >>> k) & 1) === 0 })),
    witnesses.map((p, k): ModelProperty => ({ ...p, holds: () => ((holding >>> k) & 1) === 1 })),
  );
  const links = new ParentLinks();
  const deadlocks: { state: number; depth: number }[] = [];
  let table = sharedTable(1 << 12);
  let found = 0;
  let stop = false;
  let incomplete = false;

  // The initial states, canonical and without repeats, are states 0 .. roots-1.
  const roots: Uint8Array[] = [];
  const word = wordState(size);
  const hash = new Int32Array(2);
  for (const init of model.initialStates()) {
    const c = symmetry && model.canonicalize !== undefined ? model.canonicalize(init) : init;
    word.bytes.set(c.subarray(0, size));
    fingerprint(word.words, 0, stride >>> 2, hash, 0);
    const slot = insertShared(table, hash[0]!, hash[1]!, 0, roots.length);
    if (!isNewAt(table, slot, 0, roots.length)) continue;
    found++;
    const s = word.bytes.slice();
    failing = bitsOf(invariants, s, false);
    holding = bitsOf(witnesses, s, true);
    stop = (monitor.visit(s, roots.length, 0) && !keepGoing) || stop;
    roots.push(s);
  }
  links.roots = roots.length;
  let frontier = new Uint8Array(new SharedArrayBuffer(Math.max(1, roots.length * stride)));
  roots.forEach((s, i) => frontier.set(s, i * stride));
  let frontierCount = roots.length;
  let levelBase = 0;
  let stored = roots.length;
  let depth = 0;
  let deepest = 0;
  let peakFrontier = frontierCount;
  let deadlockSeen = !deadlock || model.isLegitimateEnd === undefined;

  try {
    while (frontierCount > 0 && !stop) {
      if (frontierCount * model.actionCount >= 2 ** 31) throw new Error(`checker: a level of ${frontierCount} states is too large for the parallel search's keys`);
      // Split the level into contiguous shares: one per worker, or the main thread's alone.
      const shares = frontierCount < parallelFrom ? 1 : options.workers;
      while (shares > 1 && workers.length < shares) {
        const w = new WorkerHandle({ factory, options: taskOptions });
        workers.push(w);
        await w.ready;
      }
      const bounds = Array.from({ length: shares + 1 }, (_, k) => Math.floor((k * frontierCount) / shares));
      const run = <T>(step: (task: LevelTask<A>) => T, request: WorkerRequest): Promise<T[]> =>
        shares === 1 ? Promise.resolve([step(local)]) : Promise.all(workers.slice(0, shares).map((w) => w.ask<T>(request)));
      const expanded = shares === 1 ? [local.expandRange(frontier, 0, frontierCount, table)] : await Promise.all(workers.slice(0, shares).map((w, k) => w.ask<Expanded>({ kind: 'expand', frontier, from: bounds[k]!, to: bounds[k + 1]!, table })));
      // Room for every successor to be new, so that no worker ever meets a full table.
      const incoming = expanded.reduce((n, e) => n + e.count, 0);
      let slots = slotsOf(table);
      while ((found + incoming) / slots > MAX_LOAD) slots *= 2;
      if (slots !== slotsOf(table)) table = grownTable(table, slots);
      const level = depth + 1;
      await run((t) => t.insertAll(table, level), { kind: 'insert', table, level });
      const openInvariants = maskOpen(invariants, monitor);
      const openWitnesses = maskOpen(witnesses, monitor);
      const selected = await run((t) => t.selectNew(table, level, openInvariants, openWitnesses), { kind: 'select', table, level, openInvariants, openWitnesses });
      found += selected.reduce((n, s) => n + s.parents.length, 0);

      // Apply the one-worker search's stopping rules to the level, batch by batch, in order.
      const firstDeadlock = expanded.map((e) => e.deadlock).find((d) => d >= 0) ?? -1;
      const meetDeadlock = (batch: number): void => {
        if (deadlockSeen || firstDeadlock < 0 || Math.floor(firstDeadlock / BATCH_STATES) > batch) return;
        deadlocks.push({ state: levelBase + firstDeadlock, depth });
        deadlockSeen = true;
        if (!keepGoing) stop = true;
      };
      // Per share, how many of its new states are stored before a stopping rule cuts the level.
      const kept: number[] = [];
      for (const share of selected) {
        let j = 0;
        for (; j < share.parents.length && !stop; j++) {
          meetDeadlock(Math.floor(share.parents[j]! / BATCH_STATES));
          if (stop) break;
          if (stored >= maxStates) {
            incomplete = true;
            stop = true;
            break;
          }
          const index = stored++;
          links.set(index, levelBase + share.parents[j]!, share.actions[j]!);
          failing = share.failing[j]!;
          holding = share.holding[j]!;
          deepest = level;
          // The monitor reads the state only through the bits above.
          if (monitor.visit(share.states, index, level) && !keepGoing) {
            stop = true;
            j++;
            break;
          }
        }
        kept.push(j);
      }
      if (!stop) meetDeadlock(Number.POSITIVE_INFINITY);
      const total = kept.reduce((a, b) => a + b, 0);
      options.onProgress?.({ states: stored, queue: total, depth: deepest });
      levelBase += frontierCount;
      frontier = new Uint8Array(new SharedArrayBuffer(Math.max(1, total * stride)));
      let at = 0;
      selected.forEach((share, k) => {
        frontier.set(share.states.subarray(0, kept[k]! * stride), at);
        at += kept[k]! * stride;
      });
      frontierCount = total;
      peakFrontier = Math.max(peakFrontier, frontierCount);
      depth = level;
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }

  const canonical = symmetry && model.canonicalize !== undefined;
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
    bytesPerState: (table.byteLength + ParentLinks.BYTES * stored + 2 * peakFrontier * stride) / stored,
    symmetry,
  };
}

/** Bit `k` set where property `k` holds (`when` true) or fails (`when` false) in `s`. */
function bitsOf(properties: readonly ModelProperty[], s: Uint8Array, when: boolean): number {
  let bits = 0;
  for (let k = 0; k < properties.length; k++) if (properties[k]!.holds(s) === when) bits |= 1 << k;
  return bits;
}

/** Bit `k` set where property `k` is still open in the monitor. */
function maskOpen(properties: readonly ModelProperty[], monitor: PropertyMonitor): number {
  let bits = 0;
  for (let k = 0; k < properties.length; k++) if (monitor.isOpen(properties[k]!.name)) bits |= 1 << k;
  return bits;
}
