/**
 * The packed tarball as a new user meets it (issue 12, "done when"): installed into a fresh
 * project, imported by plain node, type-checked by a strict tsc of the user's own, and run
 * as `npx pagecheck`. Every step is a child process with a hard timeout.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '../..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** A user's file that imports and uses the public API. */
const USER_CODE = `import { check, checkedModel, compile, formatItf, incidentConfig, replayItf, PagePool, type Action, type CheckResult } from 'pagecheck';
const m = compile(incidentConfig('buggy'));
const result: CheckResult<Action> = check(checkedModel(m));
const v = result.violations[0];
if (v !== undefined) {
  const r = replayItf(JSON.parse(formatItf(m, v.trace, v.invariant)) as unknown);
  const outcome: 'ok' | 'violation' = r.outcome;
  console.log(outcome, typeof PagePool);
}
`;

/** A strict tsconfig with nothing of pagecheck's own options, no @types/node, library checking on. */
const USER_TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [] },
  files: ['use.ts'],
};

let project: string;
/** The tarball `npm pack` wrote into the project. */
let tarball: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'pagecheck-user-'));
  await run('npm', ['pack', '--silent', '--pack-destination', project], { cwd: REPO, timeout: 360_000 });
  const packed = readdirSync(project).find((f) => f.endsWith('.tgz'));
  if (packed === undefined) throw new Error(`npm pack wrote no tarball in ${project}`);
  tarball = packed;
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', type: 'module', private: true }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: project, timeout: 240_000 });
}, 400_000);

afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the packed tarball in a fresh project', () => {
  it('imports with plain node', async () => {
    const { stdout } = await run(process.execPath, ['-e', "import('pagecheck').then((m) => console.log(typeof m.check, typeof m.compile))"], { cwd: project, timeout: 120_000 });
    expect(stdout.trim()).toBe('function function');
  });

  it('type-checks a user file under a strict tsc', async () => {
    writeFileSync(join(project, 'use.ts'), USER_CODE);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(USER_TSCONFIG));
    // Limits for hangs: beside other work on 2 cores this tsc took past 60 s of wall (issue 28), and a timeout prints no stdout.
    const result = await run(process.execPath, [TSC, '-p', '.'], { cwd: project, timeout: 240_000 }).then(
      () => 'no errors',
      (e: { stdout: string; message: string }) => (e.stdout === '' ? e.message : e.stdout),
    );
    expect(result).toBe('no errors');
  }, 300_000);

  it('npx pagecheck prints the leak', async () => {
    const args = ['pagecheck', 'check', '--variant', 'buggy', '--pages', '3', '--prefill-limit', '2', '--requests', '2,3'];
    const failure = await run('npx', ['--offline', ...args], { cwd: project, timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } }).then(
      () => undefined,
      (e: { code: number; stdout: string }) => e,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toContain('VIOLATION of Isolation');
    const hint = /^replay: (npx pagecheck check .*)$/m.exec(failure?.stdout ?? '');
    expect(hint?.[1]).toBe('npx pagecheck check --variant buggy --pages 3 --prefill-limit 2 --requests 2,3 --invariant Isolation');
    // The hint works as printed, from the user's project.
    const [npx, ...rest] = hint![1]!.split(' ');
    const again = await run(npx!, ['--offline', ...rest], { cwd: project, timeout: 120_000 }).then(
      () => 0,
      (e: { code: number }) => e.code,
    );
    expect(again).toBe(1);
  }, 300_000);

  it('--version, and a clear message for a command whose development dependency is absent', async () => {
    const version = await run('npx', ['--offline', 'pagecheck', '--version'], { cwd: project, timeout: 120_000 });
    expect(version.stdout).toBe('0.1.0\n');
    const docs = await run('npx', ['--offline', 'pagecheck', 'docs', '--check'], { cwd: project, timeout: 120_000 }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(docs?.code).toBe(2);
    expect(docs?.stderr).toContain('pagecheck: docs: needs the package typescript, which is not installed');
  }, 300_000);

  it('ships the build, the docs and the licence, not the tests', async () => {
    // the tarball installed above, listed (a second `npm pack --dry-run` ran the whole build again: prepare)
    const { stdout } = await run('tar', ['-tzf', join(project, tarball)], { timeout: 60_000 });
    const files = stdout.split('\n').filter((f) => f !== '').map((f) => f.replace(/^package\//, ''));
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/cli/bin.js');
    expect(files).toContain('LICENSE');
    expect(files).toContain('docs/SPEC.md');
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('.ci/') || f.endsWith('.test.ts'))).toEqual([]);
  }, 90_000);
});
