/**
 * Survivors, run again in a clean copy of the sources. Stryker's verdict on a mutant can
 * miss a kill in two ways. A static mutant changes code that runs when a module loads (a
 * table built at the top of a file): Stryker's vitest runner counts only failed *tests*,
 * and a test file that fails to load has none (stop 38's notes.json shows two such). And
 * a test that reads the sources as text cannot run on Stryker's instrumented copy at all:
 * test/binding/fast-emit.test.ts's freshness test is skipped there ({@link INSTRUMENTED_ENV}),
 * so the emitter's mutants, which change only the emitted text, survive. Here each survivor
 * (static or not) is written, alone and uninstrumented, into a copy of the sources, and the
 * area's fast-tier tests run in a fresh vitest process: any failure, a file that cannot load
 * included, kills it. The file keeps the name of the static mutants it was written for.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Area } from './options.ts';

/** A 1-based line and column, as Stryker's report gives them. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Set only in Stryker's own run (bench/mutation/stryker.ts): the sources are instrumented, so a test that reads them as text skips itself. The re-run here leaves it unset. */
export const INSTRUMENTED_ENV = 'PAGECHECK_MUTATION_INSTRUMENTED';

/** A mutant to run again (static or not; the name is the file's first use): where it is and what Stryker put there. */
export interface StaticMutant {
  /** The file, relative to the repository's root. */
  readonly file: string;
  readonly start: Position;
  readonly end: Position;
  readonly replacement: string;
}

/** How a re-run ended: `killed` (a test failed or a file could not load), `timeout`, or `survived`. */
export type Recheck = 'killed' | 'timeout' | 'survived';

/** The offset in `source` of a 1-based line:column position. */
function offsetOf(source: string, p: Position): number {
  let offset = 0;
  for (let line = 1; line < p.line; line++) {
    const next = source.indexOf('\n', offset);
    if (next < 0) throw new Error(`line ${p.line} is past the end of the file`);
    offset = next + 1;
  }
  return offset + p.column - 1;
}

/** `source` with the text between `start` and `end` replaced by `replacement`: the mutant, as Stryker's report places it. */
export function applyMutant(source: string, start: Position, end: Position, replacement: string): string {
  return source.slice(0, offsetOf(source, start)) + replacement + source.slice(offsetOf(source, end));
}

/** A copy of the repository's files (tracked and untracked, ignored ones left out) under a fresh directory, with node_modules linked. */
function copyOf(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-static-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 }).split('\0').filter((f) => f !== '');
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    try {
      cpSync(join(root, f), join(dir, f));
    } catch {
      // A tracked file deleted in the work tree: the copy does not have it either.
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Runs the area's tests (Stryker's own vitest configuration, fast tier) in `dir`, uninstrumented, so every test runs; ends at the first failure, or at `boundSeconds`; a Ctrl-C stops it and removes the copy. */
function runTests(dir: string, area: Area, boundSeconds: number): Promise<Recheck> {
  const vitest = join(dir, 'node_modules', 'vitest', 'vitest.mjs');
  return new Promise((done) => {
    const child = spawn(process.execPath, [vitest, 'run', '--config', 'bench/mutation/vitest.config.ts', '--bail', '1'], {
      cwd: dir,
      detached: true,
      stdio: 'ignore',
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== INSTRUMENTED_ENV)), PAGECHECK_MUTATION_AREA: area },
    });
    let over = false;
    // The whole group: vitest's workers with it (detached, so a Ctrl-C here must pass it on).
    const stop = (): void => void (child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'));
    const interrupted = (): void => {
      stop();
      rmSync(dir, { recursive: true, force: true });
      process.exit(130);
    };
    process.once('SIGINT', interrupted);
    const bound = setTimeout(() => ((over = true), stop()), boundSeconds * 1000);
    child.on('close', (code) => {
      clearTimeout(bound);
      process.off('SIGINT', interrupted);
      done(over ? 'timeout' : code === 0 ? 'survived' : 'killed');
    });
  });
}

/** Each mutant run again against the area's tests in a copy of the sources, one after the other (one vitest process each); the copy is removed at the end. */
export async function recheckStatic(root: string, area: Area, mutants: readonly StaticMutant[], boundSeconds: number): Promise<Recheck[]> {
  if (mutants.length === 0) return [];
  const dir = copyOf(root);
  try {
    const out: Recheck[] = [];
    for (const m of mutants) {
      const path = join(dir, m.file);
      const original = readFileSync(path, 'utf8');
      writeFileSync(path, applyMutant(original, m.start, m.end, m.replacement));
      try {
        out.push(await runTests(dir, area, boundSeconds));
      } finally {
        writeFileSync(path, original);
      }
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
