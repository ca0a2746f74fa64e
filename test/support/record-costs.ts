/**
 * Records each test file's CPU cost in test/support/costs.json, which orders the suite
 * (sequencer.ts), from a log of test/support/file-cost.ts:
 *
 *     PAGECHECK_TEST_COST_LOG=/tmp/costs.jsonl npm test
 *     npx tsx test/support/record-costs.ts /tmp/costs.jsonl
 *
 * A file in the log gets its new cost (CPU of its process and of its children, in whole
 * seconds, at least 1); a file not in it keeps its old one; a file that no longer exists is
 * dropped. Only the order depends on these figures, never a result.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COSTS_FILE, readCosts } from './sequencer.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The costs of `old` updated with the lines of a cost log, sorted by path. */
export function merged(old: Readonly<Record<string, number>>, log: string, exists: (file: string) => boolean): Record<string, number> {
  const costs: Record<string, number> = { ...old };
  for (const line of log.split('\n')) {
    if (line.trim() === '') continue;
    const c = JSON.parse(line) as { file: string; cpuMs: number; childCpuMs?: number };
    costs[c.file] = Math.max(1, Math.round((c.cpuMs + (c.childCpuMs ?? 0)) / 1000));
  }
  return Object.fromEntries(Object.entries(costs).filter(([file]) => exists(file)).sort(([a], [b]) => (a < b ? -1 : 1)));
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const logs = process.argv.slice(2);
  if (logs.length === 0) {
    process.stderr.write('usage: npx tsx test/support/record-costs.ts COST_LOG.jsonl...\n');
    process.exit(2);
  }
  let costs: Record<string, number> = { ...readCosts() };
  for (const log of logs) costs = merged(costs, readFileSync(log, 'utf8'), (f) => existsSync(join(ROOT, f)));
  writeFileSync(COSTS_FILE, `${JSON.stringify(costs, null, 2)}\n`);
  process.stdout.write(`${Object.keys(costs).length} files in ${COSTS_FILE}\n`);
}
