/**
 * The checker against SPIN (issue 3, item 6): the same configuration explored completely,
 * breadth-first, without symmetry reduction, by pagecheck's checker and by SPIN's pan on
 * the generated Promela model, one after the other in one run, on one thread each.
 *
 * What is compared:
 * - throughput: distinct states per second, pagecheck's wall clock over `check()` against
 *   pan's own "rate" (its search only, compilation excluded); and, because the machines
 *   are shared, also states per CPU second on both sides (process.cpuUsage for pagecheck,
 *   /usr/bin/time for pan);
 * - memory: bytes per stored state (pagecheck's own accounting of its stores against pan's
 *   "total actual memory usage" divided by its states), and peak RSS of each process.
 * The two must find the same number of states, or the comparison is void.
 *
 * Runs standalone (`npx tsx bench/spin.ts` prints JSON) or from `npm run bench`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check } from '../checker/index.ts';
import { compile, configFrom, type Config } from '../spec/index.ts';
import { checkedModel } from '../binding/index.ts';
import { PAN_CFLAGS, buildPan, runPan, spinAvailable, type SpinResult } from '../spin/run.ts';

/**
 * The benchmark's configuration: the defended variant with every fault it must stop but
 * stale-free (whose double release breaks ExclusiveHold whatever the defence), 5 pages,
 * five requests of which two share a prefix. Every invariant holds, so both tools explore
 * the whole space: 11,784,698 states now that a finished request's table is reset
 * (spec/liveness.ts), the same on both sides (16,991,636 in the first encoding, which kept
 * dead tables).
 */
export const BENCH_CONFIG: Config = configFrom({
  pages: 5,
  prefillLimit: 2,
  requests: [{ length: 2 }, { length: 3, prefix: 's' }, { length: 2, prefix: 's' }, { length: 1 }, { length: 1 }],
  variant: 'owner-check',
  faults: ['silent-stub', 'early-free', 'prefix-poison'],
});


/** pan's hash table: 2^25 slots, at least one per state, so that SPIN is not slowed by collisions. */
const HASH_BITS = 25;

const MB = 2 ** 20;
const round = (x: number, digits = 3): number => Number(x.toPrecision(digits));
const log = (line: string): void => void process.stderr.write(`bench spin: ${line}\n`);

/** pagecheck's side: one complete search, timed, with the process's peak RSS. */
function measureChecker(): Record<string, number | string> {
  const m = compile(BENCH_CONFIG);
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = check(checkedModel(m), {
    symmetry: false,
    onProgress: () => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  peakRss = Math.max(peakRss, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  return {
    verdict: result.verdict,
    distinctStates: result.distinctStates,
    depth: result.depth,
    seconds: round(seconds, 4),
    cpuSeconds: round(cpuSeconds, 4),
    statesPerSecond: Math.round(result.distinctStates / seconds),
    statesPerCpuSecond: Math.round(result.distinctStates / cpuSeconds),
    bytesPerState: round(result.bytesPerState),
    peakRssMb: round(peakRss / MB, 4),
    baselineRssMb: round(baselineRss / MB, 4),
  };
}

/** SPIN's side, as pan reports it. */
function spinFigures(run: SpinResult, buildMs: number): Record<string, number | string | null> {
  const pan = run.pan;
  return {
    verdict: run.verdict,
    statesStored: pan.statesStored,
    depth: pan.depth,
    seconds: pan.elapsedSeconds,
    wallSeconds: round(run.runMs / 1000, 4),
    cpuSeconds: run.cpuSeconds === null ? null : round(run.cpuSeconds, 4),
    statesPerSecond: pan.statesPerSecond,
    statesPerCpuSecond: run.cpuSeconds === null ? null : Math.round(pan.statesStored / run.cpuSeconds),
    stateVectorBytes: pan.stateVectorBytes,
    bytesPerState: round((pan.memoryMb * MB) / pan.statesStored),
    totalMemoryMb: pan.memoryMb,
    hashTableMb: pan.hashTableMb,
    maxRssMb: run.maxRssBytes === null ? null : round(run.maxRssBytes / MB, 4),
    buildSeconds: round(buildMs / 1000),
    flags: `gcc -O2 ${PAN_CFLAGS.join(' ')}; pan -w${HASH_BITS}`,
  };
}

/** Runs both sides on {@link BENCH_CONFIG} and reports their figures and ratios (pagecheck over SPIN). */
export async function run(): Promise<Record<string, unknown>> {
  const config = { ...BENCH_CONFIG, requests: BENCH_CONFIG.requests.map((q) => `${q.length}${q.prefix === undefined ? '' : `:${q.prefix}`}`).join(',') };
  log('pagecheck: checking the whole space ...');
  const pagecheck = measureChecker();
  if (!spinAvailable()) return { config, pagecheck, spin: null, skipped: 'spin or gcc is not installed' };

  log('spin: generating and compiling pan ...');
  const build = buildPan(BENCH_CONFIG, { optimize: true, memoryLimitMb: 16384 });
  let spinRun: SpinResult;
  try {
    log('spin: running pan ...');
    spinRun = runPan(build, { hashBits: HASH_BITS });
  } finally {
    build.dispose();
  }
  const spin = spinFigures(spinRun, build.buildMs);

  const ratio = (a: unknown, b: unknown): number | null => (typeof a === 'number' && typeof b === 'number' && b > 0 ? round(a / b) : null);
  const ratios = {
    statesPerSecond: ratio(pagecheck['statesPerSecond'], spin['statesPerSecond']),
    statesPerCpuSecond: ratio(pagecheck['statesPerCpuSecond'], spin['statesPerCpuSecond']),
    bytesPerState: ratio(pagecheck['bytesPerState'], spin['bytesPerState']),
    peakRss: ratio(pagecheck['peakRssMb'], spin['maxRssMb']),
  };
  return {
    compared: 'complete breadth-first search without symmetry reduction, one thread each; pagecheck check() against SPIN pan (BFS, SAFETY) on the generated Promela model',
    config,
    agree: pagecheck['distinctStates'] === spin['statesStored'],
    pagecheck,
    spin,
    ratios,
    targets: {
      statesPerSecondAtLeast2x: ratios.statesPerSecond === null ? null : ratios.statesPerSecond >= 2,
      memoryAtMostQuarter: ratios.bytesPerState === null ? null : ratios.bytesPerState <= 0.25,
    },
  };
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
