/**
 * The parallel search's speed-up: `check --workers 1` against `--workers N` (N the
 * machine's cores) as whole processes on a configuration of 17,205,402 states (9 pages,
 * prefill limit 3, requests 1,2,2,3,3,4,5, `length-fix`, no symmetry), alternating 1 and N
 * so that both see the same load, a few rounds. The machine is shared: each run reports
 * its wall and CPU seconds, the load average is recorded before and after, and the
 * speed-up is the median over rounds of the ratio within a round.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FLAGS = ['--pages', '9', '--prefill-limit', '3', '--requests', '1,2,2,3,3,4,5', '--variant', 'length-fix', '--no-symmetry'];
const ROUNDS = 2;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const round = (x: number, digits = 3): number => Number(x.toPrecision(digits));
const log = (line: string): void => void process.stderr.write(`bench parallel: ${line}\n`);

/** One whole `check` process with `workers` threads, under /usr/bin/time. */
function run1(workers: number): Record<string, number | string> {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-bench-'));
  try {
    const usage = join(dir, 'usage.txt');
    const r = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', '-o', usage, 'node', '--import', 'tsx', 'cli/main.ts', 'check', ...FLAGS, '--workers', `${workers}`, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    if (r.status !== 0) throw new Error(`check --workers ${workers} failed (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
    const [wall = NaN, rssKb = NaN, user = NaN, sys = NaN] = (readFileSync(usage, 'utf8').trim().split('\n').at(-1) ?? '').split(' ').map(Number);
    const json = JSON.parse(r.stdout) as { verdict: string; distinctStates: number; elapsedMs: number; statesPerSecond: number; bytesPerState: number };
    return {
      workers,
      verdict: json.verdict,
      distinctStates: json.distinctStates,
      searchSeconds: round(json.elapsedMs / 1000, 4),
      statesPerSecond: json.statesPerSecond,
      processSeconds: round(wall, 4),
      cpuSeconds: round(user + sys, 4),
      // CPU seconds per wall second: below the workers' number, the process waited for cores (a shared machine) or at barriers.
      coresUsed: round((user + sys) / wall),
      bytesPerState: json.bytesPerState,
      peakRssMb: round((rssKb * 1024) / 2 ** 20, 4),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Runs the rounds and reports every run, the speed-ups and whether every run found the same. */
export async function run(): Promise<Record<string, unknown>> {
  const cores = availableParallelism();
  const loadBefore = loadavg().map((x) => round(x));
  const rounds: { one: Record<string, number | string>; many: Record<string, number | string> }[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    log(`round ${k + 1}: --workers 1 ...`);
    const one = run1(1);
    log(`round ${k + 1}: --workers ${cores} ...`);
    const many = run1(cores);
    rounds.push({ one, many });
  }
  const ratio = (key: string): number => round(median(rounds.map((r) => Number(r.one[key]) / Number(r.many[key]))));
  const all = rounds.flatMap((r) => [r.one, r.many]);
  return {
    compared: `check ${FLAGS.join(' ')} --workers 1 against --workers ${cores}, whole processes, alternating, ${ROUNDS} rounds`,
    cores,
    loadAverage: { before: loadBefore, after: loadavg().map((x) => round(x)) },
    agree: all.every((r) => r['distinctStates'] === all[0]!['distinctStates'] && r['verdict'] === all[0]!['verdict']),
    rounds,
    speedup: {
      search: ratio('searchSeconds'),
      process: ratio('processSeconds'),
      cpuOverhead: round(median(rounds.map((r) => Number(r.many['cpuSeconds']) / Number(r.one['cpuSeconds'])))),
    },
  };
}
