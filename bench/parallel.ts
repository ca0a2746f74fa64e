/**
 * The parallel search's speed-up: `check --workers 1` against `--workers N` (N the
 * machine's cores) as whole processes of the compiled command on a configuration of 17,205,402 states (9 pages,
 * prefill limit 3, requests 1,2,2,3,3,4,5, `length-fix`, no symmetry), alternating 1 and N
 * so that both see the same load, a few rounds. The machine is shared: each run reports
 * its wall and CPU seconds, the load average is recorded before and after, and the
 * speed-up is the median over rounds of the ratio within a round.
 */
import { availableParallelism, loadavg } from 'node:os';
import { autoWorkers } from '../cli/commands/check.ts';
import { checkFigures, round } from './whole-process.ts';

const FLAGS = ['--pages', '9', '--prefill-limit', '3', '--requests', '1,2,2,3,3,4,5', '--variant', 'length-fix', '--no-symmetry', '--no-por'];
const ROUNDS = 5;
const log = (line: string): void => void process.stderr.write(`bench parallel: ${line}\n`);

/** One whole `check` process with `workers` threads. */
const run1 = (workers: number): Record<string, number | string> => checkFigures(FLAGS, workers, log);

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Runs the rounds and reports every run, the speed-ups and whether every run found the same. */
export async function run(): Promise<Record<string, unknown>> {
  const cores = availableParallelism();
  const loadBefore = loadavg().map((x) => round(x));
  const rounds: { one: Record<string, number | string>; many: Record<string, number | string>; load: number; defaultWorkers: number }[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    // What `check` without --workers would take now (the cores the load average leaves free).
    const load = round(loadavg()[0] ?? 0);
    log(`round ${k + 1} (load ${load}): --workers 1 ...`);
    const one = run1(1);
    log(`round ${k + 1}: --workers ${cores} ...`);
    const many = run1(cores);
    rounds.push({ one, many, load, defaultWorkers: autoWorkers(cores, load) });
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
