/**
 * Runs SPIN on a configuration's Promela model: generate, `spin -a`, compile `pan` for a
 * breadth-first safety search, run it, and, for a violation, replay the trail to get the
 * counterexample's actions. Everything happens in a fresh temporary directory (pan.c,
 * pan, the trail), never in the repository.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACTION_KINDS, type Config } from '../spec/index.ts';
import { parsePanReport, trailSteps, type PanReport } from './pan-report.ts';
import { toPromela } from './promela.ts';

/** How to build the verifier. */
export interface BuildOptions {
  /** Compile pan with -O2 (default); false compiles with -O0, several times faster to build, for small state spaces. */
  readonly optimize?: boolean;
  /** pan's memory limit in megabytes (-DMEMLIM); default 8192. */
  readonly memoryLimitMb?: number;
  /** Keep variables that are written but never read in the state vector (`spin -o2`): a ghost bit kept for a witness, which SPIN would otherwise hide. */
  readonly keepGhosts?: boolean;
}

/** How to run the verifier. */
export interface RunOptions {
  /** Ignore assertions (pan -A) and explore every reachable state, like `pagecheck check --continue`. */
  readonly continueAfterViolation?: boolean;
  /** pan's hash table has 2^hashBits slots (-w); default 20. Size it to the state count for speed. */
  readonly hashBits?: number;
  /** Kill pan after this long; default none. */
  readonly timeoutMs?: number;
}

/** A compiled verifier for one configuration, in its own temporary directory. */
export interface PanBuild {
  /** The configuration it checks. */
  readonly config: Config;
  /** The temporary directory holding model.pml, pan.c and pan. */
  readonly dir: string;
  /** Wall-clock milliseconds of `spin -a` and gcc. */
  readonly buildMs: number;
  /** Removes the directory. */
  dispose(): void;
}

/** What SPIN found, with pan's own figures. */
export interface SpinResult {
  /** `violation` when an assertion failed; `incomplete` when pan stopped short; else `holds`. */
  readonly verdict: 'holds' | 'violation' | 'incomplete';
  /** The invariant whose assertion failed, or null. */
  readonly invariant: string | null;
  /** The counterexample's actions, as pagecheck labels them (`allocate(A)`), or null. */
  readonly trace: readonly string[] | null;
  /** Its number of actions: the trail's steps, or null. */
  readonly traceLength: number | null;
  /** pan's report. */
  readonly pan: PanReport;
  /** Peak resident memory of pan in bytes, from /usr/bin/time, or null where that is missing. */
  readonly maxRssBytes: number | null;
  /** pan's user plus system CPU seconds, from /usr/bin/time, or null where that is missing. */
  readonly cpuSeconds: number | null;
  /** Wall-clock milliseconds of the pan run. */
  readonly runMs: number;
}

/** The C compiler flags: breadth-first, safety only, no partial-order reduction (one process has none to do). */
export const PAN_CFLAGS = ['-DBFS', '-DSAFETY', '-DNOREDUCE', '-w'] as const;

/** Whether `spin` and `gcc` can be run here. */
export function spinAvailable(): boolean {
  const ok = (cmd: string, args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
  return ok('spin', ['-V']) && ok('gcc', ['--version']);
}

/** Generates the model of a configuration and compiles its verifier. Throws when spin or gcc fails. */
export function buildPan(config: Config, options: BuildOptions = {}): PanBuild {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-spin-'));
  const dispose = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    const started = Date.now();
    writeFileSync(join(dir, 'model.pml'), toPromela(config));
    tool(spawnSync('spin', ['-a', 'model.pml'], { cwd: dir, encoding: 'utf8' }), 'spin -a');
    const flags = [options.optimize === false ? '-O0' : '-O2', ...PAN_CFLAGS, `-DMEMLIM=${options.memoryLimitMb ?? 8192}`];
    tool(spawnSync('gcc', [...flags, '-o', 'pan', 'pan.c'], { cwd: dir, encoding: 'utf8' }), 'gcc pan.c');
    return { config, dir, buildMs: Date.now() - started, dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}

/**
 * Compiles the verifier of a Promela file written by hand (spin/handwritten/), with
 * `defines` passed to its preprocessor (`-DNAME=value`). `config` is what the model
 * stands for; a hand-written model has no counterexample replay.
 */
export function buildPanFromFile(path: string, config: Config, defines: Readonly<Record<string, number>> = {}, options: BuildOptions = {}): PanBuild {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-spin-'));
  const dispose = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    const started = Date.now();
    writeFileSync(join(dir, 'model.pml'), readFileSync(path, 'utf8'));
    const d = Object.entries(defines).map(([k, v]) => `-D${k}=${v}`);
    tool(spawnSync('spin', [...d, ...(options.keepGhosts === true ? ['-o2'] : []), '-a', 'model.pml'], { cwd: dir, encoding: 'utf8' }), 'spin -a');
    const flags = [options.optimize === false ? '-O0' : '-O2', ...PAN_CFLAGS, `-DMEMLIM=${options.memoryLimitMb ?? 8192}`];
    tool(spawnSync('gcc', [...flags, '-o', 'pan', 'pan.c'], { cwd: dir, encoding: 'utf8' }), 'gcc pan.c');
    return { config, dir, buildMs: Date.now() - started, dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}

/** Runs a compiled verifier breadth-first; for a violation, replays the trail. Throws when pan does not finish. */
export function runPan(build: PanBuild, options: RunOptions = {}): SpinResult {
  const { dir, config } = build;
  rmSync(join(dir, 'model.pml.trail'), { force: true });
  const panArgs = [`-w${options.hashBits ?? 20}`, '-m100000', '-n', ...(options.continueAfterViolation ? ['-A'] : [])];
  const timed = existsSync('/usr/bin/time');
  const [cmd, args] = timed ? ['/usr/bin/time', ['-f', '%M %U %S', '-o', 'usage.txt', './pan', ...panArgs]] : ['./pan', panArgs];
  const started = Date.now();
  const ran = spawnSync(cmd, args, {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
  });
  const runMs = Date.now() - started;
  if (ran.error !== undefined || ran.signal !== null) {
    throw new Error(`pan did not finish: ${ran.error?.message ?? `signal ${ran.signal}`}`);
  }
  const pan = parsePanReport(ran.stdout);
  // /usr/bin/time's last line: max RSS in KB, user and system seconds.
  const usage = timed ? (readFileSync(join(dir, 'usage.txt'), 'utf8').trim().split('\n').at(-1) ?? '').split(' ').map(Number) : [];
  const [rssKb = NaN, user = NaN, sys = NaN] = usage;
  const violated = pan.assertion !== null;
  return {
    verdict: violated ? 'violation' : pan.incomplete === null ? 'holds' : 'incomplete',
    invariant: pan.assertion,
    trace: violated ? replay(dir, config) : null,
    traceLength: violated ? trailSteps(readFileSync(join(dir, 'model.pml.trail'), 'utf8')) : null,
    pan,
    maxRssBytes: Number.isFinite(rssKb) ? rssKb * 1024 : null,
    cpuSeconds: Number.isFinite(user + sys) ? user + sys : null,
    runMs,
  };
}

/** Builds, runs once and cleans up: the whole cross-check of one configuration. */
export function runSpin(config: Config, options: BuildOptions & RunOptions = {}): SpinResult & { readonly buildMs: number } {
  const build = buildPan(config, options);
  try {
    return { ...runPan(build, options), buildMs: build.buildMs };
  } finally {
    build.dispose();
  }
}

/** Replays the trail silently (`pan -r -S`): each step prints `@kind r`, which becomes `allocate(A)`. */
function replay(dir: string, config: Config): string[] {
  const out = tool(spawnSync('./pan', ['-r', '-S', 'model.pml.trail'], { cwd: dir, encoding: 'utf8' }), 'pan -r');
  const labels: string[] = [];
  for (const line of out.split('\n')) {
    const step = /^\s*@(\d+) (\d+)\s*$/.exec(line);
    if (step === null) continue;
    const kind = ACTION_KINDS[Number(step[1])];
    const name = config.requests[Number(step[2])]?.name;
    if (kind === undefined || name === undefined) throw new Error(`pan's replay printed an unknown step: ${line}`);
    labels.push(`${kind}(${name})`);
  }
  return labels;
}

/** The standard output of a tool that must succeed, or an error with what it printed. */
function tool(result: SpawnSyncReturns<string>, what: string): string {
  if (result.error !== undefined) throw new Error(`${what} could not run: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`${what} failed (exit ${result.status}):\n${`${result.stdout}\n${result.stderr}`.trim().slice(0, 2000)}`);
  }
  return result.stdout;
}
