/**
 * pagecheck's record of the files it wrote, held against what broke it: a suite's workers
 * (or a CI job's parallel steps) remembering files at the same moment. With one shared
 * JSON file rewritten by each, a process could drop another's entry, and `docs` then
 * refused to overwrite its own file (CI run of stop 38). Each test uses a state directory
 * of its own, so that the count of entries is exact.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { recordPath, writeOutput, wroteIt } from '../../trace/written.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module under test, imported by each child process. */
const WRITTEN = join(import.meta.dirname, '../../trace/written.ts');

/** A child that writes `count` files named `${tag}-i.txt` in `out`, each through writeOutput, as fast as it can. */
function writer(state: string, out: string, tag: string, count: number): Promise<unknown> {
  const script = `const { writeOutput } = await import(${JSON.stringify(WRITTEN)});
for (let i = 0; i < ${count}; i++) writeOutput('--out', ${JSON.stringify(out)} + '/${tag}-' + i + '.txt', '${tag} ' + i + '\\n');`;
  return promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...process.env, PAGECHECK_STATE_DIR: state },
  });
}

describe("the record of what pagecheck wrote", () => {
  it('keeps every entry when three processes write at once', async () => {
    const state = join(dir, 'state-race');
    const out = mkdtempSync(join(dir, 'out-'));
    await Promise.all(['a', 'b', 'c'].map((tag) => writer(state, out, tag, 60)));
    const before = process.env['PAGECHECK_STATE_DIR'];
    process.env['PAGECHECK_STATE_DIR'] = state;
    try {
      const lost = ['a', 'b', 'c'].flatMap((tag) => Array.from({ length: 60 }, (_, i) => join(out, `${tag}-${i}.txt`))).filter((p) => !wroteIt(p));
      expect(lost).toEqual([]);
      expect(readdirSync(recordPath({ PAGECHECK_STATE_DIR: state })).filter((n) => !n.startsWith('.'))).toHaveLength(180);
    } finally {
      if (before === undefined) delete process.env['PAGECHECK_STATE_DIR'];
      else process.env['PAGECHECK_STATE_DIR'] = before;
    }
  }, 60_000);

  it('lives in $PAGECHECK_STATE_DIR, else $XDG_STATE_HOME/pagecheck, and an edited file is no longer ours', () => {
    expect(recordPath({ PAGECHECK_STATE_DIR: '/s', XDG_STATE_HOME: '/x' })).toBe('/s/written');
    expect(recordPath({ XDG_STATE_HOME: '/x' })).toBe('/x/pagecheck/written');
    const file = join(dir, 'mine.txt');
    writeOutput('--out', file, 'one\n');
    expect(wroteIt(file)).toBe(true);
    writeFileSync(file, 'one\nedited\n');
    expect(wroteIt(file)).toBe(false);
    writeOutput('--out', file, 'two\n');
    expect(wroteIt(file)).toBe(true);
  });
});
