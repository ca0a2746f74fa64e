/**
 * npm run mutation's re-run of static mutants (bench/mutation/static-recheck.ts), held on a
 * small repository of its own: a module that builds a table when it loads, and a test of
 * it. Stryker's vitest runner scores a mutant that makes the test file fail to load as
 * surviving; the re-run must call it killed, and must still call a harmless one surviving.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMutant, recheckStatic } from '../../bench/mutation/static-recheck.ts';
import { KILLED_ON_RELOAD, scoreOf, type Report } from '../../bench/mutation/stryker.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'pagecheck-static-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module: line 2 builds the table at load (a static mutant's place); line 4 is a harmless spot. */
const TABLE = `const build = (n: number): number[] => { if (n < 0) throw new Error('no table'); return [n, n + 1]; };
export const TABLE = build(2);
export function first(): number {
  return TABLE[0] ?? 0;
}
`;

/** A repository with the module, a test of it, and Stryker's vitest configuration as bench/mutation has it (its own area's tests). */
function repository(): string {
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'spec'), { recursive: true });
  mkdirSync(join(repo, 'test/spec'), { recursive: true });
  mkdirSync(join(repo, 'bench/mutation'), { recursive: true });
  writeFileSync(join(repo, 'package.json'), '{"type": "module"}\n');
  writeFileSync(join(repo, 'spec/table.ts'), TABLE);
  writeFileSync(join(repo, 'test/spec/table.test.ts'), `import { expect, it } from 'vitest';\nimport { first } from '../../spec/table.ts';\nit('first', () => expect(first()).toBe(2));\n`);
  writeFileSync(join(repo, 'bench/mutation/vitest.config.ts'), `import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['test/' + process.env.PAGECHECK_MUTATION_AREA + '/**/*.test.ts'] } });\n`);
  symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'));
  writeFileSync(join(repo, '.gitignore'), 'node_modules\n');
  execFileSync('git', ['init', '-q'], { cwd: repo });
  return repo;
}

describe('static mutants, run again in a fresh process', () => {
  it('places a mutant where Stryker\'s report says, columns 1-based and the end exclusive', () => {
    expect(applyMutant(TABLE, { line: 2, column: 28 }, { line: 2, column: 29 }, '-1')).toContain('export const TABLE = build(-1);');
    expect(applyMutant('ab\ncd\n', { line: 2, column: 1 }, { line: 2, column: 3 }, 'X')).toBe('ab\nX\n');
  });

  it('a mutant that breaks the module at load is killed; one that changes nothing a test reads survives; the sources are left as they were', async () => {
    const repo = repository();
    const breaks = { file: 'spec/table.ts', start: { line: 2, column: 28 }, end: { line: 2, column: 29 }, replacement: '-1' };
    const harmless = { file: 'spec/table.ts', start: { line: 4, column: 21 }, end: { line: 4, column: 22 }, replacement: '2' };
    expect(await recheckStatic(repo, 'spec', [breaks, harmless], 120)).toEqual(['killed', 'survived']);
    expect(readFileSync(join(repo, 'spec/table.ts'), 'utf8')).toBe(TABLE);
  }, 120_000);

  it('the score counts a static mutant killed on reload as killed, and says how many', () => {
    const mutant = (status: string) => ({ mutatorName: 'ArithmeticOperator', replacement: '-1', status, static: true, location: { start: { line: 2, column: 28 }, end: { line: 2, column: 29 } } });
    const report: Report = { files: { 'spec/table.ts': { source: TABLE, mutants: [mutant(KILLED_ON_RELOAD), mutant('Survived'), mutant('Killed')] } } };
    const { score, survivors } = scoreOf('spec', report, ['spec/table.ts:2-2'], 1);
    expect(score).toMatchObject({ mutants: 3, killed: 2, killedOnReload: 1, survived: 1, score: 66.7 });
    expect(survivors).toHaveLength(1);
  });
});
