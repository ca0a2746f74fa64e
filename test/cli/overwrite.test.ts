/**
 * Nothing a user gave is overwritten without asking (issue 28, item 1). The output flags
 * are read from commander's own command definitions, so that a new one cannot be left out:
 * every option that takes a file and is not one of the inputs below is an output, and each
 * is tried on a sentinel file, which must survive with exit 2 and one line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../cli/main.ts';
import { pagecheck } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-overwrite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The options that name a file pagecheck reads. */
const INPUT_FLAGS = new Set(['--config', '--workload', '--merge']);

/** The positional arguments each command needs, for a run that reaches its output check. */
const POSITIONAL: Readonly<Record<string, readonly string[]>> = {
  replay: ['examples/logs/d.jsonl'],
  'validate-log': ['examples/logs/d.jsonl', 'examples/logs/p.jsonl'],
  export: ['promela'],
};

/** Every `command --flag` that writes a file, from the commands' definitions. */
function outputFlags(program: Command): Array<{ command: string; flag: string }> {
  return program.commands.flatMap((c) =>
    c.options
      .filter((o) => /<files?(\.\.\.)?>/.test(o.flags) && o.long !== undefined && !INPUT_FLAGS.has(o.long))
      .map((o) => ({ command: c.name(), flag: o.long! })),
  );
}

const SENTINEL = 'a file of the user: must survive\n';

describe('every output flag of every command', () => {
  let program: Command;
  beforeAll(async () => {
    program = await buildProgram();
  }, 60_000);

  it('is one of these nine (a new one is tried below as soon as it exists)', () => {
    expect(outputFlags(program).map((o) => `${o.command} ${o.flag}`)).toEqual([
      'check --itf',
      'check --mermaid',
      'check --html',
      'simulate --out',
      'incident --log',
      'validate-log --itf',
      'validate-log --html',
      'docs --out',
      'export --out',
    ]);
  });

  it('comes with --force on its command', () => {
    const commands = new Set(outputFlags(program).map((o) => o.command));
    for (const name of commands) {
      const c = program.commands.find((x) => x.name() === name)!;
      expect(c.options.some((o) => o.long === '--force'), name).toBe(true);
    }
  });

  it('refuses a file pagecheck did not write: exit 2, one line, the file untouched', async () => {
    for (const { command, flag } of outputFlags(program)) {
      const c = program.commands.find((x) => x.name() === command)!;
      const needed = c.registeredArguments.filter((a) => a.required).length;
      const positional = POSITIONAL[command] ?? [];
      expect(positional.length >= needed, `${command} needs positional arguments in POSITIONAL`).toBe(true);
      const sentinel = join(dir, `${command}-${flag.slice(2)}.txt`);
      writeFileSync(sentinel, SENTINEL);
      const run = await pagecheck(command, ...positional, flag, sentinel);
      expect([command, flag, run.code, run.out, run.err]).toEqual([
        command,
        flag,
        2,
        '',
        `pagecheck: ${flag} ${sentinel}: the file exists and pagecheck did not write it (or it changed since); name another file, or add --force to overwrite it\n`,
      ]);
      expect(readFileSync(sentinel, 'utf8')).toBe(SENTINEL);
    }
  }, 60_000);
});

describe('--force overwrites, and then pagecheck knows the file as its own', () => {
  /** Cheap runs that write each kind of output. */
  const RUNS: ReadonlyArray<{ name: string; args: (file: string) => string[]; code: number }> = [
    { name: 'check --itf', args: (f) => ['check', '--itf', f], code: 1 },
    { name: 'simulate --out', args: (f) => ['simulate', '--runs', '1', '--depth', '3', '--out', f], code: 0 },
    { name: 'incident --log', args: (f) => ['incident', '--requests', '3', '--log', f], code: 0 },
    { name: 'validate-log --html', args: (f) => ['validate-log', 'examples/logs/d.jsonl', 'examples/logs/p.jsonl', '--html', f], code: 1 },
    { name: 'export --out', args: (f) => ['export', 'promela', '--out', f], code: 0 },
  ];

  it.each(RUNS)('$name', async ({ name, args, code }) => {
    const file = join(dir, `forced-${name.replace(/\W+/g, '-')}`);
    writeFileSync(file, SENTINEL);
    const forced = await pagecheck(...args(file), '--force');
    expect([forced.code, forced.err.includes('pagecheck:') && !forced.err.includes('wrote')]).toEqual([code, false]);
    expect(readFileSync(file, 'utf8')).not.toBe(SENTINEL);
    // pagecheck wrote it and nobody changed it: the next run replaces it without --force.
    expect((await pagecheck(...args(file))).code).toBe(code);
    // Changed by the user since: refused again.
    writeFileSync(file, SENTINEL);
    expect((await pagecheck(...args(file))).code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe(SENTINEL);
  }, 30_000);
});

describe('an output that is also an input', () => {
  it('validate-log --itf naming one of its logs is refused even with --force', async () => {
    const log = join(dir, 'own.jsonl');
    expect((await pagecheck('incident', '--requests', '3', '--log', log)).code).toBe(0);
    const before = readFileSync(log, 'utf8');
    const run = await pagecheck('validate-log', log, '--itf', log, '--force');
    expect([run.code, run.err]).toEqual([2, `pagecheck: --itf ${log}: is also an input of this command; name another file\n`]);
    expect(readFileSync(log, 'utf8')).toBe(before);
  });
});
