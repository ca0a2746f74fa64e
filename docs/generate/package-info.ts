/**
 * pagecheck's own package.json, found by walking up from this file, so that the same code
 * works from the sources (`docs/generate/`) and from the build (`dist/docs/generate/`); the command line asks it for the version, the document generator for the spec sources.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory that holds pagecheck's package.json: the repository, or the installed package. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && readName(candidate) === 'pagecheck') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('pagecheck: cannot find its own package.json');
    dir = up;
  }
}

/** The `name` field of a package.json, or undefined when it has none or cannot be read. */
function readName(path: string): string | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown };
    return typeof parsed.name === 'string' ? parsed.name : undefined;
  } catch {
    return undefined;
  }
}

/** pagecheck's version, from its package.json. */
export function packageVersion(): string {
  const parsed = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  return typeof parsed.version === 'string' ? parsed.version : 'unknown';
}
