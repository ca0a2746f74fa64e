/** Runs the command line in-process for tests: what it printed and how it exited. */
import { Command } from 'commander';
import { vi } from 'vitest';
import { UsageError } from '../../cli/errors.ts';
import { main } from '../../cli/main.ts';
import { TraceInputError } from '../../trace/errors.ts';

/** What a whole run of `pagecheck ...args` printed, and its exit code. */
export interface CliRun {
  /** The exit code `main` returned. */
  readonly code: number;
  /** Everything written to stdout. */
  readonly out: string;
  /** Everything written to stderr. */
  readonly err: string;
}

/** Runs `pagecheck ...args` through `main`, as the installed command does. */
export async function pagecheck(...args: string[]): Promise<CliRun> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  try {
    return { code: await main(args), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

/** What one command printed and its exit code, or the usage error it threw. */
export type CommandRun = { out: string; code: number } | { error: string };

/** Runs one command on a program of its own, so that a usage error comes back as the error it is. */
export async function runCommand(register: (program: Command) => void, name: string, args: readonly string[]): Promise<CommandRun> {
  const program = new Command('pagecheck').exitOverride();
  register(program);
  for (const sub of program.commands) sub.exitOverride();
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  const before = process.exitCode;
  try {
    await program.parseAsync([name, ...args], { from: 'user' });
    return { out: chunks.join(''), code: Number(process.exitCode ?? 0) };
  } catch (e) {
    if (e instanceof UsageError || e instanceof TraceInputError) return { error: e.message };
    throw e;
  } finally {
    write.mockRestore();
    process.exitCode = before;
  }
}
