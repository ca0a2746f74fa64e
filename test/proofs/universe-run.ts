/**
 * Universes checked in a child Node process (`universe-child.ts`), outside vitest, whose
 * module runner makes the loop over tens of millions of states six times slower.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import type { UniverseResult } from './enumerate.ts';
import type { UniverseRun } from './universe-child.ts';

export { universeModel, type UniverseRun } from './universe-child.ts';

const CHILD = fileURLToPath(new URL('./universe-child.ts', import.meta.url));

/**
 * Checks the universes in a child Node process and returns its results. The child is
 * bundled into one module (esbuild, a few hundred milliseconds): started with tsx it spent
 * about 2 s of CPU loading the sources module by module.
 */
export function checkUniverses(runs: readonly UniverseRun[]): UniverseResult[] {
  const dir = mkdtempSync(join(tmpdir(), 'pagecheck-universe-'));
  try {
    const script = join(dir, 'universe-child.mjs');
    buildSync({ entryPoints: [CHILD], outfile: script, bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
    const out = execFileSync(process.execPath, [script, JSON.stringify(runs)], { encoding: 'utf8', maxBuffer: 1 << 24 });
    return JSON.parse(out) as UniverseResult[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
