import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeSimulations, simulate } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, incidentConfig, Isolation, run, type Model } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runRandom, shardRuns } from '../../simulation/runs.ts';
import { locksModel } from '../checker/locks-model.ts';
import { pagecheck } from '../support/cli.ts';

/** The incident on a pool of 1,000 pages: eight requests, three of them over the prefill limit. */
const BIG = { pages: 1000, prefillLimit: 200, requests: [150, 250, 120, 230, 100, 200, 180, 240].map((length) => ({ length })) };
const BIG_FLAGS = ['--pages', '1000', '--prefill-limit', '200', '--requests', '150,250,120,230,100,200,180,240'];

const labels = (m: Model, steps: readonly { action: Parameters<typeof actionLabel>[1] }[]): string[] => steps.map((s) => actionLabel(m, s.action));

describe('simulate', () => {
  it('finds the incident leak on 1,000 pages and shortens it to the 9 actions of the incident (regression pin of seed 1, run 0)', () => {
    const m = compile(configFrom(BIG));
    const r = simulate(checkedModel(m), { runs: shardRuns(200, 1, 1), depth: 100, random: (k) => runRandom(1, k) });
    const leak = r.violations.find((v) => v.invariant === 'Isolation')!;
    expect(leak.run).toBe(0);
    expect(leak.foundLength).toBeGreaterThan(leak.trace.steps.length);
    expect(leak.trace.steps.length).toBeLessThanOrEqual(12);
    expect(labels(m, leak.trace.steps)).toEqual(['allocate(G)', 'prefill(G)', 'handoff(G)', 'decode(G)', 'free(G)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)']);
    expect(r.witnesses.find((w) => w.name === 'DecodeSucceeds')?.runsReached).toBeGreaterThan(0);
  }, 60_000);

  it('a shortened counterexample is 1-minimal: dropping any one action loses the leak', () => {
    const m = compile(configFrom(BIG));
    const r = simulate(checkedModel(m), { runs: [3, 4, 5], depth: 100, random: (k) => runRandom(7, k) });
    const actions = r.violations[0]!.trace.steps.map((s) => s.action);
    for (let i = 0; i < actions.length; i++) {
      const dropped = run(m, [...actions.slice(0, i), ...actions.slice(i + 1)]);
      const leaks = 'trace' in dropped && [dropped.trace.initial, ...dropped.trace.steps.map((s) => s.state)].some((s) => !Isolation.holds(m, s));
      expect(leaks, `without action ${i + 1}`).toBe(false);
    }
  }, 60_000);

  it('shards merge to the same result as one run over the same seeds', () => {
    const model = checkedModel(compile(incidentConfig('buggy')));
    const options = { depth: 30, random: (k: number) => runRandom(5, k) };
    const whole = simulate(model, { ...options, runs: shardRuns(300, 1, 1) });
    const parts = [1, 2, 3].map((i) => simulate(model, { ...options, runs: shardRuns(300, i, 3) }));
    expect(parts.map((p) => p.runs)).toEqual([100, 100, 100]);
    expect(mergeSimulations(parts)).toEqual(whole);
    expect(mergeSimulations([parts[2]!, parts[0]!, parts[1]!])).toEqual(whole);
  });

  it('finds and shortens a deadlock of another model (two locks taken in opposite orders)', () => {
    const r = simulate(locksModel(), { runs: shardRuns(50, 1, 1), depth: 20, random: (k) => runRandom(1, k) });
    expect(r.violations.map((v) => [v.invariant, v.trace.steps.length])).toEqual([['Deadlock', 2]]);
    expect(r.violatingRuns).toBeGreaterThan(0);
    expect(r.violatingRuns).toBeLessThan(50);
  });
});

describe('pagecheck simulate', () => {
  it('finds the 1,000-page leak in seconds; --shard and --merge give the one-run result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-sim-'));
    const one = await pagecheck('simulate', ...BIG_FLAGS, '--runs', '60', '--json');
    expect(one.code).toBe(1);
    const whole = JSON.parse(one.out);
    expect(whole.result.violations[0]).toMatchObject({ invariant: 'Isolation', run: 0 });
    expect(whole.result.violations[0].trace.length).toBeLessThanOrEqual(12);
    for (const i of [1, 2]) expect((await pagecheck('simulate', ...BIG_FLAGS, '--runs', '60', '--shard', `${i}/2`, '--out', join(dir, `s${i}.json`), '--json')).code).toBe(1);
    const merged = await pagecheck('simulate', '--merge', join(dir, 's2.json'), join(dir, 's1.json'), '--json');
    expect(merged.code).toBe(1);
    expect(JSON.parse(merged.out).result).toEqual(whole.result);
    const text = await pagecheck('simulate', '--merge', join(dir, 's1.json'), join(dir, 's2.json'));
    expect(text.out).toContain('counterexample: Isolation (run 0');
    expect(text.out).toContain('--seed 1 --runs 60 --depth 100 --run 0');
  }, 60_000);

  it('bad input: a clear message and exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pagecheck-sim-'));
    expect(await pagecheck('simulate', '--shard', '3/2')).toMatchObject({ code: 2, err: 'pagecheck: --shard: expected I/N with 1 <= I <= N, got "3/2"\n' });
    expect(await pagecheck('simulate', '--runs', 'many')).toMatchObject({ code: 2, err: 'pagecheck: --runs: expected a whole number from 1 to 100000000, got "many"\n' });
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'pagecheck-simulation', seed: 'one' }));
    const r = await pagecheck('simulate', '--merge', bad);
    expect(r.code).toBe(2);
    expect(r.err).toContain('seed');
  });
});
