/**
 * `pagecheck export promela [model flags] [--out FILE]`: the model of a configuration in
 * SPIN's language, for an independent cross-check (see spin/promela.ts for how its state
 * count and trail length correspond to pagecheck's). Printed to stdout, or written to a
 * file; a file that exists and was not written by this command is never overwritten,
 * since it is most likely someone's hand-written model.
 */
import type { Command } from 'commander';
import { PROMELA_MAX_PAGES, toPromela } from '../../spin/promela.ts';
import { PROMELA_COVERAGE } from '../../spin/coverage.ts';
import { refusalOf } from '../../spec/coverage.ts';
import { checkOutputPath, writeOutput } from '../../trace/written.ts';
import { UsageError } from '../errors.ts';
import { addModelOptions, configFromFlags, type ModelFlags } from '../model-options.ts';
import { CHECK_DEFAULTS } from '../search-report.ts';

/** The formats `export` can write. */
export const EXPORT_FORMATS = ['promela'] as const;

/** The flags of `export`, as commander hands them over. */
interface ExportFlags extends ModelFlags {
  /** `--out FILE`. */
  readonly out?: string;
  /** `--force`: overwrite a file pagecheck has no record of writing. */
  readonly force?: boolean;
}

/** Runs `export` with parsed arguments; returns the exit code. */
export function runExport(format: string, flags: ExportFlags): number {
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`export: unknown format ${JSON.stringify(format)}; expected one of ${EXPORT_FORMATS.join(', ')}`);
  }
  const config = configFromFlags(flags, CHECK_DEFAULTS);
  const refused = refusalOf(PROMELA_COVERAGE, config);
  if (refused !== undefined) throw new UsageError(refused);
  if (config.pages > PROMELA_MAX_PAGES) {
    throw new UsageError(`--pages: the Promela model supports at most ${PROMELA_MAX_PAGES} pages, got ${config.pages}`);
  }
  if (flags.out !== undefined) checkOutputPath('--out', flags.out, flags.force === true);
  let text: string;
  try {
    text = toPromela(config);
  } catch (e) {
    // A configuration the Promela model cannot express, which a check above did not name: still one line, exit 2.
    if (e instanceof RangeError) throw new UsageError(`export promela: ${e.message}`);
    throw e;
  }
  if (flags.out === undefined) {
    process.stdout.write(text);
    return 0;
  }
  writeOutput('--out', flags.out, text);
  process.stderr.write(`pagecheck: wrote ${flags.out}\n`);
  return 0;
}

/** Registers the command. */
export function register(program: Command): void {
  addModelOptions(
    program
      .command('export')
      .description('write the model of a configuration for another tool: promela (SPIN)')
      .argument('<format>', `the output format: ${EXPORT_FORMATS.join(', ')}`),
  )
    .option('--out <file>', 'write to this file instead of stdout (never overwrites a file pagecheck did not write)')
    .option('--force', 'overwrite --out even though pagecheck has no record of writing it')
    .action((format: string, flags: ExportFlags) => {
      process.exitCode = runExport(format, flags);
    });
}
