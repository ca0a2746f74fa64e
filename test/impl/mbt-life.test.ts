/** Model-based tests of the pool with a request's life on D: decode steps, table growth, retraction and resume, and their faults. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand } from '../support/cli.ts';
import { configFrom, Ph, type Fault, type Variant } from '../../spec/index.ts';
import { noEvents, PagePool, runMbt, SteppingPool, type PoolOptions } from '../../impl/index.ts';
import { lifeRefinement } from './mbt-life-refinement.ts';
import { LIFE_MUTANTS } from './life-mutants.ts';

// The refinement's fast sample; test/impl/mbt-life-long.test.ts (heavy tier) runs the full counts.
lifeRefinement({ hardened: 60, variants: 40, eviction: 80 });

/** Two one-page requests on one page, two decode steps, retraction: the smallest stage for the faults of retraction. */
const onePage = (variant: Variant, fault: Fault) => configFrom({ pages: 1, prefillLimit: 1, requests: [{ length: 1 }, { length: 1 }], variant, faults: [fault], decodeSteps: 2, retraction: true });

describe('model-based test with retraction: the faults, pinned', () => {
  it('offload-after-free leaks under owner-check in 11 commands: the late copy reads B, the resume loads it stamped A', () => {
    const result = runMbt({ config: onePage('owner-check', 'offload-after-free'), runs: 300, seed: 1 });
    expect(result.failure?.property).toBe('Isolation');
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'offload(A)', 'retract(B)', 'resume(A)', 'decode(A)']);
  });

  it('resume-stale leaks under buggy in 10 commands: the resume loads nothing, the new page holds B', () => {
    const result = runMbt({ config: onePage('buggy', 'resume-stale'), runs: 300, seed: 1 });
    expect(result.failure?.property).toBe('Isolation');
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'retract(B)', 'resume(A)', 'decode(A)']);
  });

  it('the README\'s retraction leak under owner-check (silent-stub, the incident\'s sizes): the pool shrinks it to the checker\'s 10 actions', () => {
    const config = configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant: 'owner-check', faults: ['silent-stub'], retraction: true });
    // mbt's default seed, as `pagecheck mbt --variant owner-check --pages 3 --prefill-limit 2 --requests 2,3 --retraction` runs it.
    const result = runMbt({ config, runs: 300, seed: 20260827 });
    expect(result.failure?.property).toBe('Isolation');
    expect(result.failure?.commands).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'retract(B)', 'resume(B)', 'decode(B)']);
  });

  it.each([
    ['owner-check', 'resume-stale', 86],
    ['hardened', 'resume-stale', 86],
    ['hardened', 'offload-after-free', 28],
  ] as const)('%s with %s holds in 100 runs, failing loudly %i times', (variant, fault, loud) => {
    const events = noEvents();
    expect(runMbt({ config: onePage(variant, fault), runs: 100, seed: 1, events }).verdict).toBe('pass');
    expect(events['failed-loudly']).toBe(loud);
  });
});

describe('the stepping pool by hand: a table that grows', () => {
  it('one 2-token prompt in 2-slot pages, 3 steps: the second step waits for grow, its token fills the new page slot by slot', () => {
    const pool = new SteppingPool({ pages: 3, prefillLimit: 1, variant: 'owner-check', faults: [], slots: 1, maxLength: 2, pageSize: 2, decodeSteps: 3, tableGrowth: true });
    const steps = [pool.allocate(0, 1, undefined, 2), pool.prefill(0), pool.handoff(0), pool.decode(0), pool.decode(0), pool.grow(0), pool.decode(0)];
    expect(steps).toEqual([true, true, true, true, false, true, true]);
    const page = pool.pageTable(0)[1] ?? -1;
    expect([pool.phase(0), pool.steps(0), pool.lengths[0], pool.fill[page], pool.tagFill[page]]).toEqual([Ph.decoding, 2, 2, 1, 1]);
    expect([pool.decode(0), pool.phase(0), pool.fill[page], pool.foreignReads(0), pool.grow(0)]).toEqual([true, Ph.decoded, 2, 0, false]);
  });
});

describe('the stepping pool by hand: what a decode read', () => {
  it('B, stubbed on A\'s freed pages, reads A\'s page at position 1 and an unwritten one at 2: one foreign read, one garbage read, as PagePool counts them', () => {
    const options = { pages: 3, prefillLimit: 2, variant: 'buggy', faults: ['silent-stub'], slots: 2, maxLength: 3 } as const;
    const stepping = new SteppingPool({ ...options, decodeSteps: 2 });
    const plain = new PagePool(options);
    const run = (pool: PagePool, steps: number): boolean[] => {
      const a = [pool.allocate(0, 2), pool.prefill(0), pool.handoff(0), ...Array.from({ length: steps }, () => pool.decode(0)), pool.free(0)];
      return [...a, pool.allocate(1, 3), pool.stub(1), pool.handoff(1), pool.decode(1)];
    };
    expect([run(stepping, 2), run(plain, 1)]).toEqual([Array(10).fill(true), Array(9).fill(true)]);
    expect([stepping.foreignReads(1), stepping.garbageReads(1)]).toEqual([plain.foreignReads(1), plain.garbageReads(1)]);
    expect([stepping.foreignReads(1), stepping.garbageReads(1)]).toEqual([1, 1]);
  });
});

describe('model-based test with a request\'s life on D: mutants fail it', () => {
  it.each(LIFE_MUTANTS)('a pool that %s fails the refinement (owner-check, seed 44, unshrunk)', (_name, Mutant, options) => {
    const result = runMbt({ variant: 'owner-check', ...options, runs: 1_000, seed: 44, isolation: false, shrink: false, makePool: (o: PoolOptions) => new Mutant(o) });
    expect(result.verdict).toBe('fail');
    expect(['Refinement', 'Enabledness']).toContain(result.failure?.property);
  });
});

describe('pagecheck mbt --decode-steps --table-growth --retraction', () => {
  afterEach(() => vi.restoreAllMocks());

  it('--random under hardened passes with every life event; under owner-check offload-after-free leaks, and the replay line keeps the switches', async () => {
    const life = ['--random', '--decode-steps', '2', '--table-growth', '--retraction'];
    const pass = await runCommand(register, 'mbt', [...life, '--variant', 'hardened', '--runs', '50', '--json']);
    if ('error' in pass) throw new Error(pass.error);
    expect(pass.code).toBe(EXIT.ok);
    const events = (JSON.parse(pass.out) as { events: Record<string, number> }).events;
    // The faults drawn include those of retraction: the late copy happens too.
    expect([events.grew! > 0, events.retracted! > 0, events.resumed! > 0, (events['late-offload'] ?? 0) > 0]).toEqual([true, true, true, true]);
    const leak = await runCommand(register, 'mbt', [...life, '--variant', 'owner-check', '--faults', 'offload-after-free', '--runs', '50', '--json']);
    if ('error' in leak) throw new Error(leak.error);
    expect(leak.code).toBe(EXIT.violation);
    const result = JSON.parse(leak.out) as { property: string; replay: string };
    expect(result.property).toBe('Isolation');
    expect(result.replay).toMatch(/--decode-steps 2 --table-growth --retraction --random --seed /);
  });
});
