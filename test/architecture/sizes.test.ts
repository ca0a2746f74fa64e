import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, oversizes } from './sizes.ts';
import { SIZE_EXCEPTIONS } from './size-exceptions.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const found = oversizes(ROOT);

describe(`sizes: files of at most ${MAX_FILE_LINES} lines, functions of at most ${MAX_FUNCTION_LINES} (issue 22)`, () => {
  it('every file and function over its limit is a listed exception, with its reason', () => {
    const listed = new Set(SIZE_EXCEPTIONS.map((e) => e.id));
    expect(found.filter((o) => !listed.has(o.id)).map((o) => `${o.id}: ${o.lines} lines`)).toEqual([]);
  });

  it('every listed exception is still over its limit (a split one leaves the list)', () => {
    const over = new Set(found.map((o) => o.id));
    expect(SIZE_EXCEPTIONS.filter((e) => !over.has(e.id)).map((e) => e.id)).toEqual([]);
  });

  it('every exception gives a reason', () => {
    expect(SIZE_EXCEPTIONS.filter((e) => e.reason.trim().length < 20).map((e) => e.id)).toEqual([]);
  });

  it('measures what the compiler calls a function: a 61-line arrow in a property is seen, a 60-line one is not', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const root = mkdtempSync(join(tmpdir(), 'pagecheck-sizes-'));
    const body = (n: number): string => Array.from({ length: n - 2 }, (_, i) => `  const x${i} = ${i};`).join('\n');
    const folders = ['spec', 'binding', 'checker', 'trace', 'impl', 'conformance', 'scale', 'simulation', 'incident', 'matrix', 'proofs', 'spin', 'cli', 'docs/generate', 'figures', 'bench'];
    for (const f of folders) mkdirSync(join(root, f), { recursive: true });
    writeFileSync(join(root, 'index.ts'), '');
    writeFileSync(join(root, 'spec/a.ts'), `export const table = {\n  long: () => {\n${body(61)}\n  },\n  short: () => {\n${body(60)}\n  },\n};\n`);
    expect(oversizes(root).map((o) => `${o.id} ${o.lines}`)).toEqual(['spec/a.ts:long 61']);
  });
});
