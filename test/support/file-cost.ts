/**
 * What each test file costs (vitest `setupFiles`), for finding where the suite's time goes.
 * vitest's own durations are wall times, which a busy machine inflates; the CPU time of the
 * file's process (its imports, its tests and its worker threads, though not its child
 * processes) is what moving a file between tiers saves. With `PAGECHECK_TEST_COST_LOG` set
 * to a path, each file appends one JSON line `{ file, cpuMs, wallMs }` to it when its tests
 * are done; without it this does nothing. bench/suite-under-load.ts reads the lines.
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';

const log = process.env['PAGECHECK_TEST_COST_LOG'];

/** One file's cost: CPU of its process and wall time since the process started, in ms. */
export interface FileCost {
  /** The test file, relative to the repository. */
  readonly file: string;
  /** User and system CPU of the test process, worker threads included. */
  readonly cpuMs: number;
  /** Wall time since the test process started (its imports included). */
  readonly wallMs: number;
}

if (log !== undefined && log !== '') {
  afterAll(() => {
    const usage = process.cpuUsage();
    const cost: FileCost = {
      file: relative(process.cwd(), expect.getState().testPath ?? 'unknown'),
      cpuMs: Math.round((usage.user + usage.system) / 1000),
      wallMs: Math.round(process.uptime() * 1000),
    };
    appendFileSync(log, `${JSON.stringify(cost)}\n`);
  });
}
