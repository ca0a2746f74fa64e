/**
 * Start-up (issues 12 and 28): a cold `pagecheck check` with no flags (the minimal
 * incident) as a whole process, from the compiled command (`dist/cli/bin.js`, the bundle
 * users install), beside `node -e 0` (what no command can beat) and SPIN's compile and run
 * of the same model (spin -a, gcc, pan, the trail's replay). The three run in turn, several
 * times; each side's figure is its median wall time (min and max show the machine's
 * noise), and the ratios are of medians from this one run. The load average before and
 * after says whether the machine was idle.
 *
 * Runs standalone (`npx tsx bench/startup.ts` prints JSON) or from `npm run bench -- startup`.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFrom } from '../spec/index.ts';
import { buildPan, runPan, spinAvailable } from '../spin/run.ts';
import { compiledPagecheck } from './whole-process.ts';

/** The command measured: `check` with no flags, which checks the minimal incident. */
export const STARTUP_ARGS = ['check'] as const;

/** How many timed runs of each side (after one warm-up of each that is not counted). */
const RUNS = 9;

/** The issue's target for pagecheck's median wall time, on an idle machine. */
const TARGET_SECONDS = 0.3;

const round = (x: number, digits = 3): number => Number(x.toPrecision(digits));
const log = (line: string): void => void process.stderr.write(`bench startup: ${line}\n`);

/** Min, median and max of some seconds. */
function spread(seconds: readonly number[]): { min: number; median: number; max: number } {
  const sorted = [...seconds].sort((a, b) => a - b);
  return { min: round(sorted[0] ?? NaN), median: round(sorted[Math.floor(sorted.length / 2)] ?? NaN), max: round(sorted.at(-1) ?? NaN) };
}

/** One whole `node dist/cli/bin.js check`, in seconds; it must print the leak and exit 1. */
function pagecheckOnce(bin: string): number {
  const started = performance.now();
  const ran = spawnSync(process.execPath, [bin, ...STARTUP_ARGS], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const seconds = (performance.now() - started) / 1000;
  if (ran.status !== 1 || !ran.stdout.includes('VIOLATION of Isolation')) {
    throw new Error(`pagecheck ${STARTUP_ARGS.join(' ')} did not print the leak (exit ${ran.status}): ${ran.stderr.slice(0, 500)}`);
  }
  return seconds;
}

/** One whole `node -e 0`, in seconds: Node's own start-up and exit. */
function nodeOnce(): number {
  const started = performance.now();
  const ran = spawnSync(process.execPath, ['-e', '0']);
  if (ran.status !== 0) throw new Error(`node -e 0 exited ${ran.status}`);
  return (performance.now() - started) / 1000;
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

/** Times the three sides in turn and reports their spreads and the ratios of medians. */
export async function run(): Promise<Record<string, unknown>> {
  const bin = compiledPagecheck(log);
  const spin = spinAvailable();
  if (!spin) log('spin or gcc is not installed: SPIN is left out (apt-get install -y spin gcc)');
  const loadBefore = round(loadavg()[0] ?? NaN);
  pagecheckOnce(bin);
  nodeOnce();
  if (spin) spinOnce();
  const ours: number[] = [];
  const bare: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    ours.push(pagecheckOnce(bin));
    bare.push(nodeOnce());
    if (spin) theirs.push(spinOnce());
  }
  const pagecheck = spread(ours);
  const node = spread(bare);
  const spinFigures = spin ? spread(theirs) : null;
  log(`pagecheck median ${pagecheck.median} s, node -e 0 ${node.median} s${spinFigures === null ? ', SPIN not installed' : `, SPIN median ${spinFigures.median} s`}`);
  return {
    compared: `whole process, wall seconds, median of ${RUNS} in turn: node dist/cli/bin.js ${STARTUP_ARGS.join(' ')} (the minimal incident), node -e 0, and spin -a + gcc -O2 + pan + trail replay of the same model`,
    pagecheckSeconds: pagecheck,
    nodeSeconds: node,
    spinSeconds: spinFigures ?? 'spin is not installed',
    ratios: {
      pagecheckToNode: round(pagecheck.median / node.median),
      pagecheckToSpin: spinFigures === null ? null : round(pagecheck.median / spinFigures.median),
    },
    loadAverage: { before: loadBefore, after: round(loadavg()[0] ?? NaN) },
    targets: { underThreeTenthsOfASecond: pagecheck.median < TARGET_SECONDS },
  };
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
