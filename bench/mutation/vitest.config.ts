/**
 * The vitest configuration Stryker runs (bench/mutation/stryker.config.json): one area's
 * own tests, `test/<area>`, named by `PAGECHECK_MUTATION_AREA`, in the fast tier only
 * (the root config's HEAVY list left out, as its ENV is kept). Stryker's runner puts the
 * files in worker threads and stops at the first failing test, which a kill needs.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { ENV, HEAVY } from '../../vitest.config.ts';

const area = process.env['PAGECHECK_MUTATION_AREA'];
if (area === undefined || !/^[a-z]+$/.test(area)) throw new Error(`PAGECHECK_MUTATION_AREA: expected an area such as spec, got ${JSON.stringify(area)}`);

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { alias: [{ find: /^pagecheck$/, replacement: fileURLToPath(new URL('../../index.ts', import.meta.url)) }] },
  test: {
    include: [`test/${area}/**/*.test.ts`],
    exclude: [...HEAVY, '**/node_modules/**'],
    env: { ...ENV, PAGECHECK_FILE_TIMEOUT_MS: '900000' },
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
