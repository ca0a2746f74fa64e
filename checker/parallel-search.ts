/**
 * The parallel search's set-up (`parallel.ts` runs it): the settings, the main thread's
 * task, the visited set and the initial states as level 0. What it builds is the state
 * the search carries from level to level, which `parallel-expand.ts` and
 * `parallel-settle.ts` update.
 */
import type { Frontier } from './arena.ts';
import { LevelTask, type LevelOptions } from './level.ts';
import { invariantsToCheck, type Checkable, type ModelFactory, type ModelProperty } from './model.ts';
import { canonicalizerOf, checkActionLimit, DEFAULTS, endTestOf, settingsOf, type Settings } from './options.ts';
import { PropertyMonitor } from './monitor.ts';
import type { ParallelOptions } from './parallel-options.ts';
import { localThread, type Thread, type WorkerHandle } from './parallel-threads.ts';
import { ParallelLinks } from './parallel-links.ts';
import { CLAIMED, insertFirst, sharedTable } from './shared-table.ts';
import { wordState } from './words.ts';

/** The parallel search between two levels: what the set-up made, and what each level updates. */
export interface ParallelSearch<A> {
  readonly model: Checkable<A>;
  readonly factory: ModelFactory;
  readonly options: ParallelOptions;
  readonly settings: Settings;
  readonly parallelFrom: number;
  readonly canonicalize: ((s: Uint8Array) => Uint8Array) | undefined;
  /** The model's action count: a successor's key is its parent's index times this plus its action. */
  readonly actions: number;
  readonly invariants: readonly ModelProperty[];
  readonly witnesses: readonly ModelProperty[];
  /** What every thread's {@link LevelTask} is built with. */
  readonly taskOptions: LevelOptions;
  /** The main thread's task. */
  readonly task: LevelTask<A>;
  /** The main thread, as one of the team. */
  readonly local: Thread;
  /** The worker threads started so far. */
  readonly workers: WorkerHandle[];
  readonly monitor: PropertyMonitor;
  readonly deadlocks: { state: number; depth: number }[];
  /** Per witness, whether the monitor has seen it hold somewhere: what the threads still look for. */
  readonly reached: boolean[];
  /** Per witness, whether the monitor has seen it false somewhere. */
  readonly falsified: boolean[];
  /** The initial states, canonical and without repeats: states 0 .. roots-1. */
  readonly roots: Uint8Array[];
  readonly links: ParallelLinks;
  /** `NEXT_BLOCK` and `CLAIMS` (level-protocol.ts). */
  readonly control: Int32Array;
  /** Per thread, the chunk counts of its two arenas. */
  readonly arenaChunks: number[][];
  /** The visited set (replaced by a larger copy when it grows). */
  table: Int32Array;
  /** One bit per key of the level: set when that successor lost to a smaller key. */
  losers: Int32Array;
  stop: boolean;
  incomplete: boolean;
  /** Entries claimed in the table: every state stored, and the candidates of the level. */
  found: number;
  frontier: Frontier;
  frontierCount: number;
  /** The number in the search of the frontier's first state. */
  levelBase: number;
  stored: number;
  depth: number;
  deepest: number;
  peakArenas: number;
  /** Claims per frontier state in the last level: the estimate of what the next one adds. */
  branching: number;
  deadlockSeen: boolean;
}

/** The search of `model` before its first level: level 0 is its initial states, in the main thread's even arena. */
export function startSearch<A>(model: Checkable<A>, factory: ModelFactory, options: ParallelOptions): ParallelSearch<A> {
  checkActionLimit(model);
  const settings = settingsOf(options);
  const canonicalize = canonicalizerOf(model, settings);
  const invariants = invariantsToCheck(model, options.invariants);
  const witnesses = model.properties.filter((p) => p.kind === 'sometimes');
  const taskOptions = { symmetry: settings.symmetry, deadlock: settings.deadlock, fingerprintFirst: settings.fingerprintFirst, por: settings.por, invariants: invariants.map((p) => p.name) };
  const task = new LevelTask(model, taskOptions);
  const monitor = new PropertyMonitor(invariants, witnesses);
  const table = sharedTable(1 << 12);
  const { roots, stop, reached, falsified } = seedRoots(model, { task, table, canonicalize, monitor, witnesses, keepGoing: settings.continueAfterViolation });
  return {
    model,
    factory,
    options,
    settings,
    canonicalize,
    invariants,
    witnesses,
    taskOptions,
    task,
    monitor,
    reached,
    falsified,
    roots,
    table,
    stop,
    parallelFrom: options.parallelFrom ?? DEFAULTS.parallelFrom,
    actions: model.actions.length,
    local: localThread(task),
    workers: [],
    deadlocks: [],
    links: new ParallelLinks(roots.length),
    control: new Int32Array(new SharedArrayBuffer(8)),
    arenaChunks: [[task.arenas[0].chunks.length, 0]],
    losers: new Int32Array(new SharedArrayBuffer(4)),
    incomplete: false,
    found: roots.length,
    frontier: { segments: Int32Array.of(0, 0, roots.length), chunks: [task.arenas[0].chunks] },
    frontierCount: roots.length,
    levelBase: 0,
    stored: roots.length,
    depth: 0,
    deepest: 0,
    peakArenas: 0,
    branching: 2,
    deadlockSeen: endTestOf(model, settings) === undefined,
  };
}

/** What the initial states are read with and into. */
interface Seeding<A> {
  readonly task: LevelTask<A>;
  readonly table: Int32Array;
  readonly canonicalize: ((s: Uint8Array) => Uint8Array) | undefined;
  readonly monitor: PropertyMonitor;
  readonly witnesses: readonly ModelProperty[];
  readonly keepGoing: boolean;
}

/** Level 0: the initial states, canonical and without repeats, in the table, the monitor and `task`'s even arena. */
function seedRoots<A>(model: Checkable<A>, { task, table, canonicalize, monitor, witnesses, keepGoing }: Seeding<A>): Pick<ParallelSearch<A>, 'roots' | 'stop' | 'reached' | 'falsified'> {
  let stop = false;
  // Per witness, whether the monitor has seen it hold (false) somewhere: what the threads still look for.
  const reached = witnesses.map(() => false);
  const falsified = witnesses.map(() => false);
  const size = model.stateBytes;
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
  return { roots, stop, reached, falsified };
}
