import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { CostSequencer } from './test/support/sequencer.ts';

/**
 * Two tiers, chosen here rather than by file names (other branches add and edit tests):
 * `fast` is the developer's loop, under 2 minutes on an idle 2-core machine
 * (`npm run test:fast`); `heavy` is what costs tens of CPU seconds a file: the proofs'
 * universe, the browser tests, SPIN, the packed-tarball install, worker threads over whole
 * levels, the model-based tests at scale and the generated document
 * (`npm run test:heavy`). `npm test` runs both, as CI does. bench/suite-under-load.ts
 * measures the fast tier idle and beside a CPU hog, with each file's CPU time.
 * bench/mutation/vitest.config.ts reuses HEAVY and ENV: Stryker runs an area's fast tier.
 */
export const HEAVY = [
  'test/proofs/**/*.test.ts',
  'test/**/*.browser.test.ts',
  'test/spin/cross-check.test.ts',
  // The hand-written models of the radix tree (nested prefixes too) and of early success and the torn room: 30 and 27 pan builds, 19 and 15 s of CPU (gcc).
  'test/spin/handwritten-radix.test.ts',
  'test/spin/handwritten-wire-early.test.ts',
  // The hand-written owner-check and hardened model against pagecheck on 8 configurations: 8 pan builds, about 9 s of CPU.
  'test/spin/handwritten-owner.test.ts',
  // Starts worker threads over whole levels: about 35 s of CPU (40 to 110 s of wall on a loaded 2-core machine).
  'test/checker/parallel.test.ts',
  // The one-thread search with its queue and parent links spilled to disk, against the same search in memory on five pinned configurations: about 5 s of CPU.
  'test/checker/spill.test.ts',
  // The same for the fingerprint-first path, with 3 workers (parallel.test.ts runs its configurations with 2): about 8 s of CPU.
  'test/checker/parallel-hashed.test.ts',
  // Thousands of pages and 10,000 random configurations: about a minute of CPU.
  'test/scale/**/*.test.ts',
  // The model-based test's 4,000-run tests (every mutant those runs can show fails by run 176); mbt.test.ts keeps its 2,000-run ones in the fast tier.
  'test/impl/mbt-long.test.ts',
  // The refinement with token slots and with eviction at their full counts; mbt-slots.test.ts and eviction.test.ts keep a sample of each in the fast tier.
  'test/impl/mbt-slots-long.test.ts',
  'test/impl/eviction-long.test.ts',
  // The pool with decode steps, growth and retraction (750 runs per variant, hardened 2,000, eviction 1,500, each life mutant's runs up to its first failure on the real pool): about 17 s of CPU; mbt-life.test.ts keeps a sample.
  'test/impl/mbt-life-long.test.ts',
  // The pool's radix tree: fixed and random configurations of every variant, four mutants (about 10 s of CPU).
  'test/impl/mbt-radix.test.ts',
  // The pool with writes landing in parts (torn-write, premature-success, aux-torn) and with the host tier's loads: about 13 and 8 s of CPU.
  'test/impl/mbt-torn.test.ts',
  'test/impl/mbt-loadback.test.ts',
  // The pool against the spec at real sizes (9 to 16 pages), beyond mbt-real-sizes.test.ts's sample: 2,500 configurations of up to 150 commands.
  'test/impl/mbt-real-sizes-long.test.ts',
  // Deriving the lifecycle explores 768 configurations (about 12 s of CPU) and the figures' witness runs search up to 9.2 million states: about 60 s of CPU.
  'test/docs/document.test.ts',
  // The slow figures (the matrix's searches twice, the removal table, the large live-naive table): about 10 CPU seconds.
  'test/docs/figures-slow.test.ts',
  // The pool's exhaustive prefix-page refinement and simulate's end-to-end runs: 9 and 7 s of CPU, the two costliest files left in the fast tier (bench suite-under-load).
  'test/impl/prefix-pages.test.ts',
  'test/simulation/simulate.test.ts',
  // The adapter protocol's version 2 through the reference Python adapter: 300 runs per variant and allocator with a request's life, about 13 s of CPU.
  'test/conformance/adapter-life.test.ts',
  // validate-log against 600 spec runs with torn writes, P's source pages and the early commit: about 4 s of CPU.
  'test/conformance/validate-torn-runs.test.ts',
  // Tests that start processes of their own to race or to re-run a suite: three tsx writers of pagecheck's record of written files (the race of stop 38's CI), and npm run mutation's static re-run (two vitest processes): about 4 and 5 s of CPU.
  'test/trace/written-record.test.ts',
  'test/bench/static-recheck.test.ts',
  // Quint's own runs (its TypeScript backend: no download): 11 to 16 s of CPU per file.
  'test/quint/run.test.ts',
  'test/quint/reads-pagecheck.test.ts',
  // The differential test of the successors at real sizes, beyond the fast tier's sample: 200 random configurations, up to 10,000 states each, about two minutes of CPU.
  'test/binding/agreement-heavy.test.ts',
  // hardened with every fault, retraction, growth and eviction: 3.2 million states, 11 to 20 s.
  'test/spec/retraction-heavy.test.ts',
  // Partial-order reduction against the plain search on 200 random configurations, four searches each way: about a minute of CPU.
  'test/binding/por-agreement-heavy.test.ts',
  // The reference adapter's 2,000-run passes at SGLang's page size; adapter-tokens.test.ts runs the first 500 of them, within which every broken adapter it knows fails.
  'test/conformance/adapter-tokens-long.test.ts',
  // A 600-request serving replay with the radix tree written as a log and validated four times (conforming, then three edits): about 5 s of CPU.
  'test/incident/radix-log.test.ts',
  'test/package/**/*.test.ts',
  'test/bench/**/*.test.ts',
];

/** What every test process sees. The replay hints name how pagecheck was started (cli/invocation.ts): the tests pin the installed command's form. pagecheck's record of the files it wrote (trace/written.ts) goes to a directory of the run's own. */
export const ENV = { npm_command: '', npm_lifecycle_event: '', PAGECHECK_STATE_DIR: join(tmpdir(), `pagecheck-test-state-${process.pid}`) };

export default defineConfig({
  // `import 'pagecheck'` in the tests resolves to the sources, not to a stale dist/ (tsconfig.json maps it the same way for tsc).
  resolve: { alias: [{ find: /^pagecheck$/, replacement: fileURLToPath(new URL('./index.ts', import.meta.url)) }] },
  test: {
    // Files in child processes (the heavy tier's one per file): a test stuck in a synchronous loop can be killed with its process.
    pool: 'forks',
    // The sources run as Node's own modules, compiled by tsx's loader, not through vite's module runner, which turns each
    // call into an imported function into a property lookup: the searches' loops took about twice the CPU there
    // (retraction-heavy 38.4 s -> 15.6 s, por-agreement-heavy 38.5 s -> 20.5 s; docs/TESTING.md). No test mocks a module,
    // which needs vitest's own loader (Node 22.15 or later), so that is off.
    execArgv: ['--import', 'tsx'],
    experimental: { viteModuleRunner: false, nodeLoader: false },
    // vitest's default on 2 cores is one file at a time; most files spend a second loading modules and little CPU after.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The costliest files first (test/support/sequencer.ts, costs in test/support/costs.json): no core idles at the end while a proof runs alone.
    sequence: { sequencer: CostSequencer },
    env: { ...ENV, PAGECHECK_FILE_TIMEOUT_MS: process.env['PAGECHECK_FILE_TIMEOUT_MS'] ?? '300000' },
    // A hard limit per file, on a thread of its own, that stops even a synchronous loop (test/support/watchdog.ts).
    setupFiles: ['test/support/watchdog.ts', 'test/support/file-cost.ts'],
    // (file-cost.ts logs each file's CPU time when PAGECHECK_TEST_COST_LOG names a file.)
    // Limits for hangs, not for speed: a busy 2-core machine runs a test five times slower than an idle one.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      // The fast tier's files share their processes (isolate: false): a fresh process per file spent about a second of CPU
      // starting and loading the same modules, most of the tier's time (CPU 408 s -> 238 s, docs/TESTING.md). What the
      // files share is the modules they import, and those modules' state; no test sets the environment, the directory or the clock.
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: HEAVY, isolate: false } },
      {
        extends: true,
        test: { name: 'heavy', include: HEAVY, testTimeout: 120_000, hookTimeout: 400_000, env: { ...ENV, PAGECHECK_FILE_TIMEOUT_MS: process.env['PAGECHECK_FILE_TIMEOUT_MS'] ?? '900000' } },
      },
    ],
  },
});
