/**
 * `pagecheck incident`: the incident replayed at real scale on the TypedArray page pool
 * (docs/BACKGROUND.md, "The incident at real scale"). 64-token pages, P's memory of 681,280 tokens, D's pool of the
 * advertised 1,048,576, a realistic mix of prompt lengths, many requests in flight.
 */
import * as Either from 'effect/Either';
import type { Command } from 'commander';
import { VARIANTS, type Variant } from '../../spec/index.ts';
import { ServingPool } from '../../impl/serving-pool.ts';
import { ServingRadixPool } from '../../impl/serving-radix-pool.ts';
import { prefixLengthsOf } from '../../incident/arrivals.ts';
import type { PagePool } from '../../impl/pool.ts';
import { POOL_ALLOCATORS, type PoolAllocator } from '../../impl/allocator-order.ts';
import type { LengthRule } from '../../impl/options.ts';
import { replay, type PoolFactory } from '../../incident/replay.ts';
import { summarize } from '../../incident/report.ts';
import { describeSource, formatReport } from '../../incident/format.ts';
import { decodeWorkload, WORKLOAD_DEFAULTS, WORKLOAD_LIMITS, type Workload } from '../../incident/workload.ts';
import { readJsonFile } from '../read-input.ts';
import { checkOutputPath, rememberFile } from '../../trace/written.ts';
import { commandLine } from '../invocation.ts';
import { EXIT, UsageError } from '../errors.ts';
import { beginWork } from '../interrupt.ts';
import { createProgress } from '../progress.ts';
import { LogWriter, logAction } from '../../conformance/log-writer.ts';

/** The flags as commander hands them over. */
interface IncidentFlags {
  readonly variant: string;
  readonly allocator: string;
  readonly lengthRule?: string;
  readonly requests?: string;
  readonly seed?: string;
  readonly workload?: string;
  readonly inFlight?: string;
  readonly json?: boolean;
  readonly log?: string;
  readonly force?: boolean;
  readonly serving?: boolean;
  readonly prefixes?: string;
}

const HELP = `
Requests arrive in order, each from a different user, and are admitted as soon as a slot
and enough pages are free; prefill (or, for a prompt longer than P's memory, stub),
handoff, decode and free then interleave at times drawn from the seed, and a freed page
goes to the next allocation with its old contents. A response leaks when its decode reads
data written by another request.

Default mix (--workload replaces it):
  80% chat 200–8,000 tokens, 16.25% document 8,001–681,279 (both log-uniform),
  0.5% exactly 681,280 (the boundary), 0.25% exactly 681,281 (one token over),
  3% over-long 681,282–1,048,576 (uniform).

Workload file (JSON; every field optional; see examples/workload.json):
  {"requests": 100000, "inFlight": 64,
   "pageTokens": 64, "prefillTokens": 681280, "poolTokens": 1048576,
   "mix": [{"name": "chat", "weight": 80, "minTokens": 200, "maxTokens": 8000,
            "spread": "log-uniform"}, ...]}
  or "lengths": [681281, 2000, ...] instead of "mix": prompt lengths in tokens, replayed
  in order and cycled up to "requests" (default: the list's length).
  --requests and --in-flight override the file.

Allocators: sorted hands out the lowest free page ids; sglang is SGLang's P/D allocator
(ids 1..pages, page 0 the padding page; freed pages wait in a release list that is merged
and sorted into the free list when an allocation finds it short; with 64-token pages the
alloc_extend test on the prompt's tokens, tokens // 64 + 2 > free); lifo puts freed pages at the front (SGLang outside
P/D mode). See docs/ALLOCATOR.md.

Length rule: gt refuses (or, buggy, stubs) a prompt longer than P's memory; ge one at
least as long, as SGLang's validate_input_length does (len(input_ids) >= max_req_input_len).
The default is ge under --allocator sglang (SGLang as it is) and gt otherwise.

Exit codes: 0 no response leaked, 1 some response leaked (Isolation violated),
2 bad flag or workload file.`;

/** Registers the command. */
export function register(program: Command): void {
  program
    .command('incident')
    .description('replay the incident at real scale: a realistic workload through the TypedArray page pool')
    .option('--variant <name>', `${VARIANTS.join(' | ')}`, 'buggy')
    .option('--allocator <order>', `${POOL_ALLOCATORS.join(' | ')}: which free pages allocate hands out`, 'sorted')
    .option('--length-rule <rule>', 'gt | ge: refuse a prompt longer than P\'s memory, or at least as long (default ge under sglang, else gt)')
    .option('--requests <n>', `requests to replay (default ${WORKLOAD_DEFAULTS.requests.toLocaleString('en-US')})`)
    .option('--seed <s>', 'seed of the lengths and the schedule, 0 to 4294967295 (default 1)')
    .option('--workload <file>', 'workload file (JSON): your own mix or list of prompt lengths')
    .option('--in-flight <k>', `most requests in flight at once (default ${WORKLOAD_DEFAULTS.inFlight})`)
    .option('--json', 'print the report as JSON')
    .option('--log <file>', "write the replay's events to FILE in the log format of validate-log (JSON lines); never overwrites a file pagecheck did not write")
    .option('--force', 'overwrite --log even though pagecheck has no record of writing it')
    .option('--serving', "also take a serving deployment's steps: decode steps take pages at page boundaries, a step with no free page retracts its request until it can resume, some transfers time out and are aborted by P or are aborted at commit (the log then has every event validate-log reads)")
    .option('--prefixes <n>', "with --serving: n shared system prompts (prompt g is 1 + g % 3 whole pages); half the requests start with one, D's prefix cache is the radix tree (a hit allocates past the cached pages, the handoff inserts, an admission short of pages evicts unlocked leaves), and --log writes radix: true with the evict and insert events")
    .addHelpText('after', HELP)
    .action((flags: IncidentFlags) => {
      process.exitCode = run(flags);
    });
}

/** Runs the replay and prints the report; returns the exit code. */
function run(flags: IncidentFlags): number {
  // Before any work: a bad --log must not cost the replay, nor replace a user's file.
  if (flags.log !== undefined) checkOutputPath('--log', flags.log, flags.force === true);
  const variant = parseVariant(flags.variant);
  const allocator = parseChoice('--allocator', flags.allocator, POOL_ALLOCATORS);
  const lengthRule: LengthRule =
    flags.lengthRule === undefined ? (allocator === 'sglang' ? 'ge' : 'gt') : parseChoice('--length-rule', flags.lengthRule, ['gt', 'ge'] as const);
  const seed = parseWhole('--seed', flags.seed ?? '1', 0, 0xffffffff);
  const requests = flags.requests === undefined ? undefined : parseWhole('--requests', flags.requests, 1, WORKLOAD_LIMITS.maxRequests);
  const inFlight = flags.inFlight === undefined ? undefined : parseWhole('--in-flight', flags.inFlight, 1, WORKLOAD_LIMITS.maxInFlight);
  const workload = loadWorkload(flags.workload, {
    ...(requests === undefined ? {} : { requests }),
    ...(inFlight === undefined ? {} : { inFlight }),
  });
  const json = flags.json === true;
  const prefixes = flags.prefixes === undefined ? 0 : parseWhole('--prefixes', flags.prefixes, 1, 64);
  if (prefixes > 0 && flags.serving !== true) throw new UsageError('--prefixes needs --serving: the radix tree inserts at the handoff and evicts at admission, which only the serving replay takes');

  const progress = createProgress('incident | {done}/{requests} requests | {inFlight} in flight | {rate} req/s', json);
  let logged: PagePool | undefined;
  // The replay builds one pool, the one it reports on; the log reads that pool's state.
  const pool: PoolFactory = (options) => {
    const built = prefixes > 0 ? new ServingRadixPool(options) : new ServingPool(options);
    logged ??= built;
    return built;
  };
  const logPath = flags.log;
  const serving = flags.serving === true;
  const log = logPath === undefined ? undefined : openLog(logPath, workload, { variant, allocator, lengthRule, serving, prefixLengths: prefixLengthsOf(prefixes) });
  const started = performance.now();
  const work = beginWork('incident', ['requests', 'inFlight']);
  const result = replay({
    workload,
    variant,
    allocator,
    lengthRule,
    seed,
    pool,
    ...(serving ? { serving } : {}),
    ...(prefixes > 0 ? { prefixes } : {}),
    ...(log === undefined || logPath === undefined ? {} : { onAction: (a) => logged !== undefined && writingLog(logPath, () => logAction(log, logged!, a)) }),
    onProgress: (done, inFlightNow) => {
      work.report({ requests: done, inFlight: inFlightNow });
      const seconds = (performance.now() - started) / 1000;
      progress.update({ done, requests: workload.requests, inFlight: inFlightNow, rate: seconds > 0 ? Math.round(done / seconds) : 0 });
    },
  });
  progress.stop();
  if (log !== undefined && logPath !== undefined) {
    writingLog(logPath, () => log.close());
    rememberFile(logPath);
  }
  const report = summarize(result);
  if (json) process.stdout.write(`${JSON.stringify({ ...report, mix: describeSource(workload) }, null, 2)}\n`);
  else process.stdout.write(`${formatReport(report, workload, replayCommand(flags, report, workload))}\n`);
  return report.leaked > 0 ? EXIT.violation : EXIT.ok;
}

/** Runs a write to the event log; a failure (a full disk) is a usage error naming the file, not a stack trace. */
function writingLog<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (e) {
    if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
    throw new UsageError(`--log ${path}: cannot write (${(e as NodeJS.ErrnoException).code})`);
  }
}

/** Opens the event log, or a usage error naming the file. */
function openLog(path: string, workload: Workload, run: { readonly variant: Variant; readonly allocator: PoolAllocator; readonly lengthRule: 'gt' | 'ge'; readonly serving: boolean; readonly prefixLengths: readonly number[] }): LogWriter {
  try {
    return new LogWriter(path, { pages: workload.poolTokens / workload.pageTokens, pageSize: workload.pageTokens, prefillLimit: workload.prefillTokens / workload.pageTokens, ...run });
  } catch (e) {
    throw new UsageError(`--log ${path}: cannot write (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

/** The command line that replays this run exactly. */
function replayCommand(flags: IncidentFlags, report: { readonly variant: string; readonly seed: number; readonly allocator: string; readonly lengthRule: string }, workload: Workload): string {
  const file = flags.workload === undefined ? '' : ` --workload ${flags.workload}`;
  // The defaults stay implicit, so that today's replay lines read as before.
  const order = report.allocator === 'sorted' ? '' : ` --allocator ${report.allocator}`;
  const rule = report.lengthRule === (report.allocator === 'sglang' ? 'ge' : 'gt') ? '' : ` --length-rule ${report.lengthRule}`;
  const serving = flags.serving === true ? ` --serving${flags.prefixes === undefined ? '' : ` --prefixes ${flags.prefixes.trim()}`}` : '';
  return commandLine(`incident --variant ${report.variant}${order}${rule}${serving} --seed ${report.seed}${file} --requests ${workload.requests} --in-flight ${workload.inFlight}`);
}

/** A flag that names one of `choices`, or a usage error naming the flag and the value. */
function parseChoice<T extends string>(flag: string, text: string, choices: readonly T[]): T {
  const found = choices.find((c) => c === text);
  if (found === undefined) throw new UsageError(`${flag}: expected one of ${choices.join(', ')}, got ${JSON.stringify(text)}`);
  return found;
}

/** `--variant`, or a usage error naming the value. */
function parseVariant(text: string): Variant {
  const found = VARIANTS.find((v) => v === text);
  if (found === undefined) throw new UsageError(`--variant: expected one of ${VARIANTS.join(', ')}, got ${JSON.stringify(text)}`);
  return found;
}

/** A whole-number flag in `[min, max]`, or a usage error naming the flag and the value. */
function parseWhole(flag: string, text: string, min: number, max: number): number {
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** The workload: the file's (decoded with Schema) or the default, with the flags applied. */
function loadWorkload(path: string | undefined, overrides: { readonly requests?: number; readonly inFlight?: number }): Workload {
  const input = path === undefined ? {} : readJsonFile(path, 'workload file');
  const decoded = decodeWorkload(input, overrides);
  if (Either.isRight(decoded)) return decoded.right;
  const lines = decoded.left.map((i) => `${path ?? '(default workload)'}${i.path === '' ? '' : `: ${i.path}`}: ${i.message}`);
  throw new UsageError(`invalid workload file:\n  ${lines.join('\n  ')}`);
}
