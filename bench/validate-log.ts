/**
 * The validator's throughput, on two logs of about 1,000,000 events each, both written by
 * the incident replay: the plain one (owner-check, the default mix, seed 7: the handoff's
 * six events), and a serving one (`incident --serving`: owner-check under `--allocator
 * sglang`, seed 7), whose lines are mostly the events issue 25 added: decode steps that
 * take pages (`grow`, and the `decode` step that reads it), releases in SGLang's calls,
 * retractions and resumes, P's aborts, commit-time aborts. Reports wall and CPU time (the
 * machines are shared, and CPU time is the steadier figure), the events of each kind, and
 * whether the serving log took under the 10 seconds issue 25 asks for, in wall time and in
 * CPU time (a loaded shared machine stretches the first).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../conformance/index.ts';
import { LogWriter, logAction } from '../conformance/log-writer.ts';
import { ServingPool } from '../impl/index.ts';
import { replay } from '../incident/replay.ts';
import { defaultWorkload } from '../incident/workload.ts';

/** Requests that make about seven events each: 1,001,001 lines with the config event. */
const REQUESTS = 143_000;

/** Requests of the serving replay that make about a million lines (about 28 each). */
const SERVING_REQUESTS = 36_000;

/** The event kinds issue 25 added, and the decode steps after the first, which growth brings. */
const NEW_KINDS = ['allocFail', 'grow', 'retract', 'resume', 'abort', 'abortCommit'];

/** Writes the replay's log to `file`. */
function writeLog(file: string, requests: number, serving: boolean): void {
  const workload = defaultWorkload({ requests });
  const allocator = serving ? 'sglang' : 'sorted';
  const header = { pages: workload.poolTokens / workload.pageTokens, pageSize: workload.pageTokens, prefillLimit: workload.prefillTokens / workload.pageTokens, variant: 'owner-check' as const, allocator, ...(serving ? { lengthRule: 'ge' as const, serving } : {}) } as const;
  const log = new LogWriter(file, header);
  let logged: ServingPool | undefined;
  replay({
    workload,
    variant: 'owner-check',
    seed: 7,
    allocator,
    ...(serving ? { lengthRule: 'ge' as const, serving } : {}),
    pool: (o) => (logged ??= new ServingPool(o)),
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

/** Writes both logs and validates them. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-bench-'));
  try {
    const plain = join(dir, 'replay.jsonl');
    writeLog(plain, REQUESTS, false);
    const serving = join(dir, 'serving.jsonl');
    writeLog(serving, SERVING_REQUESTS, true);
    const measured = measure(serving);
    const { byKind, newKinds } = kinds(serving);
    return {
      ...measure(plain),
      serving: { ...measured, newKindEvents: newKinds, byKind, underTenSecondsWall: (measured['wallMs'] as number) < 10_000, underTenSecondsCpu: (measured['cpuMs'] as number) < 10_000 },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
