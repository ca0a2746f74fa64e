/**
 * `npm run bench`: runs every benchmark in one process, one after the other, and writes
 * the figures to `bench/results.json` (machine-readable) as well as to stdout. Each
 * benchmark reports ratios measured within its own run, because the machines are shared
 * and absolute figures drift from run to run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform } from 'node:os';
import { fileURLToPath } from 'node:url';

/** A benchmark module: `run()` returns its figures. */
interface Bench {
  /** Runs the benchmark. */
  run(): Promise<Record<string, unknown>>;
}

const BENCHES: Readonly<Record<string, () => Promise<Bench>>> = {
  // Tens of minutes: a space of more than 200M states beside SPIN with HC4 (run it by name).
  bigSpace: () => import('./big-space.ts'),
  checkerVsSpin: () => import('./spin.ts'),
  handwritten: () => import('./handwritten.ts'),
  handwrittenOwner: () => import('./handwritten-owner.ts'),
  parallel: () => import('./parallel.ts'),
  por: () => import('./por.ts'),
  pool: () => import('./pool.ts'),
  startup: () => import('./startup.ts'),
  // Tens of minutes: the test suite idle and beside a CPU hog (run it by name).
  'suite-under-load': () => import('./suite-under-load.ts'),
  validateLog: () => import('./validate-log.ts'),
};

/** Benchmarks that run only when named: a bare `npm run bench` leaves them out. */
const BY_NAME_ONLY: ReadonlySet<string> = new Set(['suite-under-load', 'bigSpace']);

/** A benchmark's name as typed: `validate-log` names `validateLog`. */
const named = (arg: string): string => arg.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const only = process.argv.slice(2).map((a) => (a in BENCHES ? a : named(a)));
const unknown = only.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(`pagecheck bench: unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exit(2);
}

const out = fileURLToPath(new URL('./results.json', import.meta.url));
// Running some of the benchmarks updates their entries and keeps the others' last figures.
const results: Record<string, unknown> = { ...previous(out) };
results['machine'] = { node: process.version, platform: platform(), arch: arch(), cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length };
let failed = false;
for (const [name, load] of Object.entries(BENCHES)) {
  if (only.length > 0 ? !only.includes(name) : BY_NAME_ONLY.has(name)) continue;
  process.stderr.write(`bench ${name} ...\n`);
  try {
    results[name] = await (await load()).run();
  } catch (e) {
    failed = true;
    results[name] = { error: e instanceof Error ? e.message : String(e) };
  }
}
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(results, null, 2)}\nwritten to bench/results.json\n`);
process.exitCode = failed ? 1 : 0;

/** The figures of the last run, or nothing when there are none (or they are not ours to read). */
function previous(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
