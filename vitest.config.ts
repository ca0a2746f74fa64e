import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Two tiers, chosen here rather than by file names (other branches add and edit tests):
 * `fast` is everything that finishes in well under a minute (`npm run test:fast`);
 * `heavy` is the proofs' universe, the browser tests, SPIN and the packed-tarball install
 * (`npm run test:heavy`). `npm test` runs both, as CI does.
 */
const HEAVY = [
  'test/proofs/**/*.test.ts',
  'test/**/*.browser.test.ts',
  'test/spin/cross-check.test.ts',
  // Starts worker threads over whole levels: 40 to 110 s on a loaded 2-core machine.
  'test/checker/parallel.test.ts',
  'test/package/**/*.test.ts',
  'test/bench/**/*.test.ts',
];

/** What every test process sees. The replay hints name how pagecheck was started (cli/invocation.ts): the tests pin the installed command's form. pagecheck's record of the files it wrote (trace/written.ts) goes to a directory of the run's own. */
const ENV = { npm_command: '', npm_lifecycle_event: '', PAGECHECK_STATE_DIR: join(tmpdir(), `pagecheck-test-state-${process.pid}`) };

export default defineConfig({
  // `import 'pagecheck'` in the tests resolves to the sources, not to a stale dist/ (tsconfig.json maps it the same way for tsc).
  resolve: { alias: [{ find: /^pagecheck$/, replacement: fileURLToPath(new URL('./index.ts', import.meta.url)) }] },
  test: {
    // Each file in a child process: a test stuck in a synchronous loop can be killed with its process.
    pool: 'forks',
    env: { ...ENV, PAGECHECK_FILE_TIMEOUT_MS: process.env['PAGECHECK_FILE_TIMEOUT_MS'] ?? '60000' },
    // A hard limit per file, on a thread of its own, that stops even a synchronous loop (test/support/watchdog.ts).
    setupFiles: ['test/support/watchdog.ts'],
    testTimeout: 15_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: HEAVY } },
      {
        extends: true,
        test: { name: 'heavy', include: HEAVY, testTimeout: 120_000, hookTimeout: 400_000, env: { ...ENV, PAGECHECK_FILE_TIMEOUT_MS: process.env['PAGECHECK_FILE_TIMEOUT_MS'] ?? '900000' } },
      },
    ],
  },
});
