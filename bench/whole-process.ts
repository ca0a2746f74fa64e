/**
 * What the benchmarks that time pagecheck as a whole process share: the compiled command
 * (`dist/cli/bin.js`, what users install, built afresh once per `npm run bench` so that it
 * is the sources' build, not an old one), and a run of a command under `/usr/bin/time`.
 * Timing the sources through tsx instead would add its compile to every process and to
 * every worker thread, which no user pays.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPan, type PanBuild } from '../spin/run.ts';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The compiled command's entry point. */
export const BIN = join(ROOT, 'dist/cli/bin.js');

let built = false;

/** Builds dist/ from the sources once per process (`npm run build`); returns the entry point. */
export function compiledPagecheck(log: (line: string) => void): string {
  if (built) return BIN;
  log('building dist/ (npm run build) ...');
  const r = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error('npm run build failed');
  built = true;
  return BIN;
}

/** A whole process's wall seconds, peak RSS in bytes, CPU seconds (user + system) and standard output. */
export interface Timed {
  readonly wall: number;
  readonly rss: number;
  readonly cpu: number;
  readonly out: string;
}

/** Runs `cmd args` in `cwd` under `/usr/bin/time -f`; exit codes other than 0 and 1 (a verdict) are errors. */
export function timed(cmd: string, args: readonly string[], cwd: string = ROOT): Timed {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-bench-'));
  try {
    const usage = join(dir, 'usage.txt');
    const r = spawnSync('/usr/bin/time', ['-f', '%e %M %U %S', '-o', usage, cmd, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
    const [wall = NaN, rssKb = NaN, user = NaN, sys = NaN] = (readFileSync(usage, 'utf8').trim().split('\n').at(-1) ?? '').split(' ').map(Number);
    return { wall, rss: rssKb * 1024, cpu: user + sys, out: r.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What `check --json` prints that the benchmarks read. */
export interface CheckJson {
  readonly verdict: string;
  readonly distinctStates: number;
  readonly elapsedMs: number;
  readonly statesPerSecond: number;
  readonly bytesPerState: number;
}

/** `pagecheck check …flags --workers N --json` from the compiled command, timed as a whole process. */
export function timedCheck(flags: readonly string[], workers: number, log: (line: string) => void): { json: CheckJson; t: Timed } {
  const t = timed(process.execPath, [compiledPagecheck(log), 'check', ...flags, '--workers', `${workers}`, '--json']);
  return { json: JSON.parse(t.out) as CheckJson, t };
}

/** `x` to `digits` significant digits, as the benchmarks report figures. */
export const round = (x: number, digits = 3): number => Number(x.toPrecision(digits));

/** One whole `check` process with `workers` threads, as the benchmarks report it: the search's own figures, the process's wall and CPU seconds, memory. */
export function checkFigures(flags: readonly string[], workers: number, log: (line: string) => void): Record<string, number | string> {
  const { json, t } = timedCheck(flags, workers, log);
  return {
    workers,
    verdict: json.verdict,
    distinctStates: json.distinctStates,
    searchSeconds: round(json.elapsedMs / 1000, 4),
    statesPerSecond: json.statesPerSecond,
    processSeconds: round(t.wall, 4),
    processStatesPerSecond: Math.round(json.distinctStates / t.wall),
    cpuSeconds: round(t.cpu, 4),
    statesPerCpuSecond: Math.round(json.distinctStates / t.cpu),
    // CPU seconds per wall second: below the workers' number, the process waited for cores (a shared machine) or at barriers.
    coresUsed: round(t.cpu / t.wall),
    bytesPerState: json.bytesPerState,
    peakRssMb: round(t.rss / 2 ** 20, 4),
  };
}

/** SPIN's pan on a built model, as the benchmarks report it beside {@link checkFigures}: the search's figures, the build and run as one process, memory; the build is disposed of. */
export function panFigures(build: PanBuild, log: (line: string) => void): Record<string, number | string | null> {
  try {
    log('spin: running pan ...');
    const r = runPan(build, { hashBits: 25 });
    const wall = (build.buildMs + r.runMs) / 1000;
    return {
      verdict: r.verdict,
      statesStored: r.pan.statesStored,
      searchSeconds: r.pan.elapsedSeconds,
      statesPerSecond: r.pan.statesPerSecond,
      buildSeconds: round(build.buildMs / 1000, 4),
      processSeconds: round(wall, 4),
      processStatesPerSecond: Math.round(r.pan.statesStored / wall),
      cpuSeconds: r.cpuSeconds === null ? null : round(r.cpuSeconds, 4),
      statesPerCpuSecond: r.cpuSeconds === null ? null : Math.round(r.pan.statesStored / r.cpuSeconds),
      bytesPerState: round((r.pan.memoryMb * 2 ** 20) / r.pan.statesStored),
      peakRssMb: r.maxRssBytes === null ? null : round(r.maxRssBytes / 2 ** 20, 4),
    };
  } finally {
    build.dispose();
  }
}
