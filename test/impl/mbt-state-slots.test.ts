/**
 * Model-based tests of the pool with D's state slots and metadata rows (config `stateSlots`,
 * impl/slot-pool.ts): the shortest leak of each fault, as short as the checker's
 * (test/spec/state-slots.test.ts), `hardened` holding, the refinement on random
 * configurations, the slot pool's mutants caught, and `pagecheck mbt --state-slots`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand } from '../support/cli.ts';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, compile, configFrom, Integrity, Isolation, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { noEvents, runMbt, type PoolOptions } from '../../impl/index.ts';
import { SLOT_MUTANTS } from './slot-mutants.ts';

const ORDERS = ['sorted', 'sglang', 'lifo'] as const;

/** The spec test's smallest configuration: 2 pages, prefill limit 2, requests A and B of 1 page each, the slots modelled. */
const smallest = (variant: Variant, faults: readonly Fault[]): Config => ({
  ...configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant, faults: [...faults] }),
  stateSlots: true,
});

/** The checker's shortest counterexample on `config`, as action labels. */
function checkerTrace(config: Config): string[] {
  const m = compile(config);
  const r = check(checkedModel(m), { invariants: [Isolation, Integrity] });
  return (r.violations[0]?.trace.steps ?? []).map((s) => actionLabel(m, s.action));
}

describe('model-based test with state slots: each fault shrinks to the checker\'s shortest counterexample', () => {
  it.each([
    ['buggy', 'state-slot-reuse', 6],
    ['length-fix', 'state-slot-reuse', 6],
    ['owner-check', 'state-slot-reuse', 6],
    ['buggy', 'metadata-collision', 5],
    ['length-fix', 'metadata-collision', 5],
    ['owner-check', 'metadata-collision', 5],
  ] as const)('%s with %s: Isolation in %i commands, the checker\'s trace', (variant, fault, length) => {
    const config = smallest(variant, [fault]);
    const result = runMbt({ config, runs: 300, seed: 1 });
    expect(result.failure?.property).toBe('Isolation');
    expect(result.failure?.commands).toHaveLength(length);
    expect(result.failure?.commands).toEqual(checkerTrace(config));
  });

  it.each([
    ['state-slot-reuse', 8, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'decode(A)']],
    ['metadata-collision', 7, ['allocate(A)', 'allocate(B)', 'prefill(A)', 'prefill(B)', 'handoff(A)']],
  ] as const)('random owner-check configurations with %s leak at run %i and shrink to the smallest configuration and the same trace', (fault, run, trace) => {
    const result = runMbt({ variant: 'owner-check', stateSlots: true, faults: [fault], runs: 300, seed: 50 });
    expect([result.runs, result.failure?.property, result.failure?.config.pages, result.failure?.config.requests.map((q) => q.length)]).toEqual([run, 'Isolation', 2, [1, 1]]);
    expect(result.failure?.commands).toEqual(trace);
  });
});

describe('hardened with state slots', () => {
  it('holds with both faults on the smallest configuration in 100 runs, decoding 160 times', () => {
    const events = noEvents();
    const result = runMbt({ config: smallest('hardened', ['state-slot-reuse', 'metadata-collision']), runs: 100, seed: 1, events });
    expect(result.verdict).toBe('pass');
    expect(events.decoded).toBe(160);
  });

  it.each([false, true])('random configurations (token slots: %s), every order, the slots\' faults drawn: 100 runs pass', { timeout: 120_000 }, (slots) => {
    const result = runMbt({ variant: 'hardened', stateSlots: true, slots, allocators: ORDERS, runs: 100, seed: 47 });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
  });
});

describe('the pool refines the spec with state slots, leaks and all', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s, random configurations and faults: 100 runs', { timeout: 120_000 }, (variant) => {
    const result = runMbt({ variant, stateSlots: true, allocators: ORDERS, runs: 100, seed: 48, isolation: false });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
  });

  it('owner-check with decode steps, growth, retraction and eviction besides: 100 runs, every life event seen', { timeout: 120_000 }, () => {
    const events = noEvents();
    const result = runMbt({ variant: 'owner-check', stateSlots: true, eviction: true, life: {}, allocators: ORDERS, runs: 100, seed: 49, isolation: false, events });
    expect(result.failure?.message).toBeUndefined();
    expect([(events['decode-step'] ?? 0) > 0, (events.retracted ?? 0) > 0, (events.resumed ?? 0) > 0]).toEqual([true, true, true]);
  });
});

describe('model-based test with state slots: mutants fail it', () => {
  it.each(SLOT_MUTANTS)('a pool that %s fails the refinement (owner-check, seed 46, unshrunk)', (_name, Mutant) => {
    const result = runMbt({ variant: 'owner-check', stateSlots: true, runs: 100, seed: 46, isolation: false, shrink: false, makePool: (o: PoolOptions) => new Mutant(o) });
    expect(result.verdict).toBe('fail');
    expect(result.failure?.property).toBe('Refinement');
  });

  it('the same 100 runs pass on the real pool (the last mutant fails at run 89)', { timeout: 120_000 }, () => {
    expect(runMbt({ variant: 'owner-check', stateSlots: true, runs: 100, seed: 46, isolation: false }).failure?.message).toBeUndefined();
  });
});

describe('pagecheck mbt --state-slots', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the smallest configuration leaks under owner-check with state-slot-reuse: 6 actions with seed 1 (7 with the default seed, which shrinks to a longer one), the replay line keeps --state-slots', async () => {
    const flags = ['--variant', 'owner-check', '--pages', '2', '--prefill-limit', '2', '--requests', '1,1', '--faults', 'state-slot-reuse', '--state-slots', '--json'];
    const byDefault = await runCommand(register, 'mbt', flags);
    if ('error' in byDefault) throw new Error(byDefault.error);
    expect((JSON.parse(byDefault.out) as { traceLength: number }).traceLength).toBe(7);
    flags.push('--seed', '1', '--runs', '300');
    const leak = await runCommand(register, 'mbt', flags);
    if ('error' in leak) throw new Error(leak.error);
    expect(leak.code).toBe(EXIT.violation);
    const result = JSON.parse(leak.out) as { property: string; traceLength: number; replay: string };
    expect([result.property, result.traceLength]).toEqual(['Isolation', 6]);
    expect(result.replay).toMatch(/--faults state-slot-reuse --state-slots --seed /);
  });

  it('--random under hardened passes 50 runs', async () => {
    const pass = await runCommand(register, 'mbt', ['--random', '--state-slots', '--variant', 'hardened', '--runs', '50', '--json']);
    if ('error' in pass) throw new Error(pass.error);
    expect(pass.code).toBe(EXIT.ok);
  });
});
