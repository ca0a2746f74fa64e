/**
 * The `pagecheck` command line. Each command lives in `commands/`; this file only wires
 * them up and turns user errors into one clear line and exit code 2. A command's module
 * (and with it its heavy dependencies: the TypeScript compiler, z3, fast-check) is loaded
 * only when that command runs, so that `pagecheck check` starts in a fraction of a second.
 */
import { Command, CommanderError } from 'commander';
import { isMainThread } from 'node:worker_threads';
import { TraceInputError } from '../trace/errors.ts';
import { EXIT, UsageError } from './errors.ts';
import { isInterrupting, listenForInterrupt, LONG_COMMANDS, longCommand, Outgrown, runCleanups, stopListening, underBudget } from './interrupt.ts';
import { packageVersion } from '../docs/generate/package-info.ts';

/** A command module: it registers its flags and action on the program. */
interface CommandModule {
  /** Registers the command. */
  register(program: Command): void;
}

/** Every command by name, in the order `--help` lists them; each loads its module when called. */
export const COMMANDS: Readonly<Record<string, () => Promise<CommandModule>>> = {
  demo: () => import('./commands/demo.ts'),
  check: () => import('./commands/check.ts'),
  simulate: () => import('./commands/simulate.ts'),
  replay: () => import('./commands/replay.ts'),
  matrix: () => import('./commands/matrix.ts'),
  mbt: () => import('./commands/mbt.ts'),
  incident: () => import('./commands/incident.ts'),
  'validate-log': () => import('./commands/validate-log.ts'),
  prove: () => import('./commands/prove.ts'),
  docs: () => import('./commands/docs.ts'),
  export: () => import('./commands/export.ts'),
};

/** The command named on the command line (the first word that is not a flag), if there is one. */
function commandName(argv: readonly string[]): string | undefined {
  const first = argv.find((a) => !a.startsWith('-'));
  return first !== undefined && first in COMMANDS ? first : undefined;
}

/** Builds the program with the commands registered: only `only` when given, else every one (for `--help`). */
export async function buildProgram(only?: string): Promise<Command> {
  const program = new Command('pagecheck')
    .description('Model checker and executable specification for KV-cache page ownership across a prefill/decode handoff')
    .version(packageVersion(), '-V, --version', 'print the version of pagecheck')
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  const names = only === undefined ? Object.keys(COMMANDS) : [only];
  // For --help and --version every command is listed; one that cannot load here is listed as such, and says why when run.
  const modules = await Promise.all(names.map((name) => (only === undefined ? loadCommand(name).catch((e: unknown) => unavailable(name, e)) : loadCommand(name))));
  for (const command of modules) command.register(program);
  for (const sub of program.commands) sub.exitOverride();
  return program;
}

/** Loads one command's module; a dependency that is not installed (the docs generator needs typescript, a development dependency) is named. */
async function loadCommand(name: string): Promise<CommandModule> {
  try {
    return await COMMANDS[name]!();
  } catch (e) {
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec(e instanceof Error ? e.message : '');
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' || missing === null) throw e;
    throw new UsageError(`${name}: needs the package ${missing[1]}, which is not installed (it is a development dependency: run this command from a clone of the repository after npm install)`);
  }
}

/** A stand-in for a command that cannot load here: listed in --help, and failing with the reason when run. */
function unavailable(name: string, e: unknown): CommandModule {
  if (!(e instanceof UsageError)) throw e;
  return {
    register: (program) =>
      void program
        .command(name)
        .description(`(not available here: ${e.message.replace(/^\S+: /, '')})`)
        .allowUnknownOption()
        .allowExcessArguments()
        .action(() => {
          throw e;
        }),
  };
}

/** Whether `e` is an error the user can fix (a flag, a file, a configuration), by name so that the spec need not be loaded to tell. */
function isUserError(e: unknown): e is Error {
  return e instanceof UsageError || e instanceof TraceInputError || (e instanceof Error && e.name === 'ConfigError');
}

/** Runs the command line and returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  // Commands report their outcome through process.exitCode; start clean so that in-process callers (tests) can run many.
  process.exitCode = undefined;
  // `--version` alone names no command: loading every command for the listing that --help needs took most of its 0.7 s.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  try {
    const program = await buildProgram(commandName(argv));
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 || e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? EXIT.ok : EXIT.badInput;
    }
    if (isUserError(e)) {
      process.stderr.write(`pagecheck: ${e.message}\n`);
      return EXIT.badInput;
    }
    throw e;
  }
}

/**
 * Runs the command line as a process does: a long command where Ctrl-C stops it with a
 * summary (interrupt.ts). `check` runs here first, and on a worker once it outgrows the
 * main thread's budget: a tiny check ends before a worker could have loaded its modules.
 */
export async function run(argv: readonly string[]): Promise<number> {
  const name = longCommand(argv);
  if (name === undefined || !isMainThread) return main(argv);
  listenForInterrupt(argv);
  try {
    const where = LONG_COMMANDS[name];
    if (where === 'main') return await main(argv);
    if (where === 'main-first') {
      const code = await underBudget(() => main(argv)).catch(async (e: unknown) => {
        if (!(e instanceof Outgrown)) throw e;
        await runCleanups();
        return undefined;
      });
      if (code !== undefined) return code;
    }
    // A Ctrl-C that came during the main-thread part is heard here, before a worker starts.
    await new Promise((resolve) => setImmediate(resolve));
    if (isInterrupting()) return await new Promise<number>(() => {});
    const { runOnWorker } = await import('./on-worker.ts');
    return await runOnWorker(argv);
  } finally {
    if (!isInterrupting()) stopListening();
  }
}

/** A closed pipe (`pagecheck ... | head`) ends the run quietly, as it does for other command-line tools. */
export function exitOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}

// `tsx cli/main.ts ...` (npm run pagecheck) runs the command line; the installed command goes through bin.ts.
const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  exitOnBrokenPipe(process.stdout);
  process.exitCode = await run(process.argv.slice(2));
}
