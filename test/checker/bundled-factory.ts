/**
 * The factory a parallel search's workers build their model from, for the tests that start
 * dozens of them (parallel.test.ts, parallel-hashed.test.ts): `specFactory`'s, with its
 * module (binding/checked-model.ts) bundled by esbuild once per test file. From the sources,
 * each worker loaded the spec under tsx module by module, 0.1 to 0.17 s of CPU more than
 * from the bundle (issue 28). The configuration still reaches the worker through
 * `specFactory`, so a fault or switch lost on the way still changes the counts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll } from 'vitest';
import type { ModelFactory } from '../../checker/index.ts';
import { specFactory } from '../../cli/commands/check.ts';
import type { Config } from '../../spec/index.ts';

/** Returns the bundling factory for one test file: call at the file's top level (the bundle is removed after its tests). */
export function bundledFactory(): (config: Config) => ModelFactory {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-parallel-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const bundle = join(dir, 'checked-model.mjs');
  buildSync({ entryPoints: [fileURLToPath(new URL('../../binding/checked-model.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'warning' });
  const module = pathToFileURL(bundle).href;
  return (config) => ({ ...specFactory(config), module });
}
