/**
 * The test suite on a busy laptop (issue 28, item 5): the fast tier idle and beside a CPU
 * hog of two busy loops (bench/cpu-hog.ts), then both tiers (`npm test`'s run) the same
 * two ways, each run's wall time, its pass and fail counts, the load average when it
 * started, and the test files that cost the most CPU (test/support/file-cost.ts). A
 * failure that shows only under load shows here before a user meets it.
 *
 * `npm run bench -- suite-under-load`. It takes tens of minutes; CI's `npm test` never
 * runs it. `PAGECHECK_BENCH_SUITES=fast` runs the fast tier only; `PAGECHECK_BENCH_FILES`
 * (space-separated vitest filters) narrows every run to some files, to try the benchmark
 * itself quickly.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCpuHog } from './cpu-hog.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** The suites: the fast tier (`npm run test:fast`) and both tiers (`npm test`), with the limits on an idle machine. */
const SUITES = {
  fast: { args: ['--project', 'fast'], targetSeconds: 120 },
  all: { args: [], targetSeconds: 600 },
} as const;
type Suite = keyof typeof SUITES;

/** Busy loops beside the suite: the "two busy loops". */
const HOG_LOOPS = 2;

/** Past this a run is stopped and counted as failed: well past the targets, even under the hog. */
const RUN_LIMIT_MS = 45 * 60_000;

const log = (line: string): void => void process.stderr.write(`bench suite-under-load: ${line}\n`);
const round = (x: number, digits = 3): number => Number(x.toPrecision(digits));

/** One run of the suite: its wall time, counts, the load when it began, and the costliest files. */
interface SuiteRun {
  readonly wallSeconds: number;
  readonly passed: boolean;
  readonly tests: { readonly passed: number; readonly failed: number; readonly skipped: number; readonly failedFiles: readonly string[] };
  readonly loadAverageAtStart: number;
  readonly cpuSecondsOfTestProcesses: number;
  readonly costliestFiles: readonly { readonly file: string; readonly cpuSeconds: number; readonly wallSeconds: number }[];
}

/** vitest's JSON report, the fields read here. */
interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: { name: string; status: string }[];
}

/** Runs vitest on `suite` and waits for it (or for {@link RUN_LIMIT_MS}). */
async function runSuite(suite: Suite): Promise<SuiteRun> {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-bench-suite-'));
  const report = join(dir, 'report.json');
  const costs = join(dir, 'costs.jsonl');
  const files = (process.env['PAGECHECK_BENCH_FILES'] ?? '').split(/\s+/).filter((f) => f !== '');
  const args = [VITEST, 'run', ...SUITES[suite].args, '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, ...files];
  const loadAverageAtStart = round(loadavg()[0] ?? 0);
  const started = performance.now();
  const code = await new Promise<number | null>((done) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, PAGECHECK_TEST_COST_LOG: costs } });
    const limit = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.on('close', (c) => (clearTimeout(limit), done(c)));
  });
  const wallSeconds = round((performance.now() - started) / 1000);
  try {
    const r: Report | undefined = existsSync(report) ? (JSON.parse(readFileSync(report, 'utf8')) as Report) : undefined;
    const failedFiles = (r?.testResults ?? []).filter((f) => f.status === 'failed').map((f) => f.name.slice(ROOT.length));
    const tests = { passed: r?.numPassedTests ?? 0, failed: r?.numFailedTests ?? 0, skipped: r?.numPendingTests ?? 0, failedFiles };
    return { wallSeconds, passed: code === 0 && r !== undefined, tests, loadAverageAtStart, ...fileCosts(costs) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The test processes' CPU in all, and the ten costliest files, from file-cost.ts's lines. */
function fileCosts(path: string): Pick<SuiteRun, 'cpuSecondsOfTestProcesses' | 'costliestFiles'> {
  const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '') : [];
  // a file's children (the proofs' processes, the CLI runs) count with it
  const costs = lines.map((l) => JSON.parse(l) as { file: string; cpuMs: number; childCpuMs?: number; wallMs: number }).map((c) => ({ ...c, cpuMs: c.cpuMs + (c.childCpuMs ?? 0) }));
  const top = [...costs].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 10);
  return {
    cpuSecondsOfTestProcesses: round(costs.reduce((sum, c) => sum + c.cpuMs, 0) / 1000),
    costliestFiles: top.map((c) => ({ file: c.file, cpuSeconds: round(c.cpuMs / 1000), wallSeconds: round(c.wallMs / 1000) })),
  };
}

/** Runs `suite` beside the hog, which is killed whatever happens. */
async function underHog(suite: Suite): Promise<SuiteRun> {
  const hog = startCpuHog(HOG_LOOPS, RUN_LIMIT_MS + 60_000);
  try {
    return await runSuite(suite);
  } finally {
    await hog.stop();
  }
}

/** The suites asked for in `PAGECHECK_BENCH_SUITES` (comma-separated), by default both. */
function suitesAsked(): Suite[] {
  const asked = (process.env['PAGECHECK_BENCH_SUITES'] ?? 'fast,all').split(',').map((s) => s.trim());
  const unknown = asked.filter((s) => !(s in SUITES));
  if (unknown.length > 0) throw new Error(`PAGECHECK_BENCH_SUITES: unknown suite ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);
  return asked as Suite[];
}

/** Each suite idle, then beside the hog; the ratio is of the two wall times of this one run. */
export async function run(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {
    compared: `vitest run, wall seconds: idle, then beside ${HOG_LOOPS} busy loops in child processes; "idle" is whatever else the machine runs (see loadAverageAtStart)`,
  };
  for (const suite of suitesAsked()) {
    log(`${suite}: idle ...`);
    const idle = await runSuite(suite);
    log(`${suite}: idle ${idle.wallSeconds} s, ${idle.passed ? 'passed' : 'FAILED'}; beside the hog ...`);
    const hog = await underHog(suite);
    log(`${suite}: beside the hog ${hog.wallSeconds} s, ${hog.passed ? 'passed' : 'FAILED'}`);
    out[suite] = {
      idle,
      underHog: hog,
      hogOverIdle: round(hog.wallSeconds / idle.wallSeconds),
      targets: { idleUnderTarget: idle.wallSeconds < SUITES[suite].targetSeconds, targetSeconds: SUITES[suite].targetSeconds, passIdle: idle.passed, passUnderHog: hog.passed },
    };
  }
  return out;
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) process.stdout.write(`${JSON.stringify(await run(), null, 2)}\n`);
