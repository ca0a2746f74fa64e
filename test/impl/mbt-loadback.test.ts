/**
 * Model-based tests of the pool with the host tier of D's prefix cache (config `loadback`,
 * impl/loadback-pool.ts): per fault the shortest leak the pool shrinks to, as long as the
 * checker's pinned counterexample (test/spec/loadback.test.ts), the owner check and
 * `hardened` passing, the refinement (states and enabledness) on random configurations,
 * the loadback pool's mutants caught, and `pagecheck mbt --loadback`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand } from '../support/cli.ts';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, compile, configFrom, Isolation, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { noEvents, runMbt, type PoolOptions } from '../../impl/index.ts';
import { LOADBACK_MUTANTS } from './loadback-mutants.ts';

const ORDERS = ['sorted', 'sglang', 'lifo'] as const;

/** The spec test's smallest configuration: 2 pages, prefill limit 2, A of 1 page, B of 2 with prefix sys (its one page on the host), the switch on. */
const smallest = (variant: Variant, faults: readonly Fault[]): Config => ({
  ...configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }], variant, faults: [...faults] }),
  loadback: true,
});

/** The checker's shortest `Isolation` counterexample on `config` (the model-based test checks `Isolation` only), as action labels. */
function checkerTrace(config: Config): string[] {
  const m = compile(config);
  const r = check(checkedModel(m), { invariants: [Isolation] });
  return (r.violations[0]?.trace.steps ?? []).map((s) => actionLabel(m, s.action));
}

describe('model-based test with the host tier: each fault shrinks to the checker\'s shortest leak', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('host-evict-during-load, %s: Isolation in 6 commands at run 10, as long as the checker\'s (the eviction comes before P\'s write here, after it there)', (variant) => {
    const config = smallest(variant, ['host-evict-during-load']);
    const result = runMbt({ config, runs: 300, seed: 1 });
    expect([result.runs, result.failure?.property, result.failure?.commands.length]).toEqual([10, 'Isolation', 6]);
    expect(result.failure?.commands).toEqual(['allocate(B)', 'evictHost(B)', 'prefill(B)', 'handoff(B)', 'loadBack(B)', 'decode(B)']);
    expect(checkerTrace(config)).toEqual(['allocate(B)', 'prefill(B)', 'handoff(B)', 'evictHost(B)', 'loadBack(B)', 'decode(B)']);
  });

  it.each(['buggy', 'length-fix'] as const)('read-before-load, %s: Isolation in 9 commands at run 232, the checker\'s trace (B decodes before its load, on the page A left)', (variant) => {
    const config = smallest(variant, ['read-before-load']);
    const result = runMbt({ config, runs: 300, seed: 1 });
    expect([result.runs, result.failure?.property, result.failure?.commands.length]).toEqual([232, 'Isolation', 9]);
    expect(result.failure?.commands).toEqual(checkerTrace(config));
  });

  it('read-before-load, owner-check: 100 runs pass, B failing loudly where it decodes early (the checker holds, 123 states)', () => {
    const events = noEvents();
    expect(runMbt({ config: smallest('owner-check', ['read-before-load']), runs: 100, seed: 1, events }).verdict).toBe('pass');
    expect([events['failed-loudly'] > 0, (events['loaded-back'] ?? 0) > 0]).toEqual([true, true]);
  });
});

describe('hardened with the host tier', () => {
  it('holds with both faults on the smallest configuration in 100 runs, loading back 34 times and evicting a host copy 91 times', () => {
    const events = noEvents();
    expect(runMbt({ config: smallest('hardened', ['host-evict-during-load', 'read-before-load']), runs: 100, seed: 1, events }).verdict).toBe('pass');
    expect([events['loaded-back'], events['host-evicted']]).toEqual([34, 91]);
  });

  it('random configurations, every order, eviction drawn, both faults drawn: 60 runs pass with Isolation', () => {
    const events = noEvents();
    expect(runMbt({ variant: 'hardened', loadback: true, eviction: true, allocators: ORDERS, runs: 60, seed: 61, events }).failure?.message).toBeUndefined();
    expect([(events['loaded-back'] ?? 0) > 0, (events['host-evicted'] ?? 0) > 0]).toEqual([true, true]);
  });
});

describe('the pool refines the spec with the host tier, leaks and all', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s, random configurations and faults, eviction drawn: 60 runs', (variant) => {
    expect(runMbt({ variant, loadback: true, eviction: true, allocators: ORDERS, runs: 60, seed: 61, isolation: false }).failure?.message).toBeUndefined();
  });

  it('owner-check with token slots, decode steps, growth, state slots and a draft model besides: 60 runs, loads landing', () => {
    const events = noEvents();
    const result = runMbt({ variant: 'owner-check', loadback: true, draft: true, stateSlots: true, slots: true, life: {}, runs: 60, seed: 61, isolation: false, events });
    expect(result.failure?.message).toBeUndefined();
    expect([(events['loaded-back'] ?? 0) > 0, (events['decode-step'] ?? 0) > 0]).toEqual([true, true]);
  });
});

describe('model-based test with the host tier: mutants fail it', () => {
  it.each(LOADBACK_MUTANTS)('a pool that %s fails (buggy, the seed beside it, unshrunk)', (_name, Mutant, seed) => {
    const result = runMbt({ variant: 'buggy', loadback: true, runs: 200, seed, isolation: false, shrink: false, makePool: (o: PoolOptions) => new Mutant(o) });
    expect(result.verdict).toBe('fail');
    expect(['Refinement', 'Enabledness']).toContain(result.failure?.property);
  });

  it.each([62, 5])('the same 200 runs of seed %i pass on the real pool', (seed) => {
    expect(runMbt({ variant: 'buggy', loadback: true, runs: 200, seed, isolation: false }).failure?.message).toBeUndefined();
  });
});

describe('pagecheck mbt --loadback', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the smallest configuration leaks under owner-check in 6 actions with seed 1, and the replay line keeps --loadback', async () => {
    const flags = ['--variant', 'owner-check', '--pages', '2', '--prefill-limit', '2', '--requests', '1,2:sys', '--faults', 'host-evict-during-load', '--loadback', '--seed', '1', '--runs', '300', '--json'];
    const leak = await runCommand(register, 'mbt', flags);
    if ('error' in leak) throw new Error(leak.error);
    expect(leak.code).toBe(EXIT.violation);
    const result = JSON.parse(leak.out) as { property: string; traceLength: number; replay: string };
    expect([result.property, result.traceLength]).toEqual(['Isolation', 6]);
    expect(result.replay).toMatch(/--faults host-evict-during-load --loadback --seed 1 /);
  });

  it('--random under hardened passes 50 runs, loads landing', async () => {
    const pass = await runCommand(register, 'mbt', ['--random', '--loadback', '--variant', 'hardened', '--runs', '50', '--json']);
    if ('error' in pass) throw new Error(pass.error);
    expect(pass.code).toBe(EXIT.ok);
    expect((JSON.parse(pass.out) as { events: Record<string, number> }).events['loaded-back']).toBeGreaterThan(0);
  });
});
