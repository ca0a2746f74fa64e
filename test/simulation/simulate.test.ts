import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeSimulations, simulate, violationOrder } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, incidentConfig, Isolation, run, type Model } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runRandom, shardRuns } from '../../simulation/runs.ts';
import { minimizeViolations, subConfiguration } from '../../simulation/minimize.ts';
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
    expect(mergeSimulations(parts, violationOrder(model))).toEqual(whole);
    expect(mergeSimulations([parts[2]!, parts[0]!, parts[1]!], violationOrder(model))).toEqual(whole);
  });

  it('merged violations follow the model’s order even when only a later part breaks an earlier invariant', () => {
    const model = checkedModel(compile(incidentConfig('buggy')));
    const order = violationOrder(model);
    expect(order.indexOf('Isolation')).toBeLessThan(order.indexOf('Integrity'));
    expect(order.at(-1)).toBe('Deadlock');
    const part = (invariant: string, run: number) => ({ runs: 1, steps: 3, violatingRuns: 1, witnesses: [], violations: [{ invariant, run, foundLength: 3, trace: { initial: new Uint8Array(0), steps: [] } }] });
    // the first part found only Deadlock and Integrity's violation; the second, Isolation's
    const merged = mergeSimulations([{ ...part('Deadlock', 0), violations: [...part('Integrity', 0).violations, ...part('Deadlock', 0).violations] }, part('Isolation', 1)], order);
    expect(merged.violations.map((v) => v.invariant)).toEqual(['Isolation', 'Integrity', 'Deadlock']);
  });

  it('finds and shortens a deadlock of another model (two locks taken in opposite orders)', () => {
    const r = simulate(locksModel(), { runs: shardRuns(50, 1, 1), depth: 20, random: (k) => runRandom(1, k) });
    expect(r.violations.map((v) => [v.invariant, v.trace.steps.length])).toEqual([['Deadlock', 2]]);
    expect(r.violatingRuns).toBeGreaterThan(0);
    expect(r.violatingRuns).toBeLessThan(50);
  });
});

describe('shortening to the minimum (issue 26, item 5)', () => {
  it('drops whole requests first: a leak among four requests on 1,000 pages comes out among two', () => {
    const m = compile(configFrom({ pages: 1000, prefillLimit: 600, requests: [400, 700, 300, 500].map((length) => ({ length })) }));
    const model = checkedModel(m);
    const options = { runs: shardRuns(200, 1, 1), depth: 100, random: (k: number) => runRandom(1, k) };
    const actionsOnly = simulate(model, options).violations[0]!;
    const byRequest = simulate(model, { ...options, groupOf: (i) => model.actions[i]!.r }).violations[0]!;
    // Delta debugging over actions alone keeps a detour through a third request (14 actions, as simulate printed before).
    expect([actionsOnly.foundLength, actionsOnly.trace.steps.length, byRequest.trace.steps.length]).toEqual([19, 14, 9]);
    expect(new Set(byRequest.trace.steps.map((s) => s.action.r)).size).toBe(2);
  }, 60_000);

  it('then checks the requests left exhaustively and takes their shortest trace where delta debugging stops short of it', () => {
    const m = compile(configFrom({ pages: 9, prefillLimit: 2, requests: [2, 3, 2, 3, 2, 1].map((length) => ({ length })), variant: 'owner-check', faults: ['silent-stub', 'torn-write', 'early-free'] }));
    const model = checkedModel(m);
    const r = simulate(model, { runs: shardRuns(100, 1, 1), depth: 60, random: (k) => runRandom(1, k), groupOf: (i) => model.actions[i]!.r });
    const min = minimizeViolations(m, r);
    expect([r.violations[0]!.foundLength, r.violations[0]!.trace.steps.length, min.violations[0]!.trace.steps.length]).toEqual([20, 12, 10]);
    // A genuine execution of the whole configuration that ends in the leak.
    const replayed = run(m, min.violations[0]!.trace.steps.map((s) => s.action));
    expect('trace' in replayed && !Isolation.holds(m, min.violations[0]!.trace.steps.at(-1)!.state)).toBe(true);
  }, 60_000);

  it('a sub-configuration keeps the requests named, in order, and the prefix lengths they still use', () => {
    const config = configFrom({ pages: 6, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }, { length: 4, prefix: 'doc' }, { length: 2 }], prefixPages: { doc: 3, sys: 2 } });
    expect(subConfiguration(config, new Set(['A', 'C']))).toEqual({ ...config, requests: [config.requests[0], config.requests[2]], prefixPages: { sys: 2 } });
    expect(subConfiguration(config, new Set(['C']))?.prefixPages).toBeUndefined();
  });

  it('simulate takes 250 requests', () => {
    const m = compile(configFrom({ pages: 1000, prefillLimit: 3, requests: Array.from({ length: 250 }, (_, k) => ({ length: 1 + (k % 5) })) }));
    const r = simulate(checkedModel(m), { runs: shardRuns(3, 1, 1), depth: 100, random: (k) => runRandom(1, k) });
    expect([m.n, r.runs, r.steps]).toEqual([250, 3, 300]);
  }, 60_000);
});

describe('pagecheck simulate', () => {
  it('prints the 9-action leak for the issue\'s 1,000-page command (it printed 14)', async () => {
    const { code, out } = await pagecheck('simulate', '--variant', 'buggy', '--pages', '1000', '--prefill-limit', '600', '--requests', '400,700,300,500', '--seed', '1', '--runs', '200');
    expect(code).toBe(1);
    expect(out).toContain('counterexample: Isolation (run 0: found after 19 actions, shortened to 9)');
  }, 60_000);

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
