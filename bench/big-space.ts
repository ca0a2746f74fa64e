/**
 * A big space (issue 26, item 3): a configuration of more than 200M distinct states
 * checked exhaustively by one thread in this machine's 24 GB, its queue and parent links
 * spilled to a temp file past their memory budget (checker/spill.ts), beside SPIN on the
 * same model with hash compaction (-DHC4), which SPIN runs depth-first: its breadth-first
 * search keeps the whole frontier as full state vectors (97 bytes a state with HC4 on 6
 * pages 1,2,2,3,3, measured), which at this size would not fit. Without compression SPIN
 * keeps every state vector (192-229 bytes a state measured here): 200M states would take
 * 40 GB, so that run is not made.
 *
 * The model: spin/handwritten/owner-check.pml (the owner-check benchmark's model, a
 * process per request, written as a SPIN user would), `owner-check` with faults
 * silent-stub and early-free, prefill limit 2. pagecheck's side is the compiled command
 * `check --no-symmetry --no-por --workers 1 --json`; its bytes per state are reported two
 * ways: the stores' own (the table as allocated, the queue's and links' chunks in memory)
 * and the process's (peak RSS minus the peak RSS of the same command on the minimal
 * incident, Node's own baseline). SPIN's: pan's total memory and its peak RSS. Hash
 * compaction may merge states (SPIN reports fewer): the difference is reported.
 *
 * `BIG_SPACE="PAGES LENGTHS"` (for example `BIG_SPACE="6 1,2,2,3,3" npm run bench --
 * big-space`) runs another configuration, to rehearse on a small one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIG_LOAD, slotsAfter } from '../checker/fingerprints.ts';
import { parsePanReport } from '../spin/pan-report.ts';
import { spinAvailable } from '../spin/run.ts';
import { checkFigures, compiledPagecheck, round, timed } from './whole-process.ts';

/** The big configuration: 6 pages, requests 1,2,2,3,3,1, estimated 330M to 400M states (docs/MEASURED.md, "A big space", says how). */
export const BIG = { pages: 6, lengths: [1, 2, 2, 3, 3, 1] } as const;
const LIMIT = 2;
const FAULTS = ['silent-stub', 'early-free'];
const MODEL = fileURLToPath(new URL('../spin/handwritten/owner-check.pml', import.meta.url));
/** SPIN's hash table: 2^29 slots (4 GiB), more than one per state. */
const SPIN_HASH_BITS = 29;
const log = (line: string): void => void process.stderr.write(`bench big-space: ${line}\n`);

/** The configuration to run: {@link BIG}, or `BIG_SPACE`'s. */
function chosen(): { pages: number; lengths: readonly number[] } {
  const env = process.env['BIG_SPACE'];
  if (env === undefined) return BIG;
  const [pages = '', lengths = ''] = env.trim().split(/\s+/);
  return { pages: Number(pages), lengths: lengths.split(',').map(Number) };
}

/** The `check` flags of a configuration. */
const flagsOf = (c: { pages: number; lengths: readonly number[] }): string[] => [
  ...['--variant', 'owner-check', '--faults', FAULTS.join(','), '--pages', `${c.pages}`, '--prefill-limit', `${LIMIT}`],
  ...['--requests', c.lengths.join(','), '--no-symmetry', '--no-por'],
];

/** The model's -D switches for a configuration. */
function definesOf(c: { pages: number; lengths: readonly number[] }): string[] {
  const d: Record<string, number> = { PAGES: c.pages, LIMIT, N: c.lengths.length, MAXLEN: Math.max(...c.lengths), SILENT_STUB: 1, EARLY_FREE: 1 };
  for (let i = 0; i < 7; i++) d[`L${i}`] = c.lengths[i] ?? 0;
  return Object.entries(d).map(([k, v]) => `-D${k}=${v}`);
}

/** Runs a tool that must succeed, in `cwd`. */
function must(cmd: string, args: readonly string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${`${r.stdout}\n${r.stderr}`.slice(0, 1000)}`);
}

/** SPIN: spin -o2 -a, gcc -O2 -DSAFETY -DNOREDUCE -DHC4 (depth-first), pan under /usr/bin/time. */
function spin(c: { pages: number; lengths: readonly number[] }): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-big-spin-'));
  try {
    writeFileSync(join(dir, 'model.pml'), readFileSync(MODEL, 'utf8'));
    const started = Date.now();
    must('spin', [...definesOf(c), '-o2', '-a', 'model.pml'], dir);
    const cflags = ['-O2', '-DSAFETY', '-DNOREDUCE', '-DHC4', '-DMEMLIM=20000', '-w'];
    must('gcc', [...cflags, '-o', 'pan', 'pan.c'], dir);
    const buildSeconds = (Date.now() - started) / 1000;
    log('spin: running pan (depth-first, HC4) ...');
    const t = timed('./pan', [`-w${SPIN_HASH_BITS}`, '-m100000', '-n'], dir);
    const pan = parsePanReport(t.out);
    return {
      search: 'depth-first (BFS with HC4 keeps the frontier whole)',
      cflags: cflags.join(' '),
      panArgs: `-w${SPIN_HASH_BITS} -m100000 -n`,
      verdict: pan.assertion !== null ? 'violation' : pan.incomplete === null ? 'holds' : 'incomplete',
      statesStored: pan.statesStored,
      depth: pan.depth,
      stateVectorBytes: pan.stateVectorBytes,
      searchSeconds: pan.elapsedSeconds,
      buildSeconds: round(buildSeconds, 4),
      cpuSeconds: round(t.cpu, 4),
      statesPerCpuSecond: Math.round(pan.statesStored / t.cpu),
      memoryMb: pan.memoryMb,
      bytesPerState: round((pan.memoryMb * 2 ** 20) / pan.statesStored),
      peakRssMb: round(t.rss / 2 ** 20, 4),
      bytesPerStateRss: round(t.rss / pan.statesStored),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** pagecheck's side: the whole process, and its memory net of Node's own. */
function pagecheck(c: { pages: number; lengths: readonly number[] }): Record<string, unknown> {
  const baseline = timed(process.execPath, [compiledPagecheck(log), 'check', '--json']).rss;
  log(`pagecheck ${flagsOf(c).join(' ')} --workers 1 ...`);
  const mine = checkFigures(flagsOf(c), 1, log);
  const states = Number(mine['distinctStates']);
  const rss = Number(mine['peakRssMb']) * 2 ** 20;
  const slots = slotsAfter(states);
  const load = states / slots;
  return {
    ...mine,
    nodeBaselineRssMb: round(baseline / 2 ** 20, 4),
    bytesPerStateRss: round((rss - baseline) / states),
    tableBytes: 8 * slots,
    tableBytesPerState: round((8 * slots) / states),
    tableLoad: round(load),
    // Knuth's expected slots read by a successful lookup under linear probing at this load (checker/fingerprints.ts's meanProbe measures it).
    expectedProbe: round((1 + 1 / (1 - load)) / 2),
    bigTableLoad: BIG_LOAD,
  };
}

/** Runs both sides, pagecheck first, and reports them with their ratios. */
export async function run(): Promise<Record<string, unknown>> {
  const c = chosen();
  const before = loadavg().map((x) => round(x));
  const mine = pagecheck(c);
  const s = spinAvailable() ? spin(c) : null;
  const ratio = (a: unknown, b: unknown): number | null => (typeof a === 'number' && typeof b === 'number' && b > 0 ? round(a / b) : null);
  return {
    config: flagsOf(c).join(' '),
    compared: 'pagecheck check, one thread, breadth-first, queue and parent links spilled to disk past 256 MiB each; SPIN pan with -DHC4, depth-first, on spin/handwritten/owner-check.pml',
    loadAverage: { before, after: loadavg().map((x) => round(x)) },
    pagecheck: mine,
    spin: s ?? { skipped: 'spin or gcc is not installed' },
    statesLostBySpinHashCompaction: s === null ? null : Number(mine['distinctStates']) - Number(s['statesStored']),
    ratios: s === null ? null : { bytesPerStateRss: ratio(mine['bytesPerStateRss'], s['bytesPerStateRss']), peakRss: ratio(mine['peakRssMb'], s['peakRssMb']), cpuSeconds: ratio(mine['cpuSeconds'], s['cpuSeconds']) },
  };
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
