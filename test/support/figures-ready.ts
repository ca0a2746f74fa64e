/**
 * Loaded into a pagecheck child process by test/support/interrupt.ts (`--import`), never
 * by the tests themselves: it tells the test when the command has begun its work, so that
 * the test interrupts a command that is working rather than one still loading its
 * modules, which on a busy machine takes seconds. A long command runs on a worker thread
 * and reports its figures into shared memory (cli/interrupt.ts); this wraps `Worker` to
 * watch that memory, and once the command has named its figures and each is above zero,
 * creates the file `PAGECHECK_TEST_READY_FILE`.
 */
import { writeFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { WorkerOptions } from 'node:worker_threads';

const ready = process.env['PAGECHECK_TEST_READY_FILE'];
const threads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');

/** A Worker that watches the figures buffer it is handed, if any. */
class WatchedWorker extends threads.Worker {
  constructor(entry: string | URL, options?: WorkerOptions) {
    super(entry, options);
    const figures = (options?.workerData as { figures?: unknown } | undefined)?.figures;
    if (ready === undefined || !(figures instanceof SharedArrayBuffer)) return;
    const shared = new Float64Array(figures);
    let named = 0;
    this.on('message', (m: { kind?: string; names?: readonly string[] }) => {
      if (m.kind === 'begin') named = m.names?.length ?? 0;
    });
    // Slot 0 is the start time, slots 1.. the figures in the order named.
    const timer = setInterval(() => {
      if (named === 0 || !shared.subarray(1, named + 1).every((v) => v > 0)) return;
      writeFileSync(ready, '');
      clearInterval(timer);
    }, 20);
    timer.unref();
    this.once('exit', () => clearInterval(timer));
  }
}

threads.Worker = WatchedWorker;
// cli/interrupt.ts imports `Worker` as an ES module binding: make that binding the wrapper too.
syncBuiltinESMExports();
