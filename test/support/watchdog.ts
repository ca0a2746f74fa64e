/**
 * A hard time limit per test file (vitest `setupFiles`). vitest's own timeouts are timers
 * on the thread that runs the tests, so a test stuck in a synchronous loop never sees
 * them. This watchdog runs on a thread of its own: past the limit it names the file on
 * stderr and kills the test process, so that vitest reports the file as failed and CI goes
 * on instead of hanging. The limit is `PAGECHECK_FILE_TIMEOUT_MS` (vitest.config.ts sets
 * one per tier).
 */
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, expect } from 'vitest';

const limitMs = Number(process.env['PAGECHECK_FILE_TIMEOUT_MS'] ?? 600_000);
let watchdog: Worker | undefined;

beforeAll(() => {
  const file = expect.getState().testPath ?? 'a test file';
  const message = `\npagecheck test watchdog: ${file} ran longer than ${limitMs} ms; killing its process\n`;
  const source = `setTimeout(() => { require('node:fs').writeSync(2, ${JSON.stringify(message)}); process.kill(process.pid, 'SIGKILL'); }, ${limitMs});`;
  watchdog = new Worker(source, { eval: true });
  watchdog.unref();
});

afterAll(async () => {
  await watchdog?.terminate();
  watchdog = undefined;
});
