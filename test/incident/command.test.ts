import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/incident.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand, type CommandRun } from '../support/cli.ts';

/** Runs `pagecheck incident ...args`; its stdout and exit code, or the usage error it threw. */
const incident = (...args: string[]): Promise<CommandRun> => runCommand(register, 'incident', args);

afterEach(() => vi.restoreAllMocks());

describe('pagecheck incident (command line)', () => {
  it('prints the JSON report and exits 1 when a response leaked', async () => {
    const run = await incident('--requests', '2000', '--seed', '3', '--json');
    if (!('out' in run)) throw new Error(run.error);
    expect(run.code).toBe(EXIT.violation);
    const report = JSON.parse(run.out) as Record<string, unknown>;
    for (const key of ['leaked', 'overLong', 'refused', 'failedLoudly', 'minLeakTokens', 'requestsPerSecond', 'served', 'requests', 'seed', 'variant', 'buckets']) {
      expect(Object.keys(report)).toContain(key);
    }
    expect(report).toMatchObject({ variant: 'buggy', seed: 3, requests: 2_000, leakedWithinLimit: 0 });
    expect(report['leaked']).toBeGreaterThan(0);
    expect(report['minLeakTokens']).toBeGreaterThan(681_280);
  });

  it('prints the human report and exits 0 under a fix', async () => {
    const run = await incident('--variant', 'length-fix', '--requests', '500', '--in-flight', '8');
    if (!('out' in run)) throw new Error(run.error);
    expect(run.code).toBe(EXIT.ok);
    expect(run.out).toContain('pagecheck incident: variant length-fix, seed 1, 500 requests, up to 8 in flight');
    expect(run.out).toContain('replay: pagecheck incident --variant length-fix --seed 1 --requests 500 --in-flight 8');
    expect(run.out).toMatch(/Isolation holds/);
  });

  it('names the flag and the value of a bad flag', async () => {
    expect(await incident('--variant', 'fixed')).toEqual({ error: '--variant: expected one of buggy, length-fix, owner-check, hardened, got "fixed"' });
    expect(await incident('--seed', '-1')).toEqual({ error: '--seed: expected a whole number from 0 to 4294967295, got "-1"' });
    expect(await incident('--requests', '1e5')).toEqual({ error: '--requests: expected a whole number from 1 to 10000000, got "1e5"' });
    expect(await incident('--prefixes', '4')).toEqual({ error: '--prefixes needs --serving: the radix tree inserts at the handoff and evicts at admission, which only the serving replay takes' });
    expect(await incident('--serving', '--prefixes', '0')).toEqual({ error: '--prefixes: expected a whole number from 1 to 64, got "0"' });
    expect(await incident('--in-flight', '0')).toEqual({ error: '--in-flight: expected a whole number from 1 to 4096, got "0"' });
  });

  it('names the path and the value of a bad workload file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-incident-'));
    const file = join(dir, 'w.json');
    writeFileSync(file, JSON.stringify({ mix: [{ weight: 1, minTokens: 10, maxTokens: 2_000_000 }] }));
    expect(await incident('--workload', file)).toEqual({
      error: `invalid workload file:\n  ${file}: mix[0].maxTokens: 2000000 tokens is more than the pool's 1048576; such a request can never be allocated`,
    });
    writeFileSync(file, '{ nope');
    const bad = await incident('--workload', file);
    expect('error' in bad && bad.error).toMatch(new RegExp(`^workload file ${file} is not valid JSON`));
    expect(await incident('--workload', join(dir, 'missing.json'))).toEqual({ error: `cannot read workload file ${join(dir, 'missing.json')}: ENOENT` });
  });

  it('replays an explicit list from a workload file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-incident-'));
    const file = join(dir, 'list.json');
    writeFileSync(file, JSON.stringify({ lengths: [681_281, 6_400, 1_048_576, 681_280], inFlight: 4 }));
    const run = await incident('--workload', file, '--json');
    if (!('out' in run)) throw new Error(run.error);
    // With 64-token pages the first request's one-token stub page leaks its 63 stale P-side slots (spec/slots.ts).
    expect(JSON.parse(run.out)).toMatchObject({ requests: 4, overLong: 2, leaked: 2, minLeakTokens: 681_281, overLongClean: 0, answeredGarbage: 0 });
  });

  it('--serving --prefixes: the replay line keeps the flag, and the run serves every request under a fix', async () => {
    const run = await incident('--variant', 'length-fix', '--allocator', 'sglang', '--serving', '--prefixes', '4', '--requests', '300');
    if (!('out' in run)) throw new Error(run.error);
    expect(run.code).toBe(EXIT.ok);
    expect(run.out).toContain('replay: pagecheck incident --variant length-fix --allocator sglang --serving --prefixes 4 --seed 1 --requests 300 --in-flight 64');
    expect(run.out).toContain('radix tree: 22 admissions hit a cached prefix, 127 inserts at the handoff, 66 leaves evicted');
  });
});
