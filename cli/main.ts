/**
 * The `pagecheck` command line. Each command lives in `commands/`; this file only wires
 * them up and turns user errors into one clear line and exit code 2.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../spec/index.ts';
import { EXIT, UsageError } from './errors.ts';
import * as check from './commands/check.ts';
import * as demo from './commands/demo.ts';
import * as docs from './commands/docs.ts';
import * as exporter from './commands/export.ts';
import * as incident from './commands/incident.ts';
import * as matrix from './commands/matrix.ts';
import * as mbt from './commands/mbt.ts';
import * as prove from './commands/prove.ts';
import * as replay from './commands/replay.ts';
import * as simulate from './commands/simulate.ts';

/** Builds the program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('pagecheck')
    .description('Model checker and executable specification for KV-cache page ownership across a prefill/decode handoff')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  for (const command of [demo, check, simulate, replay, matrix, mbt, incident, prove, docs, exporter]) command.register(program);
  for (const sub of program.commands) sub.exitOverride();
  return program;
}

/** Runs the command line and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  // Commands report their outcome through process.exitCode; start clean so that in-process callers (tests) can run many.
  process.exitCode = undefined;
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 || e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? EXIT.ok : EXIT.badInput;
    }
    if (e instanceof UsageError || e instanceof ConfigError) {
      process.stderr.write(`pagecheck: ${e.message}\n`);
      return EXIT.badInput;
    }
    throw e;
  }
}

/** A closed pipe (`pagecheck ... | head`) ends the run quietly, as it does for other command-line tools. */
function exitOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly || process.env['PAGECHECK_MAIN'] === '1') {
  exitOnBrokenPipe(process.stdout);
  process.exitCode = await main(process.argv.slice(2));
}
