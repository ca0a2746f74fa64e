/**
 * pagecheck against SPIN under the owner check (issue 26, item 2), on the hand-written
 * Promela model spin/handwritten/owner-check.pml (a process per request, written as a SPIN
 * user would; its agreement on small configurations is test/spin/handwritten-owner.test.ts).
 * Two pairs, each a configuration of more than 10M states whose faults make the variant's
 * defences act, with the same count on both sides:
 * - `owner-check`, 7 pages, prefill limit 2, requests 1,2,2,3,3, faults silent-stub and
 *   early-free: the stub's pages fail decode's tag check, and so does a page a timed-out
 *   request's late write stamped after a new holder took it (11,408,562 states);
 * - `hardened`, 6 pages, prefill limit 2, requests 2,1,3,1, faults silent-stub, early-free,
 *   stale-free and torn-write: revoke-writer drops a timed-out request's parts in flight and
 *   release-checks-holder keeps a stale release off another's pages (12,664,176 states).
 *
 * Each side runs as a whole process, one thread, start to verdict, the sides alternating
 * (pagecheck, SPIN, pagecheck, SPIN): pagecheck's compiled command `check --no-symmetry
 * --no-por --json --workers 1`, and SPIN's `spin -o2 -a` + gcc -O2 + pan (BFS, SAFETY,
 * NOREDUCE; -o2 keeps the model's write-only read records, which pagecheck's state keeps
 * too). Reported: states per second of the search (as each tool reports it), of the whole
 * process, and per CPU second (the honest figure on a shared machine), bytes per state,
 * peak RSS, and the load average before and after.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configFrom, type Fault, type Variant } from '../spec/index.ts';
import { buildPanFromFile, spinAvailable } from '../spin/run.ts';
import { checkFigures, panFigures, round } from './whole-process.ts';

/** One benchmark configuration: the spec's, and the model's -D switches that stand for it. */
interface Pair {
  readonly variant: Variant;
  readonly pages: number;
  readonly lengths: readonly number[];
  readonly faults: readonly Fault[];
  readonly switches: readonly string[];
}

/** The two configurations, named as the pairs are reported. */
export const PAIRS: Readonly<Record<string, Pair>> = {
  'owner-check': { variant: 'owner-check', pages: 7, lengths: [1, 2, 2, 3, 3], faults: ['silent-stub', 'early-free'], switches: ['SILENT_STUB', 'EARLY_FREE'] },
  hardened: {
    variant: 'hardened',
    pages: 6,
    lengths: [2, 1, 3, 1],
    faults: ['silent-stub', 'early-free', 'stale-free', 'torn-write'],
    switches: ['SILENT_STUB', 'EARLY_FREE', 'STALE_FREE', 'TORN', 'HARDENED'],
  },
};

const LIMIT = 2;
const MODEL = fileURLToPath(new URL('../spin/handwritten/owner-check.pml', import.meta.url));
const log = (line: string): void => void process.stderr.write(`bench handwritten-owner: ${line}\n`);

/** The `check` flags of a pair. */
const flagsOf = (p: Pair): string[] => [
  ...['--variant', p.variant, '--faults', p.faults.join(','), '--pages', `${p.pages}`, '--prefill-limit', `${LIMIT}`],
  ...['--requests', p.lengths.join(','), '--no-symmetry', '--no-por'],
];

/** The model's defines of a pair. */
function definesOf(p: Pair): Record<string, number> {
  const defines: Record<string, number> = { PAGES: p.pages, LIMIT, N: p.lengths.length, MAXLEN: Math.max(...p.lengths) };
  for (let i = 0; i < 7; i++) defines[`L${i}`] = p.lengths[i] ?? 0;
  for (const s of p.switches) defines[s] = 1;
  return defines;
}

/** SPIN on the hand-written model: compile (-O2), then run pan, one thread. */
function spin(p: Pair): Record<string, number | string | null> {
  log(`spin ${p.variant}: compiling the hand-written model ...`);
  const config = configFrom({ pages: p.pages, prefillLimit: LIMIT, requests: p.lengths.map((length) => ({ length })), variant: p.variant, faults: [...p.faults] });
  const build = buildPanFromFile(MODEL, config, definesOf(p), { optimize: true, memoryLimitMb: 16384, keepGhosts: true });
  return panFigures(build, log);
}

const ratio = (a: unknown, b: unknown): number | null => (typeof a === 'number' && typeof b === 'number' && b > 0 ? round(a / b) : null);

/** pagecheck's figures over SPIN's: above 1 is pagecheck faster (or, for memory, bigger). */
const ratios = (mine: Record<string, unknown>, s: Record<string, unknown>): Record<string, number | null> => ({
  statesPerSecond: ratio(mine['statesPerSecond'], s['statesPerSecond']),
  statesPerCpuSecond: ratio(mine['statesPerCpuSecond'], s['statesPerCpuSecond']),
  processStatesPerSecond: ratio(mine['processStatesPerSecond'], s['processStatesPerSecond']),
  bytesPerState: ratio(mine['bytesPerState'], s['bytesPerState']),
  peakRss: ratio(mine['peakRssMb'], s['peakRssMb']),
});

/** One pair, pagecheck first, then SPIN. */
function runPair(p: Pair): Record<string, unknown> {
  log(`pagecheck ${p.variant} --workers 1 ...`);
  const mine = checkFigures(flagsOf(p), 1, log);
  if (!spinAvailable()) return { config: flagsOf(p).join(' '), pagecheck: mine, spin: null, skipped: 'spin or gcc is not installed' };
  const s = spin(p);
  return { config: flagsOf(p).join(' '), agree: mine['distinctStates'] === s['statesStored'] && mine['verdict'] === s['verdict'], pagecheck: mine, spin: s, ratios: ratios(mine, s) };
}

/** Runs both pairs, the sides alternating, and reports their figures and ratios. */
export async function run(): Promise<Record<string, unknown>> {
  const before = loadavg().map((x) => round(x));
  const pairs = Object.fromEntries(Object.entries(PAIRS).map(([name, p]) => [name, runPair(p)]));
  return {
    compared: 'complete breadth-first search, no symmetry, no partial-order reduction, one thread, whole processes alternating; pagecheck check against SPIN pan (BFS, SAFETY, NOREDUCE, -O2) on spin/handwritten/owner-check.pml',
    loadAverage: { before, after: loadavg().map((x) => round(x)) },
    pairs,
  };
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
