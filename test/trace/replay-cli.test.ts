import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { pagecheck } from '../support/cli.ts';
import { formatItf } from '../../trace/index.ts';
import { minimalLeak, ownerCheck } from './traces.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-replay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = undefined;
  vi.restoreAllMocks();
});


const leakFile = join(dir, 'leak.itf.json');
{
  const { m, trace } = minimalLeak();
  writeFileSync(leakFile, formatItf(m, trace, 'Isolation'));
}

describe('pagecheck replay', () => {
  it('prints the trace and exits 1 on the violation it shows', async () => {
    const { code, out } = await pagecheck('replay', leakFile);
    expect(code).toBe(1);
    expect(out.split('\n')[0]).toBe("Isolation violated after 9 steps: B read page 1, which holds A's data written at step 2.");
    expect(out).toContain(`replay: every step of ${leakFile} fits the spec; Isolation is violated at step 9`);
    expect(out).not.toMatch(/\u001b\[/);
  });

  it('prints the outcome as JSON with --json', async () => {
    const { code, out } = await pagecheck('replay', leakFile, '--json');
    expect(code).toBe(1);
    expect(JSON.parse(out)).toEqual({
      file: leakFile,
      outcome: 'violation',
      invariant: 'Isolation',
      step: 9,
      steps: 9,
      explanation: ["B read page 1, which holds A's data written at step 2."],
    });
  });

  it('exits 0 on a trace without violation', async () => {
    const { m, trace } = ownerCheck();
    const file = join(dir, 'owner-check.itf.json');
    writeFileSync(file, formatItf(m, trace));
    const { code, out } = await pagecheck('replay', file);
    expect(code).toBe(0);
    expect(out).toBe(`replay: every step of ${file} fits the spec (15 steps); no invariant is violated\n`);
  });

  it('exits 2 on a tampered trace, naming the step and the difference', async () => {
    const json = JSON.parse(readFileSync(leakFile, 'utf8'));
    json.states[7].pages[1].data = 'B';
    const file = join(dir, 'tampered.itf.json');
    writeFileSync(file, JSON.stringify(json));
    const { code, out, err } = await pagecheck('replay', file);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toBe(`pagecheck: ${file}: step 7: recorded pages[1].data is "B" but the spec gives "A"\n`);
  });

  it('exits 2 on a file that is missing or not JSON', async () => {
    const missing = await pagecheck('replay', join(dir, 'nope.json'));
    expect([missing.code, missing.err]).toEqual([2, `pagecheck: cannot read trace file ${join(dir, 'nope.json')}: ENOENT\n`]);
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"#meta": ');
    const broken = await pagecheck('replay', file);
    expect(broken.code).toBe(2);
    expect(broken.err).toMatch(new RegExp(`^pagecheck: trace file ${file} is not valid JSON: `));
  });

  it('exits 2 from the installed command too', async () => {
    const json = JSON.parse(readFileSync(leakFile, 'utf8'));
    json.states[4]['mbt::actionTaken'] = 'free';
    const file = join(dir, 'swapped.itf.json');
    writeFileSync(file, JSON.stringify(json));
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'cli/bin.ts', 'replay', file], { env: { ...process.env, NO_COLOR: '1' } });
    const failure = await run.then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toBe(`pagecheck: ${file}: step 4: free(A) is not enabled (A is handedOff)\n`);
  });
});
