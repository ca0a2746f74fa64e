/**
 * Ctrl-C during a long command (issue 12, item 4): the process stops, prints a partial
 * summary (the same object under --json), restores the terminal and exits 130.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledCli, type BundledCli } from '../support/bundled-cli.ts';
import { beginWork, EXIT_INTERRUPTED, formatSummary, INTERRUPTIBLE, MAIN_THREAD_STATES, RESTORE_TERMINAL, summarize } from '../../cli/interrupt.ts';
import { runFigures } from '../../cli/progress.ts';

/** A search of about 17 million states: far longer than the test waits. */
const LONG_CHECK = ['check', '--pages', '5', '--prefill-limit', '2', '--requests', '2,3:s,2:s,1,1', '--variant', 'owner-check', '--faults', 'silent-stub,early-free,prefix-poison', '--no-symmetry'];


/** The command line bundled from the sources (test/support/bundled-cli.ts), and its `bin.js`. */
let cli: BundledCli;
let bin: string;

beforeAll(async () => {
  cli = await bundledCli('pagecheck-interrupt-');
  ({ bin } = cli);
}, 60_000);

afterAll(() => cli.remove());

/** What an interrupted run printed. */
interface Interrupted {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/**
 * Starts the bundled `pagecheck ...args` (a tenth of what tsx costs each process and
 * worker, which matters on a busy machine) with the test markers on (cli/interrupt.ts),
 * sends SIGINT once stderr shows `marker` (no sleep: the run is where the marker says), and
 * collects what it printed. `hold` makes the run wait at its first marker, before it loads
 * the command.
 */
function interrupt(args: readonly string[], marker: string, hold = false): Promise<Interrupted> {
  return new Promise((resolve) => {
    const env = { ...process.env, NO_COLOR: '1', PAGECHECK_TEST_MARKERS: hold ? 'hold' : '1' };
    const child = spawn(process.execPath, [bin, ...args], { env, timeout: 120_000 });
    let out = '';
    let err = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (!sent && err.includes(`[pagecheck-test] ${marker}\n`)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** The stderr of an interrupted run without the test markers: empty, no stack trace. */
const unmarked = (err: string): string => err.replace(/^\[pagecheck-test\] .*\n/gm, '');

// Each test is a process of its own that mostly waits for its child: they run side by side.
describe.concurrent('interrupting a long command', () => {
  it('check --json prints the partial summary as JSON and exits 130', async () => {
    const run = await interrupt([...LONG_CHECK, '--json'], 'reported check');
    expect(run.code).toBe(EXIT_INTERRUPTED);
    const summary = JSON.parse(run.out) as Record<string, unknown>;
    expect(summary).toMatchObject({ command: 'check', verdict: 'incomplete', interrupted: true, started: true });
    expect(summary['states']).toBeGreaterThan(0);
    expect(summary['depth']).toBeGreaterThan(0);
    expect(summary['elapsedMs']).toBeGreaterThan(0);
    expect(unmarked(run.err)).toBe('');
  }, 120_000);

  it('mbt prints the partial summary in words and exits 130', async () => {
    const run = await interrupt(['mbt', '--runs', '10000000', '--variant', 'owner-check'], 'reported mbt');
    expect(run.code).toBe(EXIT_INTERRUPTED);
    expect(run.out).toMatch(/^pagecheck mbt: interrupted \(Ctrl-C\) after \d+\.\d s\nverdict +incomplete\nruns +[1-9][\d,]*\n$/);
  }, 120_000);

  it('simulate prints the runs done and exits 130', async () => {
    // Some 20,000 runs a second: minutes of runs after the first.
    const run = await interrupt(['simulate', '--runs', '2000000', '--pages', '5', '--requests', '2,3,2'], 'reported simulate');
    expect(run.code).toBe(EXIT_INTERRUPTED);
    expect(run.out).toMatch(/^pagecheck simulate: interrupted \(Ctrl-C\) after \d+\.\d s\nverdict +incomplete\nruns +[1-9][\d,]*\n$/);
    expect(unmarked(run.err)).toBe('');
  }, 120_000);

  it('matrix prints the cells done and exits 130', async () => {
    // 32 cells; the marker comes after the first, the rest take seconds.
    const run = await interrupt(['matrix', '--pages', '6', '--requests', '2,3,2'], 'reported matrix');
    expect(run.code).toBe(EXIT_INTERRUPTED);
    expect(run.out).toMatch(/^pagecheck matrix: interrupted \(Ctrl-C\) after \d+\.\d s\nverdict +incomplete\ncells +[1-9]\d*\n$/);
    expect(unmarked(run.err)).toBe('');
  }, 120_000);

  it('prove, interrupted while z3 runs, ends z3 and prints the obligations done', async () => {
    // The marker comes once z3 has started its threads: the process exits only if they are ended.
    const run = await interrupt(['prove', '--json'], 'began prove');
    expect(run.code).toBe(EXIT_INTERRUPTED);
    expect(JSON.parse(run.out)).toMatchObject({ command: 'prove', verdict: 'incomplete', interrupted: true, started: true, obligations: 0, proved: 0 });
    expect(unmarked(run.err)).toBe('');
  }, 120_000);

  for (const command of ['check', 'matrix', 'prove']) {
    it(`${command} interrupted before it loaded its modules says so, naming the command once`, async () => {
      const run = await interrupt([command], `listening ${command}`, true);
      expect(run.code).toBe(EXIT_INTERRUPTED);
      expect(run.out).toMatch(new RegExp(`^pagecheck ${command}: interrupted \\(Ctrl-C\\) after \\d+\\.\\d s, before the search started\nverdict +incomplete\n$`));
      expect(unmarked(run.err)).toBe('');
    }, 120_000);
  }

  it('a check that ends within the main thread\'s budget prints its verdict, and one past it the same on a worker', async () => {
    const small = await interrupt(['check', '--json'], 'never');
    const moved = await interrupt(['check', '--pages', '5', '--requests', '2,3:s,2:s,1', '--faults', 'silent-stub,early-free', '--variant', 'hardened', '--workers', '1', '--json'], 'never');
    expect([small.code, moved.code]).toEqual([1, 0]);
    expect(JSON.parse(small.out)).toMatchObject({ verdict: 'violation', distinctStates: 18 });
    // Past MAIN_THREAD_STATES: the worker's search, started again, counts the whole space (reduced by partial-order reduction, 84,158 without).
    expect(JSON.parse(moved.out)).toMatchObject({ verdict: 'holds', distinctStates: 79_083 });
    expect(79_083).toBeGreaterThan(MAIN_THREAD_STATES);
    // It began twice: on the main thread, then again on the worker.
    expect([small.err.match(/began check/g)?.length, moved.err.match(/began check/g)?.length]).toEqual([1, 2]);
  }, 120_000);

  it('the long commands are the interruptible ones', () => {
    expect([...INTERRUPTIBLE].sort()).toEqual(['check', 'incident', 'matrix', 'mbt', 'prove', 'simulate', 'validate-log']);
  });

  it('the summary carries the figures the command reported last', () => {
    const work = beginWork('check', ['states', 'depth']);
    work.report({ states: 1234, depth: 7 });
    const buffer = new Float64Array([1_000, 1234, 7]);
    const s = summarize('check', { kind: 'begin', command: 'check', names: ['states', 'depth'] }, buffer, 3_500, 500);
    expect(s).toEqual({ command: 'check', verdict: 'incomplete', interrupted: true, elapsedMs: 2_500, started: true, states: 1234, depth: 7 });
    expect(formatSummary(s)).toBe('pagecheck check: interrupted (Ctrl-C) after 2.5 s\nverdict          incomplete\nstates           1,234\ndepth            7');
  });

  it('before the command began, the summary names it once and says the search had not started', () => {
    const s = summarize('simulate', undefined, new Float64Array(9), 1_700, 1_000);
    expect(s).toEqual({ command: 'simulate', verdict: 'incomplete', interrupted: true, elapsedMs: 700, started: false });
    expect(formatSummary(s)).toBe('pagecheck simulate: interrupted (Ctrl-C) after 0.7 s, before the search started\nverdict          incomplete');
  });

  it('restores the cursor and line wrapping a progress line turned off', () => {
    expect(RESTORE_TERMINAL).toContain('\u001b[?25h');
    expect(RESTORE_TERMINAL).toContain('\u001b[?7h');
  });

  it('the progress line shows elapsed time and memory', () => {
    expect(runFigures(12_345, 85 * 2 ** 20)).toEqual({ elapsed: '12.3 s', memory: '85 MiB' });
    expect(runFigures(125_000, 2_048 * 2 ** 20)).toEqual({ elapsed: '2 min 05 s', memory: '2,048 MiB' });
  });
});
