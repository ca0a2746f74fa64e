/**
 * Ctrl-C for long commands. A search is one synchronous loop, and a signal handler runs
 * only when the event loop is free, so a long command runs on a worker thread while the
 * main thread stays free to hear SIGINT. The command reports its figures into memory
 * shared with the main thread ({@link beginWork}); on SIGINT the main thread stops the
 * worker, restores the terminal, prints those figures as a partial summary with the
 * verdict `incomplete` (the same object under `--json`) and exits 130.
 *
 * A command opts in with two lines: `const work = beginWork('check', ['states', 'depth'])`
 * before its loop, and `work.report({ states, depth })` wherever it reports progress.
 * Its name goes in {@link INTERRUPTIBLE} so that the command line runs it on a worker.
 */
import { parentPort, Worker } from 'node:worker_threads';

/** The commands that run on a worker thread, so that Ctrl-C stops them with a partial summary. */
export const INTERRUPTIBLE: ReadonlySet<string> = new Set(['check', 'simulate', 'mbt', 'incident', 'validate-log']);

/** Exit code of an interrupted run: 128 + SIGINT, as shells report it. */
export const EXIT_INTERRUPTED = 130;

/** Most figures a command can report. */
const MAX_FIGURES = 8;

/** What the worker (worker.ts) is handed: the arguments, where to report, and whether the main thread's streams are terminals. */
export interface WorkerInput {
  readonly pagecheckArgv: readonly string[];
  readonly figures: SharedArrayBuffer;
  readonly stdoutTTY: boolean;
  readonly stderrTTY: boolean;
  readonly columns: number | undefined;
}

/** The message a worker sends when a command begins its work. */
interface BeginMessage {
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
  shared.fill(0);
  shared[0] = started;
  const message: BeginMessage = { kind: 'begin', command, names };
  parentPort?.postMessage(message);
  const slots = shared;
  return {
    report(figures) {
      for (let i = 0; i < names.length; i++) slots[i + 1] = figures[names[i]!];
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
  readonly [figure: string]: string | number | boolean;
}

/** The summary from the shared figures, `now` being the time of the interrupt. */
export function summarize(begin: BeginMessage | undefined, figures: Float64Array<ArrayBufferLike>, now: number): InterruptedSummary {
  const started = figures[0] ?? 0;
  const summary: Record<string, string | number | boolean> = {
    command: begin?.command ?? 'pagecheck',
    verdict: 'incomplete',
    interrupted: true,
    elapsedMs: started > 0 ? now - started : 0,
  };
  begin?.names.forEach((name, i) => (summary[name] = figures[i + 1] ?? 0));
  return summary as InterruptedSummary;
}

/** The summary in words, one figure a line, as `check` prints its own. */
export function formatSummary(s: InterruptedSummary): string {
  const lines = [`pagecheck ${s.command}: interrupted (Ctrl-C) after ${(s.elapsedMs / 1000).toFixed(1)} s`, `${'verdict'.padEnd(16)} incomplete`];
  for (const [name, value] of Object.entries(s)) {
    if (['command', 'verdict', 'interrupted', 'elapsedMs'].includes(name)) continue;
    lines.push(`${name.padEnd(16)} ${typeof value === 'number' ? Math.round(value).toLocaleString('en-US') : String(value)}`);
  }
  return lines.join('\n');
}

/** Whether this is the TypeScript source run under tsx (then the worker needs tsx too), not the build. */
const SOURCE = import.meta.url.endsWith('.ts');

/** Starts worker.ts (worker.js in the build); from the sources, through tsx's loader, which a worker does not inherit. */
function startWorker(input: WorkerInput): Worker {
  const entry = new URL(`./worker.${SOURCE ? 'ts' : 'js'}`, import.meta.url);
  if (!SOURCE) return new Worker(entry, { workerData: input });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsx}).then((t) => { t.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true, workerData: input });
}

/** Escape codes that undo what a progress line did: back to column 0, clear the line, show the cursor, wrap lines again. */
export const RESTORE_TERMINAL = '\r\u001b[2K\u001b[?25h\u001b[?7h';

/**
 * Runs `pagecheck argv` on a worker thread and resolves with its exit code; on SIGINT stops
 * it, prints the partial summary and resolves with {@link EXIT_INTERRUPTED}.
 */
export function runInterruptible(argv: readonly string[]): Promise<number> {
  const figures = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * (MAX_FIGURES + 1));
  const input: WorkerInput = {
    pagecheckArgv: argv,
    figures,
    stdoutTTY: process.stdout.isTTY === true,
    stderrTTY: process.stderr.isTTY === true,
    columns: process.stderr.columns,
  };
  const worker = startWorker(input);
  let begin: BeginMessage | undefined;
  let interrupted = false;
  return new Promise((resolve, reject) => {
    const onSigint = (): void => {
      interrupted = true;
      process.off('SIGINT', onSigint);
      // A second Ctrl-C while the summary is written ends the process at once.
      process.once('SIGINT', () => process.exit(EXIT_INTERRUPTED));
      const summary = summarize(begin, new Float64Array(figures), Date.now());
      void worker.terminate().then(() => {
        if (process.stderr.isTTY) process.stderr.write(RESTORE_TERMINAL);
        const json = argv.includes('--json');
        process.stdout.write(`${json ? JSON.stringify(summary, null, 2) : formatSummary(summary)}\n`);
        resolve(EXIT_INTERRUPTED);
      });
    };
    process.on('SIGINT', onSigint);
    worker.on('message', (m: BeginMessage) => {
      if (m.kind === 'begin') begin = m;
    });
    worker.on('error', (e) => {
      process.off('SIGINT', onSigint);
      reject(e);
    });
    worker.on('exit', (code) => {
      process.off('SIGINT', onSigint);
      // Once interrupted, the exit code is 130, resolved after the summary is printed.
      if (!interrupted) resolve(code);
    });
  });
}
