/**
 * A CPU hog for the suite-under-load benchmark: busy loops in child processes, one per
 * core asked for, each bounded in time by its own clock (it ends itself even if nobody
 * kills it) and killed by {@link CpuHog.stop} at the end. Child processes, not threads,
 * so that the hog competes for the cores as another program on the machine would.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** Running busy loops; `stop()` kills them and waits for them to be gone. */
export interface CpuHog {
  /** How many busy loops run. */
  readonly loops: number;
  /** Kills every loop and resolves once each has exited. */
  stop(): Promise<void>;
}

/** A loop that spins until `deadline` (ms since the epoch), checking the clock only every million turns. */
const LOOP = 'const end = Number(process.argv[1]); let x = 0; while (Date.now() < end) { for (let i = 0; i < 1e6; i++) x = (x * 31 + i) | 0; } process.exitCode = x & 0;';

/** Starts `loops` busy loops that end by themselves after `maxMs`. */
export function startCpuHog(loops: number, maxMs: number): CpuHog {
  const deadline = Date.now() + maxMs;
  const children: ChildProcess[] = [];
  for (let i = 0; i < loops; i++) children.push(spawn(process.execPath, ['-e', LOOP, String(deadline)], { stdio: 'ignore' }));
  return {
    loops,
    stop: async () => {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
