/**
 * The command line bundled from the sources, as `npm run build` bundles it, in a package
 * of its own (so that no test reads a stale dist/): for tests that start it as a process,
 * which costs a tenth of what tsx costs each process and worker on a busy machine.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleCli } from '../../cli/build/bundle.ts';

/** The repository's root. */
const REPO = join(import.meta.dirname, '../..');

/** A bundled CLI: the path of its `bin.js`, its directory, and how to remove it. */
export interface BundledCli {
  /** `cli/bin.js` in the package. */
  readonly bin: string;
  /** The package's directory, a scratch directory the test may also write into. */
  readonly dir: string;
  /** Removes the package. */
  readonly remove: () => void;
}

/** Bundles the CLI into a fresh package under the system's temporary directory, named from `prefix`. */
export async function bundledCli(prefix: string): Promise<BundledCli> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'pagecheck', version: '0.0.0-test', type: 'module' }));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  await bundleCli(dir);
  return { bin: join(dir, 'cli/bin.js'), dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
