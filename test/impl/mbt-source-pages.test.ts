/**
 * Model-based tests of the pool with P's source pages (config `sourcePages`,
 * impl/torn-pool.ts) and fault `source-early-free`: the shortest leak the pool shrinks to, the
 * checker's pinned trace (test/spec/source-pages.test.ts), `hardened` passing, the refinement
 * on random configurations, the source-page mutants caught, and `pagecheck mbt --source-pages`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand } from '../support/cli.ts';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, compile, configFrom, Isolation, type Config, type Variant } from '../../spec/index.ts';
import { runMbt, type PoolOptions } from '../../impl/index.ts';
import { SOURCE_MUTANTS } from './torn-mutants.ts';

/** The spec test's smallest configuration: 2 pages, prefill limit 2, one request A of 1 page, torn writes and the fault, P's source pages modelled. */
const smallest = (variant: Variant): Config => ({
  ...configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }], variant, faults: ['torn-write', 'source-early-free'] }),
  sourcePages: true,
});

/** The checker's shortest `Isolation` counterexample on `config`, as action labels. */
function checkerTrace(config: Config): string[] {
  const m = compile(config);
  return (check(checkedModel(m), { invariants: [Isolation] }).violations[0]?.trace.steps ?? []).map((s) => actionLabel(m, s.action));
}

describe('model-based test with P\'s source pages: source-early-free shrinks to the checker\'s trace', () => {
  it.each(['buggy', 'length-fix'] as const)('%s: Isolation in 6 commands at run 1 (A\'s content part lands after P freed and reused its source page)', (variant) => {
    const config = smallest(variant);
    const result = runMbt({ config, runs: 300, seed: 1 });
    expect([result.runs, result.failure?.property]).toEqual([1, 'Isolation']);
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'abortSource(A)', 'landData(A)', 'handoff(A)', 'decode(A)']);
    expect(checkerTrace(config)).toEqual(result.failure?.commands);
  });

  it('owner-check: Isolation in 7 commands at run 1, the checker\'s trace (the tag part lands before the abort, under A\'s own label)', () => {
    const config = smallest('owner-check');
    const result = runMbt({ config, runs: 300, seed: 1 });
    expect([result.runs, result.failure?.property]).toEqual([1, 'Isolation']);
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'landTag(A)', 'abortSource(A)', 'landData(A)', 'handoff(A)', 'decode(A)']);
    expect(checkerTrace(config)).toEqual(result.failure?.commands);
  });

  it('hardened holds (hold-source): 100 runs pass', () => {
    expect(runMbt({ config: smallest('hardened'), runs: 100, seed: 1 }).verdict).toBe('pass');
  });
});

describe('the pool refines the spec with P\'s source pages, leaks and all', () => {
  it.each(['buggy', 'owner-check'] as const)('%s, random configurations with torn writes, eviction drawn: 60 runs', (variant) => {
    expect(runMbt({ variant, torn: true, sourcePages: true, eviction: true, runs: 60, seed: 83, isolation: false }).failure?.message).toBeUndefined();
  });

  it('hardened with the other switches besides: 60 runs with Isolation', () => {
    expect(runMbt({ variant: 'hardened', torn: true, sourcePages: true, stateSlots: true, draft: true, loadback: true, runs: 60, seed: 83 }).failure?.message).toBeUndefined();
  });
});

describe('model-based test with P\'s source pages: mutants fail it', () => {
  it.each(SOURCE_MUTANTS)('a pool that %s fails (%s, seed %i, unshrunk)', (_name, variant, seed, Mutant) => {
    const result = runMbt({ variant, torn: true, sourcePages: true, runs: 200, seed, isolation: false, shrink: false, makePool: (o: PoolOptions) => new Mutant(o) });
    expect(result.verdict).toBe('fail');
    expect(['Refinement', 'Enabledness']).toContain(result.failure?.property);
  });

  it('the same 200 runs pass on the real pool', () => {
    expect(runMbt({ variant: 'buggy', torn: true, sourcePages: true, runs: 200, seed: 93, isolation: false }).failure?.message).toBeUndefined();
  });
});

describe('pagecheck mbt --source-pages', () => {
  afterEach(() => vi.restoreAllMocks());

  it('the smallest configuration leaks under owner-check in 7 actions with seed 1, and the replay line keeps --source-pages', async () => {
    const flags = ['--variant', 'owner-check', '--pages', '2', '--prefill-limit', '2', '--requests', '1', '--faults', 'torn-write,source-early-free', '--source-pages', '--seed', '1', '--runs', '300', '--json'];
    const leak = await runCommand(register, 'mbt', flags);
    if ('error' in leak) throw new Error(leak.error);
    expect(leak.code).toBe(EXIT.violation);
    const result = JSON.parse(leak.out) as { property: string; traceLength: number; replay: string };
    expect([result.property, result.traceLength]).toEqual(['Isolation', 7]);
    expect(result.replay).toMatch(/--source-pages --seed 1 /);
  });

  it('--random under hardened passes 50 runs', async () => {
    const pass = await runCommand(register, 'mbt', ['--random', '--source-pages', '--variant', 'hardened', '--runs', '50', '--json']);
    if ('error' in pass) throw new Error(pass.error);
    expect(pass.code).toBe(EXIT.ok);
  });
});
