/**
 * Runs a long command on a worker thread (worker.ts), so that the main thread stays free
 * to hear SIGINT while the command's synchronous loop runs (interrupt.ts says why). The
 * worker reports its figures into memory shared with the main thread.
 */
import { Worker } from 'node:worker_threads';
import { attachWorker, isInterrupting, MAX_FIGURES, stopListening, workerBegan, type BeginMessage } from './interrupt.ts';

/** What the worker (worker.ts) is handed: the arguments, where to report, and whether the main thread's streams are terminals. */
export interface WorkerInput {
  readonly pagecheckArgv: readonly string[];
  readonly figures: SharedArrayBuffer;
  readonly stdoutTTY: boolean;
  readonly stderrTTY: boolean;
  readonly columns: number | undefined;
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

/** Runs `pagecheck argv` on a worker thread and resolves with its exit code; SIGINT is handled by interrupt.ts, which stops the worker. */
export function runOnWorker(argv: readonly string[]): Promise<number> {
  const figures = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * (MAX_FIGURES + 1));
  const input: WorkerInput = {
    pagecheckArgv: argv,
    figures,
    stdoutTTY: process.stdout.isTTY === true,
    stderrTTY: process.stderr.isTTY === true,
    columns: process.stderr.columns,
  };
  const worker = startWorker(input);
  attachWorker(worker, new Float64Array(figures));
  return new Promise((resolve, reject) => {
    worker.on('message', (m: BeginMessage) => {
      if (m.kind === 'begin') workerBegan(m);
    });
    worker.on('error', (e) => {
      stopListening();
      reject(e);
    });
    worker.on('exit', (code) => {
      // An interrupt terminates the worker too; the handler prints the summary and exits 130 itself.
      if (!isInterrupting()) resolve(code);
    });
  });
}
