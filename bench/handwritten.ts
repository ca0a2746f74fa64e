/**
 * pagecheck against SPIN on a Promela model nobody here tuned: spin/handwritten/length-fix.pml,
 * written as a SPIN user would, on 9 pages, prefill limit 3, requests 1,2,2,3,3,4,5 under
 * `length-fix`: 17,205,402 states, the same count on both sides (the hand-written model's
 * agreement on smaller configurations is a test, test/spin/handwritten.test.ts).
 *
 * Each side runs as a whole process, start to verdict, under /usr/bin/time: pagecheck's
 * compiled command, `check --no-symmetry --json` with 1 worker and with one per core, and SPIN's
 * `spin -a` + gcc + pan (BFS, SAFETY). Reported: states per second (of the search, as each
 * tool reports it, and of the whole process), bytes per state, peak RSS, CPU seconds.
 * The machine is shared, so CPU seconds are given beside wall time.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFrom } from '../spec/index.ts';
import { buildPanFromFile, spinAvailable } from '../spin/run.ts';
import { checkFigures, panFigures, round } from './whole-process.ts';

/** The configuration, as `check` flags and as the hand-written model's defines. */
const FLAGS = ['--pages', '9', '--prefill-limit', '3', '--requests', '1,2,2,3,3,4,5', '--variant', 'length-fix', '--no-symmetry', '--no-por'];
const LENGTHS = [1, 2, 2, 3, 3, 4, 5];
const MODEL = fileURLToPath(new URL('../spin/handwritten/length-fix.pml', import.meta.url));
const log = (line: string): void => void process.stderr.write(`bench handwritten: ${line}\n`);

/** pagecheck as a whole process (the compiled command) with `workers` threads. */
function pagecheck(workers: number): Record<string, number | string> {
  log(`pagecheck --workers ${workers} ...`);
  return checkFigures(FLAGS, workers, log);
}

/** SPIN on the hand-written model: compile, then run pan. */
function spin(): Record<string, number | string | null> {
  log('spin: compiling the hand-written model ...');
  const defines: Record<string, number> = { PAGES: 9, LIMIT: 3, N: LENGTHS.length, MAXLEN: 5 };
  LENGTHS.forEach((l, i) => (defines[`L${i}`] = l));
  const config = configFrom({ pages: 9, prefillLimit: 3, requests: LENGTHS.map((length) => ({ length })), variant: 'length-fix' });
  const build = buildPanFromFile(MODEL, config, defines, { optimize: true, memoryLimitMb: 16384 });
  return panFigures(build, log);
}

/** Runs the three and reports their figures and ratios (pagecheck over SPIN). */
export async function run(): Promise<Record<string, unknown>> {
  const cores = availableParallelism();
  const one = pagecheck(1);
  const many = pagecheck(cores);
  if (!spinAvailable()) return { pagecheck: [one, many], spin: null, skipped: 'spin or gcc is not installed' };
  const s = spin();
  const ratio = (a: unknown, b: unknown): number | null => (typeof a === 'number' && typeof b === 'number' && b > 0 ? round(a / b) : null);
  const ratios = (p: Record<string, unknown>) => ({
    statesPerSecond: ratio(p['statesPerSecond'], s['statesPerSecond']),
    statesPerCpuSecond: ratio(p['statesPerCpuSecond'], s['statesPerCpuSecond']),
    processStatesPerSecond: ratio(p['processStatesPerSecond'], s['processStatesPerSecond']),
    bytesPerState: ratio(p['bytesPerState'], s['bytesPerState']),
    peakRss: ratio(p['peakRssMb'], s['peakRssMb']),
  });
  return {
    compared: 'complete breadth-first search without symmetry reduction; whole processes; pagecheck check against SPIN pan (BFS, SAFETY, -O2) on spin/handwritten/length-fix.pml',
    config: FLAGS.join(' '),
    agree: one['distinctStates'] === s['statesStored'] && many['distinctStates'] === s['statesStored'],
    cores,
    pagecheck: { oneWorker: one, allCores: many },
    spin: s,
    ratios: { oneWorker: ratios(one), allCores: ratios(many), speedupOfAllCores: ratio(many['statesPerSecond'], one['statesPerSecond']) },
  };
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
