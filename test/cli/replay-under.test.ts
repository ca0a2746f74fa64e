/**
 * `replay FILE` with model flags (issue 28, item 2): the flags are never ignored. On a
 * trace that carries its model, the trace's actions run on the model the flags give, which
 * answers "under length-fix, does this trace still fit, and does it still leak?".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagecheck } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-replay-under-'));
const leak = join(dir, 'leak.itf.json');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  expect((await pagecheck('check', '--itf', leak)).code).toBe(1);
});

const RECORDED = '(as recorded, under buggy · 3 pages · prefill limit 2 · requests A:2 B:3 · faults silent-stub: Isolation is violated at step 9)';

describe('replay with model flags on a trace that carries its model', () => {
  it('--variant length-fix: the stub is not enabled, so the leak cannot happen (exit 0)', async () => {
    const r = await pagecheck('replay', leak, '--variant', 'length-fix');
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      `replay: under length-fix · 3 pages · prefill limit 2 · requests A:2 B:3 · no faults: step 8 of ${leak}, handoff(B), is not enabled (B is refused), so the trace cannot happen there; no invariant is violated before it\n${RECORDED}\n`,
    );
  });

  it('--variant owner-check: every step is enabled and nothing leaks (exit 0)', async () => {
    const r = await pagecheck('replay', leak, '--variant', 'owner-check', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ outcome: 'ok', steps: 9, under: { variant: 'owner-check', faults: ['silent-stub'] }, recorded: { outcome: 'violation', invariant: 'Isolation', step: 9 } });
  });

  it('--pages 5: the leak still happens (exit 1), on the larger model', async () => {
    const r = await pagecheck('replay', leak, '--pages', '5');
    expect(r.code).toBe(1);
    expect(r.out).toContain(`replay: under buggy · 5 pages · prefill limit 2 · requests A:2 B:3 · faults silent-stub: every step of ${leak} up to step 9 is enabled; Isolation is violated at step 9\n`);
  });

  it('--requests 2: an action that names a request the model lacks', async () => {
    const r = await pagecheck('replay', leak, '--requests', '2', '--json');
    expect(JSON.parse(r.out)).toMatchObject({ outcome: 'not-enabled', step: 6, action: 'allocate(B)', why: 'it names no request of this model' });
  });

  it('without flags, the trace as recorded', async () => {
    const r = await pagecheck('replay', leak);
    expect([r.code, r.out.trim().split('\n').at(-1)]).toEqual([1, `replay: every step of ${leak} fits the spec; Isolation is violated at step 9`]);
  });

  it('a bad flag is still exit 2', async () => {
    const r = await pagecheck('replay', leak, '--variant', 'fixed');
    expect(r.code).toBe(2);
    expect(r.err).toContain('--variant: expected one of buggy, length-fix, owner-check, hardened, got "fixed"');
  });
});
