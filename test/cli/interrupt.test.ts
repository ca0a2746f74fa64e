/**
 * Ctrl-C during a long command (issue 12, item 4): the process stops, prints a partial
 * summary (the same object under --json), restores the terminal and exits 130.
 */
import { describe, expect, it } from 'vitest';
import { beginWork, EXIT_INTERRUPTED, formatSummary, INTERRUPTIBLE, RESTORE_TERMINAL, summarize } from '../../cli/interrupt.ts';
import { runFigures } from '../../cli/progress.ts';
import { interruptWhenWorking } from '../support/interrupt.ts';

/** A search of about 17 million states: far longer than the test waits. */
const LONG_CHECK = ['check', '--pages', '5', '--prefill-limit', '2', '--requests', '2,3:s,2:s,1,1', '--variant', 'owner-check', '--faults', 'silent-stub,early-free,prefix-poison', '--no-symmetry'];

describe('interrupting a long command', () => {
  it('check --json prints the partial summary as JSON and exits 130', async () => {
    const run = await interruptWhenWorking([...LONG_CHECK, '--json']);
    expect(run.working, 'the command never reported its figures (test/support/figures-ready.ts watches the memory cli/interrupt.ts shares)').toBe(true);
    expect(run.code).toBe(EXIT_INTERRUPTED);
    const summary = JSON.parse(run.out) as Record<string, unknown>;
    expect(summary).toMatchObject({ command: 'check', verdict: 'incomplete', interrupted: true });
    expect(summary['states']).toBeGreaterThan(0);
    expect(summary['depth']).toBeGreaterThan(0);
    expect(summary['elapsedMs']).toBeGreaterThan(0);
  }, 200_000);

  it('mbt prints the partial summary in words and exits 130', async () => {
    const run = await interruptWhenWorking(['mbt', '--runs', '10000000', '--variant', 'owner-check']);
    expect(run.working, 'the command never reported its figures (test/support/figures-ready.ts watches the memory cli/interrupt.ts shares)').toBe(true);
    expect(run.code).toBe(EXIT_INTERRUPTED);
    expect(run.out).toMatch(/^pagecheck mbt: interrupted \(Ctrl-C\) after \d+\.\d s\nverdict +incomplete\nruns +[\d,]+\n$/);
  }, 200_000);

  it('the long commands are the interruptible ones', () => {
    expect([...INTERRUPTIBLE].sort()).toEqual(['check', 'incident', 'mbt', 'simulate', 'validate-log']);
  });

  it('the summary carries the figures the command reported last', () => {
    const work = beginWork('check', ['states', 'depth']);
    work.report({ states: 1234, depth: 7 });
    const buffer = new Float64Array([1_000, 1234, 7]);
    const s = summarize({ kind: 'begin', command: 'check', names: ['states', 'depth'] }, buffer, 3_500);
    expect(s).toEqual({ command: 'check', verdict: 'incomplete', interrupted: true, elapsedMs: 2_500, states: 1234, depth: 7 });
    expect(formatSummary(s)).toBe('pagecheck check: interrupted (Ctrl-C) after 2.5 s\nverdict          incomplete\nstates           1,234\ndepth            7');
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
