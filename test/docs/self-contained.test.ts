/** The repository stands alone (issue 12, item 7): nothing cites a requirements file that a clone does not have. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../docs/generate/index.ts';

/** Spelled in two parts so that this file does not cite them itself. */
const FORBIDDEN = ['PROTOCOL' + '.md', '../' + 'shared'];
// .scratch is a developer's gitignored scratch space, never in a clone.
const SKIP = new Set(['node_modules', 'dist', '.git', '.scratch', 'package-lock.json']);

/** Every text file of the repository, relative to its root. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|js|md|json|sh|pml)$|^run$/.test(name) ? [path] : [];
  });
}

describe('self-contained', () => {
  it('no file cites the requirements document by name or path', () => {
    const citing = files(REPO_ROOT).filter((f) => FORBIDDEN.some((s) => readFileSync(f, 'utf8').includes(s)));
    expect(citing.map((f) => relative(REPO_ROOT, f))).toEqual([]);
  });

  it('the background document covers the incident, the real protocol and the simplifications', () => {
    const text = readFileSync(join(REPO_ROOT, 'docs/BACKGROUND.md'), 'utf8');
    expect(text.match(/^## .*/gm)).toEqual(['## The incident', '## The real protocol', '## The model', '## What the model simplifies']);
  });
});
