/**
 * What each test file costs (vitest `setupFiles`), for finding where the suite's time goes.
 * vitest's own durations are wall times, which a busy machine inflates; the CPU time of the
 * file's process (its imports, its tests and its worker threads) is what moving a file
 * between tiers saves. Many heavy files do their work in child processes (the proofs'
 * apart.ts, the CLI runs), which the process's own CPU time leaves out, so the CPU of its
 * waited-for children is logged beside it where the system tells it (Linux's
 * /proc/self/stat). With `PAGECHECK_TEST_COST_LOG` set to a path, each file appends one
 * JSON line `{ file, cpuMs, childCpuMs, wallMs }` to it when its tests are done; without
 * it this does nothing. bench/suite-under-load.ts reads the lines.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, expect } from 'vitest';

const log = process.env['PAGECHECK_TEST_COST_LOG'];

/** One file's cost: CPU of its process and of its children, and wall time since the process started, in ms. */
export interface FileCost {
  /** The test file, relative to the repository. */
  readonly file: string;
  /** User and system CPU of the test process, worker threads included. */
  readonly cpuMs: number;
  /** User and system CPU of the child processes it started and waited for (0 where the system does not tell). */
  readonly childCpuMs: number;
  /** Wall time since the test process started (its imports included). */
  readonly wallMs: number;
}

/** The CPU of this process's waited-for children, in ms: fields cutime and cstime of /proc/self/stat (clock ticks, 100 a second on Linux). */
function childCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // the command name, in parentheses, may hold spaces: the fields are counted after it
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 16 and 17 of proc(5), the first after the name being field 3
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

if (log !== undefined && log !== '') {
  afterAll(() => {
    const usage = process.cpuUsage();
    const cost: FileCost = {
      file: relative(process.cwd(), expect.getState().testPath ?? 'unknown'),
      cpuMs: Math.round((usage.user + usage.system) / 1000),
      childCpuMs: childCpuMs(),
      wallMs: Math.round(process.uptime() * 1000),
    };
    appendFileSync(log, `${JSON.stringify(cost)}\n`);
  });
}
