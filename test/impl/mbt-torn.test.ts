/**
 * Model-based tests of the pool whose writes land in parts (fault `torn-write`,
 * impl/torn-pool.ts): the shortest leak the pool shrinks to, as long as the checker's, under
 * `buggy` and `length-fix` (a late write's content part over the next request's page) and
 * `owner-check` (the late content part landing between the next request's content and tag),
 * with `premature-success` (a commit before the last part), and with `aux-torn` (D's metadata
 * slot's room landing apart from its payload), `hardened` passing, the refinement on random configurations, the torn pool's mutants
 * caught, and `pagecheck mbt` with `--faults torn-write`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand } from '../support/cli.ts';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, compile, configFrom, Isolation, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { noEvents, runMbt, type PoolOptions } from '../../impl/index.ts';
import { TORN_MUTANTS } from './torn-mutants.ts';

const ORDERS = ['sorted', 'sglang', 'lifo'] as const;

/** Two requests of one page on two pages, prefill limit 2, the faults given. */
const smallest = (variant: Variant, faults: readonly Fault[]): Config =>
  configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant, faults: [...faults] });

/** The checker's shortest `Isolation` counterexample on `config`, as action labels, and its state count. */
function checkerTrace(config: Config): { states: number; trace: string[] } {
  const m = compile(config);
  const r = check(checkedModel(m), { invariants: [Isolation] });
  return { states: r.distinctStates, trace: (r.violations[0]?.trace.steps ?? []).map((s) => actionLabel(m, s.action)) };
}

describe('model-based test with torn writes: the shortest leak, as long as the checker\'s', () => {
  it('torn-write alone leaks nowhere: the commit waits for the last part (100 runs pass under buggy and owner-check; the checker holds in 49 and 81 states)', () => {
    for (const [variant, states] of [['buggy', 49], ['owner-check', 81]] as const) {
      expect(runMbt({ config: smallest(variant, ['torn-write']), runs: 100, seed: 1 }).verdict).toBe('pass');
      expect(checkerTrace(smallest(variant, ['torn-write']))).toEqual({ states, trace: [] });
    }
  });

  it.each(['buggy', 'length-fix'] as const)('%s with early-free: Isolation in 9 commands at run 54, as long as the checker\'s (A\'s late content part lands in B\'s page)', (variant) => {
    const config = smallest(variant, ['torn-write', 'early-free']);
    const result = runMbt({ config, runs: 500, seed: 1 });
    expect([result.runs, result.failure?.property, result.failure?.commands.length]).toEqual([54, 'Isolation', 9]);
    expect(result.failure?.commands).toEqual(['allocate(A)', 'timeout(A)', 'allocate(B)', 'prefill(B)', 'landData(B)', 'prefill(A)', 'handoff(B)', 'landData(A)', 'decode(B)']);
    expect(checkerTrace(config).trace).toEqual(['allocate(A)', 'prefill(A)', 'timeout(A)', 'allocate(B)', 'prefill(B)', 'landData(B)', 'handoff(B)', 'landData(A)', 'decode(B)']);
  });

  it('owner-check with early-free: Isolation in 10 commands at run 88 (seed 11), as long as the checker\'s: the late content part lands between the reader\'s content and its tag', () => {
    const config = smallest('owner-check', ['torn-write', 'early-free']);
    const result = runMbt({ config, runs: 500, seed: 11 });
    expect([result.runs, result.failure?.property, result.failure?.commands.length]).toEqual([88, 'Isolation', 10]);
    expect(result.failure?.commands).toEqual(['allocate(B)', 'timeout(B)', 'allocate(A)', 'prefill(A)', 'prefill(B)', 'landTag(A)', 'landData(A)', 'handoff(A)', 'landData(B)', 'decode(A)']);
    expect(checkerTrace(config)).toEqual({ states: 244, trace: ['allocate(A)', 'prefill(A)', 'timeout(A)', 'allocate(B)', 'prefill(B)', 'landData(B)', 'landData(A)', 'landTag(B)', 'handoff(B)', 'decode(B)'] });
  });

  it('hardened with early-free holds: 100 runs pass, late writes landing nowhere (revoke-writer)', () => {
    const events = noEvents();
    expect(runMbt({ config: smallest('hardened', ['torn-write', 'early-free']), runs: 100, seed: 1, events }).verdict).toBe('pass');
    expect([events.timeout > 0, events.decoded > 0]).toEqual([true, true]);
  });
});

describe('model-based test with premature-success (with torn-write): the shortest leak, as long as the checker\'s (test/spec/wire.test.ts)', () => {
  const EARLY: readonly Fault[] = ['torn-write', 'premature-success'];

  it.each(['buggy', 'length-fix'] as const)('%s: Isolation in 10 commands at run 68 (the checker\'s 10, 155 states): B commits on an early Success over the page A left', (variant) => {
    const config = smallest(variant, EARLY);
    const result = runMbt({ config, runs: 500, seed: 1 });
    expect([result.runs, result.failure?.property, result.failure?.commands.length]).toEqual([68, 'Isolation', 10]);
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'landData(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)']);
    expect(checkerTrace(config).states).toBe(155);
    expect(checkerTrace(config).trace).toHaveLength(10);
  });

  it('owner-check: Isolation in 11 commands at run 36 (seed 8), the checker\'s trace (584 states): A\'s content part lands after its release, under B\'s tag', () => {
    const config = smallest('owner-check', EARLY);
    const result = runMbt({ config, runs: 500, seed: 8 });
    expect([result.runs, result.failure?.property]).toEqual([36, 'Isolation']);
    expect(checkerTrace(config)).toEqual({ states: 584, trace: result.failure?.commands });
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'landData(A)', 'landTag(B)', 'decode(B)']);
  });

  it('hardened holds (commit-counts-landed): 100 runs pass', () => {
    expect(runMbt({ config: smallest('hardened', EARLY), runs: 100, seed: 1 }).verdict).toBe('pass');
  });
});

describe('model-based test with aux-torn: the shortest leak, as long as the checker\'s (test/spec/wire.test.ts)', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s: Isolation in 9 commands at run 2 (the checker\'s 9, 46 states): B\'s room lands over A\'s payload, and the commit reads A\'s token', (variant) => {
    const config = smallest(variant, ['aux-torn']);
    const result = runMbt({ config, runs: 500, seed: 1 });
    expect([result.runs, result.failure?.property, result.failure?.commands.length]).toEqual([2, 'Isolation', 9]);
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'landPayload(A)', 'landRoom(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'landRoom(B)', 'handoff(B)']);
    expect(checkerTrace(config)).toEqual({ states: 46, trace: ['allocate(A)', 'prefill(A)', 'landRoom(A)', 'landPayload(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'landRoom(B)', 'handoff(B)'] });
  });

  it('hardened holds (room-lands-last): 100 runs pass', () => {
    expect(runMbt({ config: smallest('hardened', ['aux-torn']), runs: 100, seed: 1 }).verdict).toBe('pass');
  });
});

describe('the pool refines the spec with torn writes, leaks and all', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s, random configurations and faults, every order, eviction drawn: 60 runs, late parts landing', (variant) => {
    const events = noEvents();
    expect(runMbt({ variant, torn: true, eviction: true, allocators: ORDERS, runs: 60, seed: 80, isolation: false, events }).failure?.message).toBeUndefined();
    expect(events['late-write']).toBeGreaterThan(0);
  });

  it('hardened with token slots, decode steps, state slots, a draft model and the host tier besides: 60 runs with Isolation', () => {
    const result = runMbt({ variant: 'hardened', torn: true, slots: true, life: {}, stateSlots: true, draft: true, loadback: true, runs: 60, seed: 80 });
    expect(result.failure?.message).toBeUndefined();
  });
});

describe('model-based test with torn writes: mutants fail it', () => {
  it.each(TORN_MUTANTS)('a pool that %s fails (%s, seed %i, unshrunk)', (_name, variant, seed, Mutant) => {
    const result = runMbt({ variant, torn: true, runs: 200, seed, isolation: false, shrink: false, makePool: (o: PoolOptions) => new Mutant(o) });
    expect(result.verdict).toBe('fail');
    expect(['Refinement', 'Enabledness']).toContain(result.failure?.property);
  });

  it.each(['buggy', 'owner-check'] as const)('the same 200 runs pass on the real pool (%s)', (variant) => {
    expect(runMbt({ variant, torn: true, runs: 200, seed: 91, isolation: false }).failure?.message).toBeUndefined();
  });
});

describe('pagecheck mbt --faults torn-write', () => {
  afterEach(() => vi.restoreAllMocks());

  it('two requests of one page leak under length-fix with early-free in 9 actions with seed 1', async () => {
    const flags = ['--variant', 'length-fix', '--pages', '2', '--prefill-limit', '2', '--requests', '1,1', '--faults', 'torn-write,early-free', '--seed', '1', '--runs', '500', '--json'];
    const leak = await runCommand(register, 'mbt', flags);
    if ('error' in leak) throw new Error(leak.error);
    expect(leak.code).toBe(EXIT.violation);
    const result = JSON.parse(leak.out) as { property: string; traceLength: number };
    expect([result.property, result.traceLength]).toEqual(['Isolation', 9]);
  });

  it('--random under hardened with the fault passes 50 runs', async () => {
    const pass = await runCommand(register, 'mbt', ['--random', '--variant', 'hardened', '--faults', 'torn-write,early-free', '--runs', '50', '--json']);
    if ('error' in pass) throw new Error(pass.error);
    expect(pass.code).toBe(EXIT.ok);
  });
});
