/**
 * `pagecheck validate-log FILE...`: holds a serving system's logs against the spec (trace
 * validation). The logs are merged by time and joined on the request id; the model comes
 * from the first `config` event, `--config FILE` or the flags (flags win). Exit 0 conforms,
 * 1 violation (the trace up to the line), 4 deviation (the line the spec cannot produce),
 * 2 bad input (file, line and field), 3 incomplete.
 */
import { Either } from 'effect';
import type { Command } from 'commander';
import { actionLabel, FAULTS, VARIANTS, type Fault, type Variant } from '../../spec/index.ts';
import { checkTraceFiles, formatTrace, shouldColor, writeTraceFiles } from '../../trace/index.ts';
import { ALLOCATORS, VALIDATOR_FAULTS, decodeConfigObject, formatResult, LogInputError, LogReadError, projectViolation, resultJson, specTrace, validate, validateFollow, type Allocator, type LogModel, type ValidationResult } from '../../conformance/index.ts';
import { EXIT, UsageError } from '../errors.ts';
import { parseFaultList } from '../model-options.ts';
import { readJsonFile } from '../read-input.ts';
import { createProgress } from '../progress.ts';
import { beginWork } from '../interrupt.ts';

/** The exit code of a deviation: the log shows something the spec cannot do. */
export const EXIT_DEVIATION = 4;

/** The flags as commander hands them over. */
interface ValidateFlags {
  readonly config?: string;
  readonly variant?: string;
  readonly pages?: string;
  readonly pageSize?: string;
  readonly prefillLimit?: string;
  readonly faults?: string;
  readonly allocator?: string;
  readonly window?: string;
  readonly json?: boolean;
  readonly itf?: string;
  readonly html?: string;
  readonly integrity?: boolean;
  readonly force?: boolean;
  readonly follow?: boolean;
}

/** Request slots when `--window` is not given. */
const DEFAULT_WINDOW = 128;

/** Every fault of the spec, to tell one the validator does not check from a misspelt name. */
const FAULT_NAMES: ReadonlySet<string> = new Set(FAULTS);

/** A whole-number flag, or a usage error naming it. */
function whole(flag: string, text: string, min: number, max: number): number {
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new UsageError(`${flag}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return value;
}

/** One of a list, or a usage error naming the flag. */
function oneOf<T extends string>(flag: string, text: string, values: readonly T[]): T {
  const found = values.find((v) => v === text.trim());
  if (found === undefined) throw new UsageError(`${flag}: expected one of ${values.join(', ')}, got ${JSON.stringify(text)}`);
  return found;
}

/** The model fields given by `--config` and the flags; the flags win. */
function overridesFrom(flags: ValidateFlags): Partial<LogModel> {
  let fromFile: Partial<LogModel> = {};
  if (flags.config !== undefined) {
    const decoded = decodeConfigObject(readJsonFile(flags.config, 'configuration file'));
    if (Either.isLeft(decoded)) throw new UsageError(`${flags.config}: ${decoded.left.field === '' ? '' : `${decoded.left.field}: `}${decoded.left.message}`);
    const { kind: _kind, t: _t, ...rest } = decoded.right;
    const unchecked = (rest.faults ?? []).filter((f) => !VALIDATOR_FAULTS.includes(f));
    if (unchecked.length > 0) throw new UsageError(`${flags.config}: faults: ${uncheckedFaults(unchecked)}`);
    fromFile = rest;
  }
  const out: { -readonly [K in keyof LogModel]?: LogModel[K] } = { ...fromFile };
  if (flags.pages !== undefined) out.pages = whole('--pages', flags.pages, 1, 1 << 24);
  if (flags.pageSize !== undefined) out.pageSize = whole('--page-size', flags.pageSize, 1, 1 << 20);
  if (flags.prefillLimit !== undefined) out.prefillLimit = whole('--prefill-limit', flags.prefillLimit, 0, 1 << 24);
  if (flags.variant !== undefined) out.variant = oneOf<Variant>('--variant', flags.variant, VARIANTS);
  if (flags.allocator !== undefined) out.allocator = oneOf<Allocator>('--allocator', flags.allocator, ALLOCATORS);
  if (flags.faults !== undefined) out.faults = parseFaults(flags.faults);
  return out;
}

/** Why faults the validator cannot hold a log against are refused. */
function uncheckedFaults(faults: readonly Fault[]): string {
  return `validate-log does not check logs with ${faults.join(', ')} yet; it checks ${VALIDATOR_FAULTS.join(', ')} (or none)`;
}

/** `--faults`: the faults the validator checks, or a usage error naming the flag (not a line of the log, where the check would otherwise fire). */
function parseFaults(text: string): Fault[] {
  return parseFaultList(text, VALIDATOR_FAULTS).map((f) => {
    const known = VALIDATOR_FAULTS.find((v) => v === f);
    if (known !== undefined) return known;
    if (FAULT_NAMES.has(f)) throw new UsageError(`--faults: ${uncheckedFaults([f as Fault])}`);
    throw new UsageError(`--faults: expected one of ${VALIDATOR_FAULTS.join(', ')} (or none), got ${JSON.stringify(f)}`);
  });
}

/** What both ways of reading the logs share: the model's overrides, the window, the output, the trace files. */
interface Setup {
  readonly overrides: Partial<LogModel>;
  readonly window: number;
  readonly json: boolean;
  readonly traceFiles: { itf?: string; html?: string };
}

/** The flags read and the output paths checked, before any work. */
function setUp(files: readonly string[], flags: ValidateFlags): Setup {
  const overrides = overridesFrom(flags);
  const window = flags.window === undefined ? DEFAULT_WINDOW : whole('--window', flags.window, 1, 1 << 16);
  const traceFiles = { ...(flags.itf === undefined ? {} : { itf: flags.itf }), ...(flags.html === undefined ? {} : { html: flags.html }) };
  // Before any work, and never onto a log or the configuration being read.
  checkTraceFiles(traceFiles, flags.force === true, [...files, ...(flags.config === undefined ? [] : [flags.config])]);
  return { overrides, window, json: flags.json === true, traceFiles };
}

/**
 * Runs the validation and prints the verdict; returns the exit code. With `--follow`, one
 * log is held against the spec line by line as it is written, and the verdict is printed as
 * soon as a line proves it; otherwise the logs are read whole, merged by time.
 */
export async function validateLogCommand(files: readonly string[], flags: ValidateFlags): Promise<number> {
  const follow = flags.follow === true;
  const [file, ...more] = files;
  if (follow && (file === undefined || more.length > 0)) throw new UsageError(`--follow: expected one log file (or - for standard input), got ${files.length}: a log that is still being written cannot be merged by time with another`);
  const setup = setUp(files, flags);
  const progress = createProgress(follow ? 'validate-log --follow | {events} events, following' : 'validate-log | {events} events', setup.json);
  let result;
  try {
    const work = beginWork('validate-log', ['events']);
    const onProgress = (events: number): void => (work.report({ events }), progress.update({ events: events.toLocaleString('en-US') }));
    const options = { overrides: setup.overrides, window: setup.window, integrity: flags.integrity === true, onProgress };
    result = follow && file !== undefined ? await validateFollow({ ...options, file, onCaughtUp: onProgress }) : validate({ ...options, files });
  } catch (e) {
    if (e instanceof LogInputError || e instanceof LogReadError) throw new UsageError(e.message);
    throw e;
  } finally {
    progress.stop();
  }
  return report(result, files, setup, flags.force === true);
}

/** Prints the verdict (and writes the trace files); returns the exit code. */
function report(result: ValidationResult, files: readonly string[], setup: Setup, force: boolean): number {
  const { json, traceFiles } = setup;
  if (result.events === 0) throw new UsageError(`${files.join(', ')}: no events (the log${files.length === 1 ? ' is' : 's are'} empty): a log that shows nothing cannot conform; is the logging switched on?`);
  const direct = result.verdict === 'violation' ? specTrace(result) : undefined;
  // A log too large for the spec: the requests involved, projected onto a few of their pages.
  const projection = direct === undefined && result.verdict === 'violation' ? projectViolation(result) : undefined;
  const spec = direct ?? (projection === undefined ? undefined : specTrace(projection.result));
  const projected =
    projection === undefined
      ? ''
      : `the spec's trace of ${projection.requests.join(' and ')}, projected onto their pages ${projection.pages.join(', ')} (numbered 0 to ${projection.pages.length - 1} below), with P's limit scaled to ${projection.result.model?.prefillLimit ?? '?'} pages so that each request stays on its side of it:\n\n`;
  if (json) process.stdout.write(`${JSON.stringify({ ...(resultJson(result, files) as object), specTrace: spec !== undefined, trace: spec === undefined ? [] : spec.trace.steps.map((x) => actionLabel(spec.m, x.action)), projectedPages: projection?.pages ?? null }, null, 2)}\n`);
  else {
    const trace = spec === undefined ? undefined : projected + formatTrace(spec.m, spec.trace, { color: shouldColor(process.stdout), ...(result.invariant === undefined ? {} : { violation: result.invariant }) });
    process.stdout.write(`${formatResult(result, files, trace)}\n`);
  }
  if (Object.keys(traceFiles).length > 0) {
    if (spec === undefined) {
      const why = result.verdict === 'violation' ? 'the log is larger than the spec can hold (at most 16 requests and 254 pages) and the requests involved could not be projected onto a spec-sized model, so the trace is the log lines above' : 'there is no violation';
      process.stderr.write(`pagecheck: no trace file was written: ${why}\n`);
    } else {
      const written = writeTraceFiles(spec.m, spec.trace, result.invariant, traceFiles, force);
      if (!json) process.stdout.write(`wrote ${written.join(', ')}\n`);
    }
  }
  switch (result.verdict) {
    case 'conforms':
      return EXIT.ok;
    case 'violation':
      return EXIT.violation;
    case 'deviation':
      return EXIT_DEVIATION;
    case 'incomplete':
      return EXIT.incomplete;
  }
}

const HELP = `
Each FILE holds one JSON event per line (docs/LOG-FORMAT.md). Several files (P's and D's
logs) are merged by their events' time "t" and joined on the request id "id".

Exit codes: 0 conforms (the spec can produce the log, no invariant breaks), 1 violation
(an invariant breaks at the line printed, with the trace up to it), 4 deviation (the spec
cannot produce the line printed: what the system did, and why each state it could have
been in refuses it), 2 bad input (file, line and field), 3 incomplete (too many states).

With --follow, one log is read as it is written (a server's log, a FIFO, or - for standard
input): each line is held against the spec when it arrives, and the first violation or
deviation is printed, with its exit code, as soon as its line is written. Memory stays
bounded by the requests in flight. A pipe's verdict is the whole log's when its writer
closes it; a file is followed until Ctrl-C (exit 130, with the events read), and a file
that shrinks or is rotated away is an error (exit 2).`;

/** Registers the command. */
export function register(program: Command): void {
  program
    .command('validate-log')
    .description("check a serving system's logs against the spec: conforms (0), violation (1), deviation (4)")
    .argument('<files...>', 'log files (JSON lines), merged by time')
    .option('--config <file>', 'model (JSON, the fields of a config event); flags override it, and it overrides the log')
    .option('--variant <name>', VARIANTS.join(' | '))
    .option('--pages <n>', "D's KV pages")
    .option('--page-size <tokens>', 'tokens per page (to read "tokens" in arrivals)')
    .option('--prefill-limit <n>', 'longest prompt, in pages, that P computes')
    .option('--faults <list>', `faults switched on, comma-separated, or 'none' (${VALIDATOR_FAULTS.join(', ')})`)
    .option('--allocator <order>', `which pages an allocation may take: ${ALLOCATORS.join(' | ')} (default sorted)`)
    .option('--window <n>', `request slots: the most requests in flight at once (default ${DEFAULT_WINDOW})`)
    .option('--integrity', 'also check Integrity: every decode read, at every position, content written for its request there (docs/LOG-FORMAT.md says what the log must show)')
    .option('--json', 'print the verdict as JSON')
    .option('--itf <file>', 'write the violation trace as ITF (logs within the spec bounds)')
    .option('--html <file>', 'write the violation trace as an HTML report (logs within the spec bounds)')
    .option('--force', 'overwrite --itf/--html files that pagecheck has no record of writing')
    .option('--follow', 'read one log (a file, a FIFO, or - for standard input) as it is written, and print the verdict as soon as a line proves it; a pipe ends when its writer closes it, a file at Ctrl-C')
    .addHelpText('after', HELP)
    .action(async (files: string[], flags: ValidateFlags) => {
      process.exitCode = await validateLogCommand(files, flags);
    });
}
