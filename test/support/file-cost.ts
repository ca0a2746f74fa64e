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
 *
 * The fast tier runs its files one after another in shared processes (vitest.config.ts,
 * `isolate: false`): there a file's cost is what its process spent since the file before
 * it ended (its own imports, the modules no earlier file had loaded, and its tests), and
 * the first file of a process also carries the process's start. The lines of a run add
 * up to the CPU of its test processes either way.
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
  /** Wall time since the test process started, or since the previous file of a shared process ended (its imports included). */
  readonly wallMs: number;
}

/** Where the previous file of this process ended (a setup file runs again for every test file; the mark outlives it). */
interface Mark {
  readonly cpuMs: number;
  readonly childCpuMs: number;
  readonly wallMs: number;
}
const MARK = Symbol.for('pagecheck.file-cost.mark');
const holder = globalThis as typeof globalThis & { [MARK]?: Mark };

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
    const now: Mark = { cpuMs: (usage.user + usage.system) / 1000, childCpuMs: childCpuMs(), wallMs: process.uptime() * 1000 };
    const since = holder[MARK] ?? { cpuMs: 0, childCpuMs: 0, wallMs: 0 };
    holder[MARK] = now;
    const cost: FileCost = {
      file: relative(process.cwd(), expect.getState().testPath ?? 'unknown'),
      cpuMs: Math.round(now.cpuMs - since.cpuMs),
      childCpuMs: Math.round(now.childCpuMs - since.childCpuMs),
      wallMs: Math.round(now.wallMs - since.wallMs),
    };
    appendFileSync(log, `${JSON.stringify(cost)}\n`);
  });
}
