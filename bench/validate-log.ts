/**
 * The validator's throughput, on two logs of about 1,000,000 events each, both written by
 * the incident replay: the plain one (owner-check, the default mix, seed 7: the handoff's
 * six events), and a serving one (`incident --serving`: owner-check under `--allocator
 * sglang`, seed 7), whose lines are mostly the events issue 25 added: decode steps that
 * take pages (`grow`, and the `decode` step that reads it), releases in SGLang's calls,
 * retractions and resumes, P's aborts, commit-time aborts; and a radix one (`incident
 * --serving --prefixes 4`, the same otherwise), which adds the radix tree's kinds: prefix
 * hits, `evict` lines, `insert` at the handoff. Reports wall and CPU time (the
 * machines are shared, and CPU time is the steadier figure), the events of each kind, and
 * whether the serving and radix logs took under the 10 seconds issue 25 asks for, in wall
 * time and in CPU time (a loaded shared machine stretches the first). Run directly
 * (`npx tsx bench/validate-log.ts --scale 0.01`) it prints the figures of logs that
 * fraction of the size and writes no results; `--help` says so.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validate } from '../conformance/index.ts';
import { LogWriter, logAction } from '../conformance/log-writer.ts';
import { ServingPool } from '../impl/index.ts';
import { ServingRadixPool } from '../impl/serving-radix-pool.ts';
import { prefixLengthsOf } from '../incident/arrivals.ts';
import { replay } from '../incident/replay.ts';
import { defaultWorkload } from '../incident/workload.ts';

/** Requests that make about seven events each: 1,001,001 lines with the config event. */
const REQUESTS = 143_000;

/** Requests of the serving replay that make about a million lines (about 28 each). */
const SERVING_REQUESTS = 36_000;

/** Requests of the radix replay that make about a million lines (about 30 each). */
const RADIX_REQUESTS = 34_000;

/** The system prompts of the radix replay (`--prefixes 4`). */
const PREFIXES = 4;

/** The event kinds issue 25 added (the radix tree's too), and the decode steps after the first, which growth brings. */
const NEW_KINDS = ['allocFail', 'grow', 'retract', 'resume', 'abort', 'abortCommit', 'evict', 'insert'];

/** Writes the replay's log to `file`: the plain replay, the serving one, or the serving one with shared prefixes under the radix tree. */
function writeLog(file: string, requests: number, kind: 'plain' | 'serving' | 'radix'): void {
  const workload = defaultWorkload({ requests });
  const serving = kind !== 'plain';
  const prefixLengths = kind === 'radix' ? prefixLengthsOf(PREFIXES) : [];
  const allocator = serving ? 'sglang' : 'sorted';
  const header = { pages: workload.poolTokens / workload.pageTokens, pageSize: workload.pageTokens, prefillLimit: workload.prefillTokens / workload.pageTokens, variant: 'owner-check' as const, allocator, ...(serving ? { lengthRule: 'ge' as const, serving, prefixLengths } : {}) } as const;
  const log = new LogWriter(file, header);
  let logged: ServingPool | undefined;
  replay({
    workload,
    variant: 'owner-check',
    seed: 7,
    allocator,
    ...(serving ? { lengthRule: 'ge' as const, serving } : {}),
    ...(kind === 'radix' ? { prefixes: PREFIXES } : {}),
    pool: (o) => (logged ??= kind === 'radix' ? new ServingRadixPool(o) : new ServingPool(o)),
    onAction: (a) => logged !== undefined && logAction(log, logged, a),
  });
  log.close();
}

/** The events of each kind in the log, and how many are of the new kinds (a decode step after the first counted among them). */
function kinds(file: string): { byKind: Record<string, number>; newKinds: number } {
  const byKind: Record<string, number> = {};
  let newKinds = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const kind = /"kind":"(\w+)"/.exec(line)?.[1];
    if (kind === undefined) continue;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    if (NEW_KINDS.includes(kind) || (kind === 'decode' && line.includes('"step"')) || kind === 'free') newKinds++;
  }
  return { byKind, newKinds };
}

/** Validates the log: the verdict, the time and the rate. */
function measure(file: string): Record<string, unknown> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = validate({ files: [file], overrides: {}, window: 128 });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  return {
    verdict: result.verdict,
    events: result.events,
    requests: result.requests,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round(cpuMs),
    eventsPerSecond: Math.round(result.events / (wallMs / 1000)),
    eventsPerCpuSecond: Math.round(result.events / (cpuMs / 1000)),
  };
}

/** Writes the serving (or radix) log of `requests`, validates it, and reports its figures with its kinds and the 10-second verdicts. */
function measureNew(dir: string, requests: number, kind: 'serving' | 'radix'): Record<string, unknown> {
  const file = join(dir, `${kind}.jsonl`);
  writeLog(file, requests, kind);
  const measured = measure(file);
  const { byKind, newKinds } = kinds(file);
  return { ...measured, newKindEvents: newKinds, byKind, underTenSecondsWall: (measured['wallMs'] as number) < 10_000, underTenSecondsCpu: (measured['cpuMs'] as number) < 10_000 };
}

/** Writes the three logs (their requests times `scale`) and validates them. */
export async function run(scale = 1): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-bench-'));
  const n = (requests: number): number => Math.max(1, Math.round(requests * scale));
  try {
    const plain = join(dir, 'replay.jsonl');
    writeLog(plain, n(REQUESTS), 'plain');
    return { ...measure(plain), serving: measureNew(dir, n(SERVING_REQUESTS), 'serving'), radix: measureNew(dir, n(RADIX_REQUESTS), 'radix') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Run directly: `--help`, or `--scale X` (default 1) printing the figures and writing no results file. */
async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--help')) {
    process.stdout.write('usage: npx tsx bench/validate-log.ts [--scale X]\n  validates three replay logs of about 1,000,000 events each (plain, serving, radix), their requests times X (default 1), and prints the figures; `npm run bench -- validate-log` runs it at full size and records them in bench/results.json\n');
    return;
  }
  const at = args.indexOf('--scale');
  const scale = at < 0 ? 1 : Number(args[at + 1]);
  if (!(scale > 0 && scale <= 1)) throw new Error(`--scale: expected a number in (0, 1], got ${JSON.stringify(args[at + 1])}`);
  process.stdout.write(`${JSON.stringify(await run(scale), null, 2)}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
