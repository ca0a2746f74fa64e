/**
 * One area's Stryker run for `npm run mutation`: the base configuration
 * (bench/mutation/stryker.config.json) with the sampled lines as `mutate`, Stryker in a
 * child process of its own (stopped with its process group past the area's bound), and
 * its JSON report (mutation-testing-report-schema) read back as counts and survivors.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Area } from './options.ts';
import { INSTRUMENTED_ENV, recheckStatic } from './static-recheck.ts';

const STRYKER = join(dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json')), 'bin', 'stryker.js');

/** A mutant that no test killed, where it is and what it was. */
export interface Survivor {
  readonly area: Area;
  /** `file:line:column`. */
  readonly at: string;
  readonly mutator: string;
  /** The code before the mutation. */
  readonly original: string;
  /** The code Stryker put there. */
  readonly replacement: string;
  /** `Survived` or `NoCoverage`. */
  readonly status: string;
}

/** One area's figures. */
export interface AreaScore {
  readonly lines: readonly string[];
  readonly mutants: number;
  readonly killed: number;
  readonly survived: number;
  readonly timeout: number;
  readonly noCoverage: number;
  /** Mutants that did not compile or broke the run: left out of the score, as Stryker does. */
  readonly invalid: number;
  /** Mutants Stryker reported as surviving (or uncovered) that a fresh, uninstrumented run of the area's tests killed (static-recheck.ts); counted in `killed`. */
  readonly killedOnReload: number;
  /** Stryker's score: (killed + timeout) / (killed + timeout + survived + noCoverage), in percent; null with no valid mutant. */
  readonly score: number | null;
  readonly wallSeconds: number;
  /** Survivors run again in a clean copy (static-recheck.ts), one vitest process each. */
  readonly rechecked?: number;
  /** The wall seconds those re-runs took (part of `wallSeconds`). */
  readonly recheckSeconds?: number;
  /** Set when Stryker failed or was stopped at the bound: then the counts are empty. */
  readonly error?: string;
}

/** The part of Stryker's JSON report read here. */
export interface Report {
  files: Record<string, { source: string; mutants: { mutatorName: string; replacement?: string; status: string; static?: boolean; location: { start: { line: number; column: number }; end: { line: number; column: number } } }[] }>;
}

/** The text between two 1-based line:column positions of `source` (columns as Stryker gives them, 1-based). */
function slice(source: string, start: { line: number; column: number }, end: { line: number; column: number }): string {
  const lines = source.split('\n');
  if (start.line === end.line) return lines[start.line - 1]!.slice(start.column - 1, end.column - 1);
  const first = lines[start.line - 1]!.slice(start.column - 1);
  const last = lines[end.line - 1]!.slice(0, end.column - 1);
  return [first, ...lines.slice(start.line, end.line - 1), last].join('\n');
}

/** The status a survivor gets when a fresh, uninstrumented run of the area's tests kills it (not one of Stryker's). */
export const KILLED_ON_RELOAD = 'KilledOnReload';

/**
 * Runs each mutant Stryker reported as surviving (or uncovered), static or not, again in a
 * fresh process on a clean copy of the sources (static-recheck.ts), and marks those a test
 * or a failed load kills {@link KILLED_ON_RELOAD} (`Timeout` past the bound) in `report`.
 * It costs one run of the area's fast-tier tests per survivor (stopped at the first
 * failure); returns how many survivors it ran.
 */
export async function recheckReport(root: string, area: Area, report: Report, boundSeconds: number): Promise<number> {
  const again = Object.entries(report.files).flatMap(([file, f]) =>
    f.mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').map((m) => ({ file, m })),
  );
  const outcomes = await recheckStatic(root, area, again.map(({ file, m }) => ({ file, start: m.location.start, end: m.location.end, replacement: m.replacement ?? '' })), boundSeconds);
  again.forEach(({ m }, i) => {
    const o = outcomes[i];
    if (o === 'killed') m.status = KILLED_ON_RELOAD;
    else if (o === 'timeout') m.status = 'Timeout';
  });
  return again.length;
}

/** Counts and survivors of a report; {@link KILLED_ON_RELOAD} counts as killed. */
export function scoreOf(area: Area, report: Report, lines: readonly string[], wallSeconds: number): { score: AreaScore; survivors: Survivor[] } {
  const c = { mutants: 0, killed: 0, survived: 0, timeout: 0, noCoverage: 0, invalid: 0, killedOnReload: 0 };
  const survivors: Survivor[] = [];
  for (const [file, f] of Object.entries(report.files)) {
    for (const m of f.mutants) {
      c.mutants++;
      if (m.status === 'Killed') c.killed++;
      else if (m.status === KILLED_ON_RELOAD) (c.killed++, c.killedOnReload++);
      else if (m.status === 'Timeout') c.timeout++;
      else if (m.status === 'Survived') c.survived++;
      else if (m.status === 'NoCoverage') c.noCoverage++;
      else c.invalid++;
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      const { start, end } = m.location;
      survivors.push({ area, at: `${file}:${start.line}:${start.column}`, mutator: m.mutatorName, original: slice(f.source, start, end), replacement: m.replacement ?? '', status: m.status });
    }
  }
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  const score = valid === 0 ? null : Math.round((1000 * (c.killed + c.timeout)) / valid) / 10;
  return { score: { lines, ...c, score, wallSeconds }, survivors };
}

/** Runs Stryker on `mutate` against the area's own tests, from `root`; never throws for Stryker's own failure (the score says it). */
export async function runArea(root: string, area: Area, mutate: readonly string[], boundSeconds: number, concurrency: number): Promise<{ score: AreaScore; survivors: Survivor[] }> {
  const dir = mkdtempSync(join(tmpdir(), `pagecheck-mutation-${area}-`));
  const reportFile = join(dir, 'report.json');
  const base = JSON.parse(readFileSync(join(root, 'bench/mutation/stryker.config.json'), 'utf8')) as Record<string, unknown>;
  delete base['$schema'];
  const config = join(dir, 'stryker.config.json');
  writeFileSync(config, JSON.stringify({ ...base, mutate, concurrency, jsonReporter: { fileName: reportFile } }, null, 2));
  const started = performance.now();
  try {
    const stopped = await new Promise<string | undefined>((done) => {
      const child = spawn(process.execPath, [STRYKER, 'run', config], { cwd: root, detached: true, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, PAGECHECK_MUTATION_AREA: area, [INSTRUMENTED_ENV]: '1' } });
      let over = false;
      // The whole group: Stryker's test-runner children with it (detached, so a Ctrl-C here must pass it on).
      const stop = (): void => void (child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'));
      const interrupted = (): void => (stop(), process.exit(130));
      process.once('SIGINT', interrupted);
      const bound = setTimeout(() => ((over = true), stop()), boundSeconds * 1000);
      child.on('close', (code) => {
        clearTimeout(bound);
        process.off('SIGINT', interrupted);
        done(over ? `stopped at the bound of ${boundSeconds} s` : code === 0 ? undefined : `stryker exited with ${code}`);
      });
    });
    const wallSeconds = Math.round((performance.now() - started) / 100) / 10;
    if (stopped !== undefined || !existsSync(reportFile)) {
      const empty = { lines: mutate, mutants: 0, killed: 0, survived: 0, timeout: 0, noCoverage: 0, invalid: 0, killedOnReload: 0, score: null, wallSeconds };
      return { score: { ...empty, error: stopped ?? 'stryker wrote no report' }, survivors: [] };
    }
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
    const recheckStarted = performance.now();
    const rechecked = await recheckReport(root, area, report, boundSeconds);
    const recheckSeconds = Math.round((performance.now() - recheckStarted) / 100) / 10;
    const { score, survivors } = scoreOf(area, report, mutate, Math.round((performance.now() - started) / 100) / 10);
    return { score: { ...score, rechecked, recheckSeconds }, survivors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
