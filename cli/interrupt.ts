/**
 * Ctrl-C for long commands. bin.ts listens for SIGINT before it loads anything else
 * ({@link listenForInterrupt}), so that an interrupt at any moment, module loading
 * included, ends the run with a partial summary: the command's name, what it had done
 * (the figures it reported last, or "before the search started"), the verdict
 * `incomplete` (the same object under `--json`), the terminal restored, exit 130.
 *
 * A signal handler runs only when the event loop is free, and a search is one synchronous
 * loop, so where a command runs matters ({@link LONG_COMMANDS}): a loop runs on a worker
 * thread (on-worker.ts) while the main thread stays free to hear SIGINT; `check` runs
 * first on the main thread, where a tiny search ends before a worker could have started,
 * and moves to a worker when it outgrows {@link MAIN_THREAD_STATES} ({@link Outgrown});
 * `prove` awaits z3, which solves on threads of its own, so the main thread hears SIGINT.
 *
 * A command opts in with two lines: `const work = beginWork('check', ['states', 'depth'])`
 * before its loop, and `work.report({ states, depth })` wherever it reports progress. What
 * must be shut down on an interrupt (a progress line, z3's threads) is registered with
 * {@link onInterrupt}.
 */
import { writeSync } from 'node:fs';
import { isMainThread, parentPort, type Worker } from 'node:worker_threads';

/** Where each long command runs: on a worker thread, on the main thread first (under a budget), or on the main thread (it awaits between steps). */
export const LONG_COMMANDS: Readonly<Record<string, 'worker' | 'main-first' | 'main'>> = {
  check: 'main-first',
  simulate: 'worker',
  matrix: 'worker',
  mbt: 'worker',
  incident: 'worker',
  'validate-log': 'worker',
  prove: 'main',
};

/** The commands that Ctrl-C stops with a partial summary. */
export const INTERRUPTIBLE: ReadonlySet<string> = new Set(Object.keys(LONG_COMMANDS));

/** Exit code of an interrupted run: 128 + SIGINT, as shells report it. */
export const EXIT_INTERRUPTED = 130;

/** Most figures a command can report. */
export const MAX_FIGURES = 8;

/**
 * The states a search may store on the main thread, where Ctrl-C is heard only once it
 * stops, before it starts again on a worker: tens of milliseconds, less than a worker
 * takes to start (the minimal incident has 45 states, `--pages 5` a few thousand).
 */
export const MAIN_THREAD_STATES = 20_000;

/** Test hooks (never set by users): `1` prints markers on stderr when the handler listens, when a command begins its work and when it first reports; `hold` also waits at the first. */
const TEST_MARKERS = process.env['PAGECHECK_TEST_MARKERS'];

/** Writes a test marker straight to fd 2: a worker's own stderr is flushed only when its loop is free, after the search. */
function testMarker(what: string): void {
  if (TEST_MARKERS !== undefined) writeSync(2, `[pagecheck-test] ${what}\n`);
}

/** The message a worker sends when a command begins its work. */
export interface BeginMessage {
  readonly kind: 'begin';
  readonly command: string;
  readonly names: readonly string[];
}

/** Shared figures: slot 0 the start time (ms since the epoch), slots 1.. the command's figures in the order named. */
let shared: Float64Array<ArrayBufferLike> = new Float64Array(MAX_FIGURES + 1);

/** Makes {@link beginWork} report into `buffer`, the memory the main thread reads on SIGINT (worker.ts calls it first). */
export function reportInto(buffer: SharedArrayBuffer): void {
  shared = new Float64Array(buffer);
}

/** What the main thread's SIGINT handler knows: the command, what it began, where its figures are, what to shut down. */
interface Listener {
  readonly command: string;
  readonly json: boolean;
  begin: BeginMessage | undefined;
  figures: Float64Array<ArrayBufferLike>;
  worker: Worker | undefined;
  readonly cleanups: Set<() => unknown>;
}

let listener: Listener | undefined;

/** The SIGINT handler while {@link listener} is set. */
let onSigint: (() => void) | undefined;

/** Whether the main-thread part of a `main-first` command runs. */
let budgeted = false;

/** Thrown when a search on the main thread outgrows {@link MAIN_THREAD_STATES}: the command starts again on a worker. */
export class Outgrown extends Error {
  override readonly name = 'Outgrown';
}

/** The long command `argv` names, if it names one and does not ask for help. */
export function longCommand(argv: readonly string[]): string | undefined {
  const first = argv.find((a) => !a.startsWith('-'));
  if (first === undefined || !(first in LONG_COMMANDS) || argv.includes('--help') || argv.includes('-h')) return undefined;
  return first;
}

/** Listens for SIGINT from the first moment of a long command's run (bin.ts calls it before loading the rest); a no-op for other commands. */
export function listenForInterrupt(argv: readonly string[]): void {
  const command = longCommand(argv);
  if (command === undefined || !isMainThread || listener !== undefined) return;
  listener = { command, json: argv.includes('--json'), begin: undefined, figures: shared, worker: undefined, cleanups: new Set() };
  const l = listener;
  onSigint = () => void interrupted(l);
  process.once('SIGINT', onSigint);
  testMarker(`listening ${command}`);
}

/** Under `PAGECHECK_TEST_MARKERS=hold` (tests only), never resolves: the run waits, listening, before it loads the command, so that a test can interrupt it there. */
export function holdForTest(): Promise<void> {
  if (TEST_MARKERS !== 'hold' || listener === undefined) return Promise.resolve();
  return new Promise(() => setInterval(() => {}, 60_000));
}

/** Stops listening: the command finished, so a Ctrl-C from now on is too late to stop anything. */
export function stopListening(): void {
  if (listener === undefined) return;
  if (onSigint !== undefined) process.off('SIGINT', onSigint);
  listener = undefined;
  onSigint = undefined;
}

/** Runs `fn` on an interrupt (to stop a progress line, z3's threads); returns the function that unregisters it. */
export function onInterrupt(fn: () => unknown): () => void {
  const l = listener;
  if (l === undefined) return () => {};
  l.cleanups.add(fn);
  return () => void l.cleanups.delete(fn);
}

/** Runs (and forgets) what was registered with {@link onInterrupt}: the main-thread part of a command ended early. */
export async function runCleanups(): Promise<void> {
  const l = listener;
  if (l === undefined) return;
  const fns = [...l.cleanups];
  l.cleanups.clear();
  // z3's threads end within milliseconds; a bound keeps a stuck one from holding the summary back.
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise((resolve) => (timer = setTimeout(resolve, 2_000)));
  await Promise.race([Promise.allSettled(fns.map(async (fn) => fn())), bound]);
  clearTimeout(timer);
}

/** Whether the SIGINT handler has begun: the run ends with exit 130, whatever the command does meanwhile. */
let interrupting = false;

/** Whether a Ctrl-C is being handled (the worker's exit then is the handler's doing, not the command's end). */
export function isInterrupting(): boolean {
  return interrupting;
}

/** The worker that runs the command now (on-worker.ts): the handler stops it and reads the figures it shares. */
export function attachWorker(worker: Worker, figures: Float64Array<ArrayBufferLike>): void {
  if (listener === undefined) return;
  listener.worker = worker;
  workerFigures = figures;
}

/** The figures of the worker that runs the command, read once it says it began (until then, the main thread's part is what was done). */
let workerFigures: Float64Array<ArrayBufferLike> | undefined;

/** What a worker said when its command began. */
export function workerBegan(message: BeginMessage): void {
  if (listener === undefined || workerFigures === undefined) return;
  listener.begin = message;
  listener.figures = workerFigures;
}

/** Runs `fn`, the main-thread part of a `main-first` command: a search in it stores at most {@link MAIN_THREAD_STATES} states, then throws {@link Outgrown}. */
export async function underBudget<T>(fn: () => Promise<T>): Promise<T> {
  budgeted = true;
  try {
    return await fn();
  } finally {
    budgeted = false;
  }
}

/** The states a search may store here before it moves to a worker, while under the main thread's budget (it runs on this thread alone then); undefined otherwise. */
export function mainThreadStates(): number | undefined {
  return budgeted ? MAIN_THREAD_STATES : undefined;
}

/**
 * A search run under the budget as it is, unless it stopped at the budget (not at the
 * user's own `maxStates`): then {@link Outgrown}, after reporting how far it got, which is
 * what a Ctrl-C while the worker starts prints.
 */
export function keptOnMainThread<R extends { readonly distinctStates: number; readonly depth: number }>(result: R, userMaxStates: number | undefined, work: Work<'states' | 'depth'>): R {
  const budget = mainThreadStates();
  if (budget === undefined || result.distinctStates < budget || (userMaxStates !== undefined && userMaxStates <= budget)) return result;
  work.report({ states: result.distinctStates, depth: result.depth });
  throw new Outgrown(`the search outgrew the main thread's budget of ${budget} states`);
}

/** A long command's handle for reporting how far it got. */
export interface Work<Name extends string> {
  /** Records the current figures (cheap: a few stores into shared memory). */
  report(figures: Readonly<Record<Name, number>>): void;
  /** Milliseconds since {@link beginWork}. */
  elapsedMs(): number;
}

/** Starts reporting for `command`, whose figures are `names` (e.g. `states`, `depth`); works on any thread. */
export function beginWork<Name extends string>(command: string, names: readonly Name[]): Work<Name> {
  if (names.length > MAX_FIGURES) throw new Error(`beginWork: at most ${MAX_FIGURES} figures, got ${names.length}`);
  const started = Date.now();
  const slots = shared;
  slots.fill(0);
  slots[0] = started;
  const message: BeginMessage = { kind: 'begin', command, names };
  if (parentPort !== null) parentPort.postMessage(message);
  else if (listener !== undefined) {
    listener.begin = message;
    listener.figures = slots;
  }
  testMarker(`began ${command}`);
  let first = TEST_MARKERS !== undefined;
  return {
    report(figures) {
      for (let i = 0; i < names.length; i++) slots[i + 1] = figures[names[i]!];
      if (first) {
        first = false;
        testMarker(`reported ${command}`);
      }
    },
    elapsedMs: () => Date.now() - started,
  };
}

/** The partial summary of an interrupted run: the object printed under `--json`. */
export interface InterruptedSummary {
  readonly command: string;
  readonly verdict: 'incomplete';
  readonly interrupted: true;
  readonly elapsedMs: number;
  /** False when the interrupt came before the command began its work (no figures then). */
  readonly started: boolean;
  readonly [figure: string]: string | number | boolean;
}

/** The summary of `command` from the shared figures (none before it began), `now` being the time of the interrupt and `since` the process's start. */
export function summarize(command: string, begin: BeginMessage | undefined, figures: Float64Array<ArrayBufferLike>, now: number, since: number): InterruptedSummary {
  const began = figures[0] ?? 0;
  const started = begin !== undefined && began > 0;
  const summary: Record<string, string | number | boolean> = { command, verdict: 'incomplete', interrupted: true, elapsedMs: Math.max(0, now - (started ? began : since)), started };
  if (started) begin.names.forEach((name, i) => (summary[name] = figures[i + 1] ?? 0));
  return summary as InterruptedSummary;
}

/** The summary in words: a headline naming the command, then one figure a line, as `check` prints its own. */
export function formatSummary(s: InterruptedSummary): string {
  const before = s.started ? '' : ', before the search started';
  const lines = [`pagecheck ${s.command}: interrupted (Ctrl-C) after ${(s.elapsedMs / 1000).toFixed(1)} s${before}`, `${'verdict'.padEnd(16)} incomplete`];
  for (const [name, value] of Object.entries(s)) {
    if (['command', 'verdict', 'interrupted', 'elapsedMs', 'started'].includes(name)) continue;
    lines.push(`${name.padEnd(16)} ${typeof value === 'number' ? Math.round(value).toLocaleString('en-US') : String(value)}`);
  }
  return lines.join('\n');
}

/** Escape codes that undo what a progress line did: back to column 0, clear the line, show the cursor, wrap lines again. */
export const RESTORE_TERMINAL = '\r\u001b[2K\u001b[?25h\u001b[?7h';

/** The SIGINT handler: reads the figures, stops the worker and what was registered, restores the terminal, prints the summary, exits 130. */
async function interrupted(l: Listener): Promise<void> {
  interrupting = true;
  process.exitCode = EXIT_INTERRUPTED;
  // A second Ctrl-C while the summary is written ends the process at once.
  process.once('SIGINT', () => process.exit(EXIT_INTERRUPTED));
  const summary = summarize(l.command, l.begin, l.figures, Date.now(), performance.timeOrigin);
  await l.worker?.terminate();
  await runCleanups();
  if (process.stderr.isTTY) process.stderr.write(RESTORE_TERMINAL);
  process.stdout.write(`${l.json ? JSON.stringify(summary, null, 2) : formatSummary(summary)}\n`);
  // Writes to files, pipes and terminals are synchronous on POSIX: nothing printed is lost by exiting now.
  process.exit(EXIT_INTERRUPTED);
}
