/**
 * npm run mutation's re-run of static mutants (bench/mutation/static-recheck.ts), held on a
 * small repository of its own: a module that builds a table when it loads, and a test of
 * it. Stryker's vitest runner scores a mutant that makes the test file fail to load as
 * surviving; the re-run must call it killed, and must still call a harmless one surviving.
 * And a survivor that is not static, killed only by a test that skips itself in Stryker's
 * instrumented run (as test/binding/fast-emit.test.ts's freshness test does), must be
 * killed in the re-run and counted as killed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMutant, INSTRUMENTED_ENV, recheckStatic } from '../../bench/mutation/static-recheck.ts';
import { KILLED_ON_RELOAD, recheckReport, scoreOf, type Report } from '../../bench/mutation/stryker.ts';

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

/** A test that reads the module as text, skipped in Stryker's instrumented run (as fast-emit.test.ts's freshness test is): only it sees line 1's message. */
const TEXT_TEST = `import { readFileSync } from 'node:fs';\nimport { expect, it } from 'vitest';\nit.skipIf(process.env.${INSTRUMENTED_ENV} !== undefined)('text', () => expect(readFileSync('spec/table.ts', 'utf8')).toContain("'no table'"));\n`;

/** A repository with the module, a test of it (and `extra` tests), and Stryker's vitest configuration as bench/mutation has it (its own area's tests). */
function repository(name = 'repo', extra: Record<string, string> = {}): string {
  const repo = join(dir, name);
  mkdirSync(join(repo, 'spec'), { recursive: true });
  mkdirSync(join(repo, 'test/spec'), { recursive: true });
  mkdirSync(join(repo, 'bench/mutation'), { recursive: true });
  writeFileSync(join(repo, 'package.json'), '{"type": "module"}\n');
  writeFileSync(join(repo, 'spec/table.ts'), TABLE);
  writeFileSync(join(repo, 'test/spec/table.test.ts'), `import { expect, it } from 'vitest';\nimport { first } from '../../spec/table.ts';\nit('first', () => expect(first()).toBe(2));\n`);
  for (const [file, text] of Object.entries(extra)) writeFileSync(join(repo, file), text);
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

  it('a survivor that is not static, killed only by a test Stryker\'s run skips, is killed in the clean copy and counted as killed', async () => {
    const repo = repository('repo-text', { 'test/spec/text.test.ts': TEXT_TEST });
    const at = TABLE.indexOf("'no table'") + 1;
    const quiet = { mutatorName: 'StringLiteral', replacement: '""', status: 'Survived', location: { start: { line: 1, column: at }, end: { line: 1, column: at + 10 } } };
    const report: Report = { files: { 'spec/table.ts': { source: TABLE, mutants: [quiet, { ...quiet, status: 'Killed' }] } } };
    // As in Stryker's run: the re-run must unset it, or the text test would skip there too.
    process.env[INSTRUMENTED_ENV] = '1';
    try {
      expect(await recheckReport(repo, 'spec', report, 120)).toBe(1);
    } finally {
      delete process.env[INSTRUMENTED_ENV];
    }
    expect(report.files['spec/table.ts']!.mutants.map((m) => m.status)).toEqual([KILLED_ON_RELOAD, 'Killed']);
    expect(scoreOf('spec', report, ['spec/table.ts:1-1'], 1).score).toMatchObject({ mutants: 2, killed: 2, killedOnReload: 1, survived: 0, score: 100 });
  }, 120_000);

  it('the score counts a static mutant killed on reload as killed, and says how many', () => {
    const mutant = (status: string) => ({ mutatorName: 'ArithmeticOperator', replacement: '-1', status, static: true, location: { start: { line: 2, column: 28 }, end: { line: 2, column: 29 } } });
    const report: Report = { files: { 'spec/table.ts': { source: TABLE, mutants: [mutant(KILLED_ON_RELOAD), mutant('Survived'), mutant('Killed')] } } };
    const { score, survivors } = scoreOf('spec', report, ['spec/table.ts:2-2'], 1);
    expect(score).toMatchObject({ mutants: 3, killed: 2, killedOnReload: 1, survived: 1, score: 66.7 });
    expect(survivors).toHaveLength(1);
  });
});
