/**
 * The validator's throughput: a log of about 1,000,000 events written by the incident
 * replay (owner-check, the default mix, seed 7), then `validate-log`'s engine over it.
 * Reports wall and CPU time: the machines are shared, and CPU time is the steadier figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '../conformance/index.ts';
import { LogWriter, logAction } from '../conformance/log-writer.ts';
import { PagePool } from '../impl/index.ts';
import { replay } from '../incident/replay.ts';
import { defaultWorkload } from '../incident/workload.ts';

/** Requests that make about seven events each: 1,001,001 lines with the config event. */
const REQUESTS = 143_000;

/** Writes the log and validates it. */
export async function run(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-bench-'));
  const file = join(dir, 'replay.jsonl');
  try {
    const workload = defaultWorkload({ requests: REQUESTS });
    const log = new LogWriter(file, { pages: workload.poolTokens / workload.pageTokens, pageSize: workload.pageTokens, prefillLimit: workload.prefillTokens / workload.pageTokens, variant: 'owner-check' });
    let logged: PagePool | undefined;
    replay({
      workload,
      variant: 'owner-check',
      seed: 7,
      pool: (o) => {
        const p = new PagePool(o);
        logged ??= p;
        return p;
      },
      onAction: (a) => logged !== undefined && logAction(log, logged, a),
    });
    log.close();
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
