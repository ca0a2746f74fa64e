import { afterEach, describe, expect, it } from 'vitest';
import { pagecheck } from '../support/cli.ts';

afterEach(() => {
  process.exitCode = undefined;
});

describe("issue 14's acceptance commands", () => {
  it('check --variant owner-check --faults early-free,torn-write --pages 2 --prefill-limit 2 --requests 1,1 --json: Isolation, 10 actions, exit 1', async () => {
    const { code, out } = await pagecheck('check', '--variant', 'owner-check', '--faults', 'early-free,torn-write', '--pages', '2', '--prefill-limit', '2', '--requests', '1,1', '--json');
    expect(code).toBe(1);
    expect(JSON.parse(out)).toMatchObject({ verdict: 'violation', invariant: 'Isolation', distinctStates: 244, depth: 10, traceLength: 10 });
  });

  it('check --variant hardened ... --decode-steps 2 --invariant Isolation,Integrity: holds, every witness reached, exit 0', { timeout: 60_000 }, async () => {
    const { code, out } = await pagecheck(
      'check', '--variant', 'hardened', '--faults', 'silent-stub,early-free,stale-free,prefix-poison,torn-write', '--decode-steps', '2',
      '--pages', '3', '--prefill-limit', '2', '--requests', '2,3:sys,2:sys', '--invariant', 'Isolation,Integrity', '--json',
    );
    expect(code).toBe(0);
    const result = JSON.parse(out);
    expect(result).toMatchObject({ verdict: 'holds', distinctStates: 27492, depth: 31 });
    expect(result.witnesses.filter((w: { applies: boolean; reached: boolean }) => w.applies && !w.reached)).toEqual([]);
  });

  it('--decode-steps names the flag and the value when it is bad, exit 2', async () => {
    const { code, err } = await pagecheck('check', '--decode-steps', '0');
    expect(code).toBe(2);
    expect(err).toContain('--decode-steps: expected a number of decode steps: a whole number from 1 to 16, got 0');
  });
});
