/**
 * Proofs in processes of their own. z3's WebAssembly build shares one heap among all the
 * contexts of a process, and after dozens of heavy proofs in one test process it now and
 * then crashes ("memory access out of bounds", "Sort mismatch") or stops answering; the
 * same proofs each in a fresh process do not. `prove` on the command line proves once per
 * process, so this is also how users run it. Each call here starts `apart-child.ts`.
 * (The crashes' cause we found, z3's binding freeing terms during a check, is held back
 * now: `proofs/z3-cleanups.ts`. The fresh process and the one restart stay, for any other.)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { bundledCli } from '../support/bundled-cli.ts';
import type { ConformanceReport } from '../../proofs/conformance.ts';
import type { ProofReport, ProveOptions } from '../../proofs/obligations.ts';
import type { ActionKind, Fault, Mechanism, Variant } from '../../spec/index.ts';

/** What the child is asked: a proof, or the encoding checked against a step; `stepFrom` is a mutant's bundled step to use (mutants.ts). */
export type ApartRequest =
  | { readonly kind: 'prove'; readonly options: Omit<ProveOptions, 'step'>; readonly stepFrom?: string }
  | { readonly kind: 'prove-each'; readonly options: readonly Omit<ProveOptions, 'step'>[]; readonly stepFrom?: undefined }
  | {
      readonly kind: 'conformance';
      readonly variant: Variant;
      readonly faults: readonly Fault[];
      readonly kinds?: readonly ActionKind[];
      readonly without?: readonly Mechanism[];
      readonly stepFrom?: string;
    };

/** The child's source. */
export const CHILD = fileURLToPath(new URL('./apart-child.ts', import.meta.url));

/** The repository's root. */
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The bundles this process made, removed after the test file (vitest ends its worker processes without their exit handlers). */
const scratch: string[] = [];
/** What caches a path into them, told to forget it when they go. */
const forgets: (() => void)[] = [];
const removeScratch = (): void => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
  // a later child bundles again
  bundledChild = undefined;
  bundledBin = undefined;
  for (const forget of forgets.splice(0)) forget();
};

/** A scratch directory removed after the test file (or at exit), `forget` called then: for a bundle a module keeps between requests (universe-run.ts). */
export function scratchDir(prefix: string, forget?: () => void): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  if (forget !== undefined) forgets.push(forget);
  return dir;
}
process.on('exit', removeScratch);
// Only in vitest's worker: a proof's child that loads this file (through mutants.ts) must not load vitest.
if ('__vitest_worker__' in globalThis) (await import('vitest')).afterAll(removeScratch);

/**
 * `apart-child.ts` bundled into one file, once per test process: started with tsx, each
 * child spent 2 to 2.5 s of CPU loading the sources module by module before z3 started,
 * more than many of the proofs it ran; the bundle loads in a tenth of that. A mutant's
 * step (`stepFrom`) is bundled apart too (mutants.ts), and the child imports it.
 */
let bundledChild: Promise<string> | undefined;
function childBundle(): Promise<string> {
  bundledChild ??= bundleApart(CHILD, 'apart-child');
  return bundledChild;
}

/**
 * `entry` (a file of the repository) bundled into one ES module in a scratch directory
 * removed after the test file, `plugins` (a mutant's patch) applied as esbuild loads the
 * sources: the path of the module.
 */
export async function bundleApart(entry: string, name: string, plugins: Plugin[] = []): Promise<string> {
  const dir = scratchDir('pagecheck-apart-');
  // z3-solver stays in node_modules (its WebAssembly loads files beside it), found through the link
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  const out = join(dir, `${name}.mjs`);
  await build({
    absWorkingDir: REPO,
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['z3-solver', 'typescript'],
    // CommonJS packages bundled require Node's own modules
    banner: { js: "import { createRequire as __apartRequire } from 'node:module'; const require = __apartRequire(import.meta.url);" },
    plugins,
    logLevel: 'warning',
  });
  return out;
}

/** The command line bundled (test/support/bundled-cli.ts), once per test process: its `bin.js`. */
let bundledBin: Promise<string> | undefined;
function cliBundle(): Promise<string> {
  bundledBin ??= bundledCli('pagecheck-apart-cli-').then((cli) => (scratch.push(cli.dir), cli.bin));
  return bundledBin;
}

/** What a process prints when z3's WebAssembly build crashed under it or ran out of its 2 GB (`pagecheck prove` says so in one line; a bare run shows the RuntimeError). */
export const Z3_CRASH = /z3 crashed|z3 ran out of memory|RuntimeError\]?: (?:memory access out of bounds|Aborted\()|supplied sort is null|stopped after/;

/**
 * A proof's process is stopped after this long and started once more. The heaviest (hardened,
 * the encoding check and eleven obligations) takes 12 to 40 s on this machine; z3's
 * WebAssembly build has also been seen to stop answering altogether, in a fresh process,
 * where the same run answers when started again.
 */
export const CHILD_LIMIT_MS = 150_000;

/** The message for a process stopped at {@link CHILD_LIMIT_MS}. */
export const stopped = (error: { killed?: boolean; signal?: NodeJS.Signals | null }): string =>
  error.killed === true ? `stopped after ${CHILD_LIMIT_MS / 1000} s without an answer (${error.signal ?? 'killed'})` : '';

/** One run of the child on a request (`child`: a mutant's bundle of it, mutants.ts): its JSON report, or an error with what it printed. */
async function runChildOnce(request: ApartRequest, limitMs = CHILD_LIMIT_MS, child?: string): Promise<unknown> {
  const entry = child ?? (await childBundle());
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [entry, JSON.stringify(request)], { maxBuffer: 1 << 26, timeout: limitMs }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`the proof's process failed (${String(error.code ?? error.signal)}): ${stopped(error)}${stderr.slice(-2000)}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

/**
 * `run`, started once more if z3 crashed or stopped answering under it: that answers
 * nothing, while any answer counts as it is. A crash shows in what `run` threw, or in
 * what it printed (`printed` of its result).
 */
export async function onceMoreIfZ3Crashed<T>(run: () => Promise<T>, printed: (result: T) => string): Promise<T> {
  let first: T;
  try {
    first = await run();
  } catch (e) {
    if (!(e instanceof Error) || !Z3_CRASH.test(e.message)) throw e;
    return run();
  }
  return Z3_CRASH.test(printed(first)) ? run() : first;
}

/** The child (or a mutant's, `child`) on a request, started once more if z3 crashed under it. */
function runChild(request: ApartRequest, child?: string): Promise<unknown> {
  return onceMoreIfZ3Crashed(() => runChildOnce(request, CHILD_LIMIT_MS, child), () => '');
}

/** `prove(z3, options)` in a process of its own (a mutant's step by its tree, `stepFrom`). */
export async function proveApart(options: Omit<ProveOptions, 'step'>, stepFrom?: string): Promise<ProofReport> {
  return (await runChild({ kind: 'prove', options, ...(stepFrom === undefined ? {} : { stepFrom }) })) as ProofReport;
}

/** `checkConformance(z3, …)` in a process of its own (`child`: a mutant's bundle of the child, mutants.ts, whose spec and encoding are the mutant's). */
export async function conformanceApart(request: Omit<Extract<ApartRequest, { kind: 'conformance' }>, 'kind'>, child?: string): Promise<ConformanceReport> {
  return (await runChild({ kind: 'conformance', ...request }, child)) as ConformanceReport;
}

/** `pagecheck …args` in a process of its own, from the repository's root: its exit code, standard output and standard error. */
export function pagecheckApart(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  return onceMoreIfZ3Crashed(() => pagecheckOnce(args), (r) => r.err);
}

/** One run of `pagecheck …args` in a process of its own. */
async function pagecheckOnce(args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const bin = await cliBundle();
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: REPO, maxBuffer: 1 << 24, timeout: CHILD_LIMIT_MS }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, out: stdout, err: error === null ? stderr : `${stopped(error)}${stderr}` });
    });
  });
}

/**
 * `prove` on each of `options`, in two processes that prove one after the other (the
 * machines have two cores), reports in the order of `options`. Against one process per
 * proof, each proof after a process's first saves starting Node and z3 (about a second
 * of CPU each, when proofs of a test take a few). If z3 crashes or
 * stops answering under a process, its proofs are each run in a process of their own.
 * `child`: a mutant's bundle of the child (mutants.ts), whose spec and proofs are the mutant's.
 */
export async function proveEachApart(options: readonly Omit<ProveOptions, 'step'>[], child?: string): Promise<ProofReport[]> {
  const lanes = [0, 1].map((lane) => options.map((o, i) => [i, o] as const).filter(([i]) => i % 2 === lane));
  const results: ProofReport[] = new Array<ProofReport>(options.length);
  await Promise.all(
    lanes.map(async (lane) => {
      if (lane.length === 0) return;
      let reports: ProofReport[];
      try {
        // the limit of one proof's process, for each proof of the lane
        reports = (await runChildOnce({ kind: 'prove-each', options: lane.map(([, o]) => o) }, CHILD_LIMIT_MS * lane.length, child)) as ProofReport[];
      } catch (e) {
        if (!(e instanceof Error) || !Z3_CRASH.test(e.message)) throw e;
        reports = [];
        for (const [, o] of lane) reports.push((await runChild({ kind: 'prove', options: o }, child)) as ProofReport);
      }
      lane.forEach(([i], k) => (results[i] = reports[k]!));
    }),
  );
  return results;
}
