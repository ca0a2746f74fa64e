/**
 * Start-up (issue 12): a cold `pagecheck check` of the minimal configuration as a whole
 * process, from the compiled command (`dist/cli/bin.js`), beside SPIN's compile and run of
 * the same model (spin -a, gcc, pan, the trail's replay). Each side runs several times in
 * turn; the median wall time is the figure, min and max show the machine's noise.
 *
 * Runs standalone (`npx tsx bench/startup.ts` prints JSON) or from `npm run bench`.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFrom } from '../spec/index.ts';
import { buildPan, runPan, spinAvailable } from '../spin/run.ts';
import { compiledPagecheck } from './whole-process.ts';

/** The command measured: the minimal incident, as the issue names it. */
export const STARTUP_ARGS = ['check', '--variant', 'buggy', '--pages', '3', '--prefill-limit', '2', '--requests', '2,3'] as const;

/** How many timed runs of each side (after one warm-up of each that is not counted). */
const RUNS = 7;

/** The issue's target for pagecheck's median wall time. */
const TARGET_SECONDS = 0.5;

const round = (x: number, digits = 3): number => Number(x.toPrecision(digits));
const log = (line: string): void => void process.stderr.write(`bench startup: ${line}\n`);

/** Min, median and max of some seconds. */
function spread(seconds: readonly number[]): { min: number; median: number; max: number } {
  const sorted = [...seconds].sort((a, b) => a - b);
  return { min: round(sorted[0] ?? NaN), median: round(sorted[Math.floor(sorted.length / 2)] ?? NaN), max: round(sorted.at(-1) ?? NaN) };
}

/** One whole `node dist/cli/bin.js check ...`, in seconds; it must print the leak and exit 1. */
function pagecheckOnce(bin: string): number {
  const started = performance.now();
  const ran = spawnSync(process.execPath, [bin, ...STARTUP_ARGS], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const seconds = (performance.now() - started) / 1000;
  if (ran.status !== 1 || !ran.stdout.includes('VIOLATION of Isolation')) {
    throw new Error(`pagecheck ${STARTUP_ARGS.join(' ')} did not print the leak (exit ${ran.status}): ${ran.stderr.slice(0, 500)}`);
  }
  return seconds;
}

/** SPIN's whole compile and run of the same model, in seconds. */
function spinOnce(): number {
  const config = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant: 'buggy' });
  const started = performance.now();
  const build = buildPan(config);
  try {
    const result = runPan(build);
    if (result.verdict !== 'violation') throw new Error(`SPIN found no violation on the minimal incident (${result.verdict})`);
  } finally {
    build.dispose();
  }
  return (performance.now() - started) / 1000;
}

/** Times both sides, alternating, and reports their spreads and the ratio of medians. */
export async function run(): Promise<Record<string, unknown>> {
  const bin = compiledPagecheck(log);
  const spin = spinAvailable();
  pagecheckOnce(bin);
  if (spin) spinOnce();
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    ours.push(pagecheckOnce(bin));
    if (spin) theirs.push(spinOnce());
  }
  const pagecheck = spread(ours);
  const spinFigures = spin ? spread(theirs) : null;
  log(`pagecheck median ${pagecheck.median} s${spinFigures === null ? '' : `, SPIN median ${spinFigures.median} s`}`);
  return {
    compared: `whole process, wall seconds, median of ${RUNS}: node dist/cli/bin.js ${STARTUP_ARGS.join(' ')} against spin -a + gcc -O2 + pan + trail replay of the same model`,
    pagecheckSeconds: pagecheck,
    spinSeconds: spinFigures,
    ratio: spinFigures === null ? null : round(pagecheck.median / spinFigures.median),
    targets: { underHalfSecond: pagecheck.median < TARGET_SECONDS },
  };
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
