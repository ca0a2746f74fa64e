/**
 * The worker thread of a long command (see interrupt.ts and on-worker.ts): reports into the memory the main
 * thread shares, makes its piped streams look like the main thread's terminal, and runs
 * the command line.
 */
import { writeSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { reportInto } from './interrupt.ts';
import type { WorkerInput } from './on-worker.ts';
import { main } from './main.ts';

const input = workerData as WorkerInput;
reportInto(input.figures);
// The worker's streams are pipes to the main thread: say what they end in, so that colour and the progress line behave.
Object.assign(process.stdout, { isTTY: input.stdoutTTY });
Object.assign(process.stderr, { isTTY: input.stderrTTY, columns: input.columns });
// A worker's stream is flushed by its own event loop, which a search blocks: a terminal's progress line is written straight to fd 2.
if (input.stderrTTY) Object.assign(process.stderr, { write: writeStraight(2) });
process.exitCode = await main(input.pagecheckArgv);

/** A `write` for a stream that writes synchronously to the file descriptor `fd`, shared by every thread of the process. */
function writeStraight(fd: number): (chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => boolean {
  return (chunk, encoding, callback) => {
    if (typeof chunk === 'string') writeSync(fd, chunk);
    else writeSync(fd, chunk);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') done();
    return true;
  };
}
