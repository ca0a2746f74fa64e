import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand, type CommandRun } from '../support/cli.ts';

/** Runs `pagecheck mbt ...args`; its stdout and exit code, or the usage error it threw. */
const mbt = (...args: string[]): Promise<CommandRun> => runCommand(register, 'mbt', args);

const ok = (r: { out: string; code: number } | { error: string }): { out: string; code: number } => {
  if ('error' in r) throw new Error(r.error);
  return r;
};

afterEach(() => vi.restoreAllMocks());

/** The minimal leak of docs/BACKGROUND.md ("The minimal leak"). */
const INCIDENT = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)'];

describe('pagecheck mbt (command line)', () => {
  it('--variant buggy --seed 1: the shrunk leak as a trace, and the line that replays it', async () => {
    const run = ok(await mbt('--variant', 'buggy', '--seed', '1'));
    expect(run.code).toBe(EXIT.violation);
    expect(run.out).toContain('FAIL at run 1: Isolation; shrunk in 9 steps to 9 commands (9 enabled)');
    expect(run.out).toContain('step 9  decode(B)');
    const replay = /^replay: pagecheck mbt (.*)$/m.exec(run.out)?.[1] ?? '';
    expect(replay).toMatch(/^--variant buggy --seed 1 --path "\d+(:\d+)*@[^"]+"$/);
    const path = /--path "([^"]+)"/.exec(replay)?.[1] ?? '';
    const again = ok(await mbt('--variant', 'buggy', '--seed', '1', '--path', path, '--json'));
    expect(again.code).toBe(EXIT.violation);
    expect(JSON.parse(again.out)).toMatchObject({ verdict: 'fail', runs: 1, seed: 1, path, property: 'Isolation', trace: INCIDENT, traceLength: 9 });
  });

  it('passes owner-check on random configurations and reports what it exercised', async () => {
    const run = ok(await mbt('--variant', 'owner-check', '--random', '--runs', '200', '--json'));
    expect(run.code).toBe(EXIT.ok);
    const result = JSON.parse(run.out) as { verdict: string; runs: number; seed: number; events: Record<string, number> };
    expect(result).toMatchObject({ verdict: 'pass', runs: 200, seed: 20260827, path: null, property: null, trace: [], traceLength: 0 });
    expect(result.events['failed-loudly']).toBeGreaterThan(0);
  });

  it('names the flag and the value of a bad flag', async () => {
    expect(await mbt('--runs', '0')).toEqual({ error: '--runs: expected a whole number from 1 to 10000000, got "0"' });
    expect(await mbt('--seed', '1.5')).toEqual({ error: '--seed: expected a whole number from 0 to 2147483647, got "1.5"' });
    expect(await mbt('--max-commands', 'many')).toEqual({ error: '--max-commands: expected a whole number from 1 to 1000, got "many"' });
    expect(await mbt('--path', 'zz')).toEqual({ error: '--path: expected a path such as 21:22:21@AB:C, got "zz"' });
    expect(await mbt('--random', '--requests', '2,3')).toEqual({ error: '--requests: cannot be combined with --random, which draws its own configurations' });
    expect(await mbt('--variant', 'fixed')).toEqual({
      error: 'invalid model configuration: --variant: expected one of buggy, length-fix, owner-check, hardened, got "fixed"',
    });
    const stale = await mbt('--seed', '2', '--path', '999:3');
    expect(stale).toEqual({ error: '--path: path 999:3 selects no case with seed 2 and 1000 runs (a path replays with the --seed and flags printed beside it)' });
  });
});
