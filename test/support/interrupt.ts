/**
 * Ctrl-C for tests, synchronised on the command's own progress rather than on a clock:
 * starts `pagecheck ...args` from the sources, waits until the command has reported each
 * of its figures above zero (test/support/figures-ready.ts), sends SIGINT, and collects
 * what it printed. A fixed delay failed on a busy machine: the signal arrived while the
 * process was still loading its modules, and the summary had no counts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What an interrupted run printed, its exit code, and whether it had begun work when interrupted. */
export interface InterruptedRun {
  /** The exit code (`null` when a signal ended it). */
  readonly code: number | null;
  /** Everything on stdout. */
  readonly out: string;
  /** Everything on stderr. */
  readonly err: string;
  /** Whether the command had reported its figures when the signal was sent (false: the deadline passed first). */
  readonly working: boolean;
}

const PRELOAD = new URL('./figures-ready.ts', import.meta.url).href;

/** How long to wait for the command to begin its work before interrupting it anyway: minutes, for a machine under load. */
const DEADLINE_MS = 120_000;

/** Runs `pagecheck ...args`, interrupts it once it is working (or at the deadline), and resolves with what it printed. */
export function interruptWhenWorking(args: readonly string[]): Promise<InterruptedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-interrupt-'));
  const readyFile = join(dir, 'ready');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', PRELOAD, 'cli/bin.ts', ...args], {
      env: { ...process.env, NO_COLOR: '1', PAGECHECK_TEST_READY_FILE: readyFile },
      timeout: DEADLINE_MS + 120_000,
    });
    let out = '';
    let err = '';
    let working = false;
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const started = Date.now();
    const poll = setInterval(() => {
      working = existsSync(readyFile);
      if (!working && Date.now() - started < DEADLINE_MS) return;
      clearInterval(poll);
      child.kill('SIGINT');
    }, 50);
    child.on('close', (code) => {
      clearInterval(poll);
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, out, err, working });
    });
  });
}
