import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AdapterProcess, splitCommand } from '../../conformance/adapter/index.ts';
import { pagecheck } from '../support/cli.ts';

const REFERENCE = 'python3 examples/adapters/python/adapter.py';
const BROKEN = 'python3 examples/adapters/python/broken_adapter.py';
const dir = mkdtempSync(join(tmpdir(), 'pagecheck-adapter-'));

/** Whether a process still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs `mbt --adapter` on the misbehaving adapter in `mode`; its exit, its stderr, and whether its process is gone. */
async function misbehave(mode: string, ...extra: string[]): Promise<{ code: number; err: string; reaped: boolean }> {
  const pidfile = join(dir, `${mode}.pid`);
  const r = await pagecheck('mbt', '--adapter', `python3 test/conformance/adapters/misbehave.py ${mode} ${pidfile}`, '--runs', '20', ...extra);
  if (!existsSync(pidfile)) throw new Error(`the adapter (${mode}) never started: exit ${r.code}, ${r.err}`);
  const pid = Number(readFileSync(pidfile, 'utf8'));
  return { code: r.code, err: r.err, reaped: !alive(pid) };
}

describe('the reference Python adapter', () => {
  it('implements the documented allocator orders (its own self-test)', () => {
    expect(execFileSync('python3', ['examples/adapters/python/adapter.py', '--self-test'], { encoding: 'utf8' })).toContain('self-test passed');
  });

  it('passes 2,000 runs under owner-check, random configurations and faults', async () => {
    const r = await pagecheck('mbt', '--adapter', REFERENCE, '--variant', 'owner-check', '--random', '--runs', '2000', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ verdict: 'pass', runs: 2000, observes: ['holder', 'data', 'tag', 'phase', 'table', 'read', 'free'] });
  }, 120_000);

  it("follows the owner check's position rule (issue 14): a prefix's tag passes only at the prefix's position", async () => {
    // Before the adapter learnt the rule it decoded B here where the spec fails it.
    const r = await pagecheck('mbt', '--adapter', REFERENCE, '--variant', 'owner-check', '--pages', '4', '--prefill-limit', '3', '--requests', '1,2:sys,3:sys', '--faults', 'silent-stub,early-free', '--runs', '300');
    expect(r.code).toBe(0);
  }, 60_000);

  it('passes 300 runs on the minimal incident under length-fix', async () => {
    const r = await pagecheck('mbt', '--adapter', REFERENCE, '--variant', 'length-fix', '--runs', '300');
    expect(r.code).toBe(0);
  }, 60_000);
});

describe('broken_adapter.py: a double free on the abort path', () => {
  it('fails, shrinks to the five actions of a loud failure and its release, and replays from the printed line', async () => {
    const r = await pagecheck('mbt', '--adapter', BROKEN, '--variant', 'owner-check', '--random', '--faults', 'silent-stub', '--runs', '2000', '--json');
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as { property: string; trace: string[]; message: string; replay: string; seed: number; path: string };
    expect(json.property).toBe('Refinement');
    expect(json.trace).toEqual(['allocate(A)', 'stub(A)', 'handoff(A)', 'decode(A)', 'free(A)']);
    expect(json.message).toContain('the free list (sorted): spec [0,1], adapter [0,0,1,1]');
    expect(json.replay).toContain(`--adapter "${BROKEN}"`);
    const again = await pagecheck('mbt', '--adapter', BROKEN, '--variant', 'owner-check', '--random', '--faults', 'silent-stub', '--seed', String(json.seed), '--path', json.path, '--json');
    expect(again.code).toBe(1);
    expect((JSON.parse(again.out) as { trace: string[] }).trace).toEqual(json.trace);
  }, 120_000);
});

describe('adapters that fail as programs: a clear error, exit 2, no process left', () => {
  it('one that crashes', async () => {
    const r = await misbehave('crash');
    expect(r.code).toBe(2);
    expect(r.err).toContain('it exited before answering the reset message (exit 3)');
    expect(r.err).toContain('boom: the allocator could not be built');
    expect(r.reaped).toBe(true);
  }, 30_000);

  it('one that hangs: the per-message timeout kills it', async () => {
    // The timeout covers the handshake too, which a busy machine can delay by seconds: 400 ms failed there.
    const r = await misbehave('hang', '--adapter-timeout', '5000');
    expect(r.code).toBe(2);
    expect(r.err).toContain('it did not answer the reset message within 5000 ms (it was killed)');
    expect(r.reaped).toBe(true);
  }, 30_000);

  it('one that prints garbage', async () => {
    const r = await misbehave('garbage');
    expect(r.code).toBe(2);
    expect(r.err).toContain('its answer to the reset message is wrong: not valid JSON: "allocator ready!!"');
    expect(r.reaped).toBe(true);
  }, 30_000);

  it('one that exits early, in the middle of a run, with a traceback', async () => {
    const r = await misbehave('late');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/it exited before answering the action \w+\(\w\) \(exit 1\)/);
    expect(r.err).toContain('RuntimeError: allocator state corrupted');
    expect(r.reaped).toBe(true);
  }, 30_000);

  it('a command that does not exist', async () => {
    const r = await pagecheck('mbt', '--adapter', 'no-such-adapter-program --x', '--runs', '5');
    expect(r.code).toBe(2);
    expect(r.err).toContain('it could not start: ENOENT');
  });
});

describe('splitCommand', () => {
  it('splits as a shell would, without one', () => {
    expect(splitCommand(`python3 "my adapter.py" --order 'sglang' a\\ b`)).toEqual(['python3', 'my adapter.py', '--order', 'sglang', 'a b']);
    expect(() => splitCommand('python3 "open')).toThrow('unterminated " quote');
  });

  it('an adapter process is reaped by close()', async () => {
    const p = new AdapterProcess('python3 -c "import time; time.sleep(60)"');
    const pid = p.pid ?? -1;
    expect(alive(pid)).toBe(true);
    await p.close();
    expect(alive(pid)).toBe(false);
  });
});
