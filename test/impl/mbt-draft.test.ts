/**
 * Model-based tests of the pool with a draft model's KV (config `draft`, impl/draft-pool.ts):
 * the shortest leak of `draft-stale`, as short as the checker's (test/spec/draft.test.ts),
 * `hardened` holding, the refinement on random configurations, the draft pool's mutants
 * caught, and `pagecheck mbt --draft`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand } from '../support/cli.ts';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, compile, configFrom, Isolation, type Config, type Variant } from '../../spec/index.ts';
import { noEvents, runMbt, type PoolOptions } from '../../impl/index.ts';
import { DRAFT_MUTANTS } from './draft-mutants.ts';

const ORDERS = ['sorted', 'sglang', 'lifo'] as const;

/** The spec test's smallest configuration: 3 pages, prefill limit 3, A of 1 page, B of 2 with prefix sys, the draft modelled, draft-stale on. */
const smallest = (variant: Variant): Config => ({
  ...configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }], variant, faults: ['draft-stale'] }),
  draft: true,
});

/** The checker's shortest `Isolation` counterexample on `config` (the model-based test checks `Isolation` only), as action labels. */
function checkerTrace(config: Config): string[] {
  const m = compile(config);
  const r = check(checkedModel(m), { invariants: [Isolation] });
  return (r.violations[0]?.trace.steps ?? []).map((s) => actionLabel(m, s.action));
}

describe('model-based test with a draft model: draft-stale shrinks to the checker\'s shortest counterexample', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s: Isolation in 11 commands at run 158, the checker\'s trace (B reads A\'s draft in the page A freed)', (variant) => {
    const config = smallest(variant);
    const result = runMbt({ config, runs: 300, seed: 1 });
    expect([result.runs, result.failure?.property, result.failure?.commands.length]).toEqual([158, 'Isolation', 11]);
    expect(result.failure?.commands).toEqual(checkerTrace(config));
  });

  it('random owner-check configurations leak at run 29 and shrink to 2 pages, A 1, B 2 with a prefix, in the same 11 commands', () => {
    const result = runMbt({ variant: 'owner-check', draft: true, faults: ['draft-stale'], runs: 300, seed: 53 });
    expect([result.runs, result.failure?.property, result.failure?.config.pages, result.failure?.config.requests.map((q) => q.length)]).toEqual([29, 'Isolation', 2, [1, 2]]);
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'landDraft(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'landDraft(B)', 'handoff(B)', 'decode(B)']);
  });
});

describe('hardened with a draft model', () => {
  it('holds with draft-stale on the smallest configuration in 200 runs, decoding 298 times', () => {
    const events = noEvents();
    expect(runMbt({ config: smallest('hardened'), runs: 200, seed: 1, events }).verdict).toBe('pass');
    expect(events.decoded).toBe(298);
  });

  it.each([false, true])('random configurations (token slots: %s), every order, draft-stale drawn: 100 runs pass', { timeout: 120_000 }, (slots) => {
    const result = runMbt({ variant: 'hardened', draft: true, slots, allocators: ORDERS, runs: 100, seed: 51 });
    expect(result.failure?.message).toBeUndefined();
  });
});

describe('the pool refines the spec with a draft model, leaks and all', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s, random configurations and faults: 100 runs', { timeout: 120_000 }, (variant) => {
    expect(runMbt({ variant, draft: true, allocators: ORDERS, runs: 100, seed: 51, isolation: false }).failure?.message).toBeUndefined();
  });

  it('owner-check with decode steps, growth, eviction and state slots besides: 100 runs, decode steps and growth seen', { timeout: 120_000 }, () => {
    const events = noEvents();
    const result = runMbt({ variant: 'owner-check', draft: true, stateSlots: true, eviction: true, life: {}, allocators: ORDERS, runs: 100, seed: 51, isolation: false, events });
    expect(result.failure?.message).toBeUndefined();
    expect([(events['decode-step'] ?? 0) > 0, (events.grew ?? 0) > 0]).toEqual([true, true]);
  });

  it('owner-check with eviction: 300 runs, 10 of them hitting D\'s prefix cache (a hit shares pages whose draft the inserting write left)', { timeout: 120_000 }, () => {
    const events = noEvents();
    expect(runMbt({ variant: 'owner-check', draft: true, eviction: true, runs: 300, seed: 51, isolation: false, events }).failure?.message).toBeUndefined();
    expect(events['prefix-hit']).toBe(10);
  });
});

describe('model-based test with a draft model: mutants fail it', () => {
  it.each(DRAFT_MUTANTS)('a pool that %s fails (owner-check, seed 52, unshrunk)', (_name, Mutant, options) => {
    const result = runMbt({ variant: 'owner-check', ...options, draft: true, runs: 200, seed: 52, isolation: false, shrink: false, makePool: (o: PoolOptions) => new Mutant(o) });
    expect(result.verdict).toBe('fail');
    expect(['Refinement', 'Enabledness']).toContain(result.failure?.property);
  });

  it.each([{}, { life: { decodeSteps: [2, 3] } }])('the same 200 runs pass on the real pool (%o)', { timeout: 120_000 }, (options) => {
    expect(runMbt({ variant: 'owner-check', ...options, draft: true, runs: 200, seed: 52, isolation: false }).failure?.message).toBeUndefined();
  });
});

describe('pagecheck mbt --draft', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the smallest configuration leaks under owner-check in 11 actions with seed 1, and the replay line keeps --draft', async () => {
    const flags = ['--variant', 'owner-check', '--pages', '3', '--prefill-limit', '3', '--requests', '1,2:sys', '--faults', 'draft-stale', '--draft', '--seed', '1', '--runs', '300', '--json'];
    const leak = await runCommand(register, 'mbt', flags);
    if ('error' in leak) throw new Error(leak.error);
    expect(leak.code).toBe(EXIT.violation);
    const result = JSON.parse(leak.out) as { property: string; traceLength: number; replay: string };
    expect([result.property, result.traceLength]).toEqual(['Isolation', 11]);
    expect(result.replay).toMatch(/--faults draft-stale --draft --seed 1 /);
  });

  it('--random under hardened passes 50 runs', async () => {
    const pass = await runCommand(register, 'mbt', ['--random', '--draft', '--variant', 'hardened', '--runs', '50', '--json']);
    if ('error' in pass) throw new Error(pass.error);
    expect(pass.code).toBe(EXIT.ok);
  });
});
