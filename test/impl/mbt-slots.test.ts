/** Model-based tests of the pool with token slots: fills, the stale tail of P's pages, the length rule and auto-truncation. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand } from '../support/cli.ts';
import { configFrom } from '../../spec/index.ts';
import { PagePool, runMbt } from '../../impl/index.ts';
import { slotRefinement } from './mbt-slots-refinement.ts';

/** The slot-level finding's configuration (test/spec/slots.test.ts). */
const truncating = (variant: 'owner-check' | 'hardened') =>
  configFrom({ pages: 3, pageSize: 2, prefillLimit: 3, requests: [{ length: 3 }, { length: 4 }], variant, faults: ['auto-truncate'] });

// The refinement's fast sample; test/impl/mbt-slots-long.test.ts (heavy tier) runs 3,000 and 2,000 runs.
slotRefinement({ hardened: 1_000, everyFault: 700, variants: 700 });

/** A mutant that reads, and checks, only the first slot of every page: it misses every stale tail. */
class FirstSlotOnly extends PagePool {
  protected override slotsRead(): number {
    return 1;
  }
}

/** A mutant whose write fills every slot of a page: P's stale tail disappears. */
class FullPages extends PagePool {
  protected override write(p: number, label: number, pos: number): void {
    super.write(p, label, pos, this.options.pageSize ?? 1);
  }
}

describe('model-based test with token slots: mutants fail it', () => {
  it.each([
    ['reads only the first slot of each page', FirstSlotOnly],
    ['writes whole pages', FullPages],
  ] as const)('a pool that %s fails the refinement', (_name, Mutant) => {
    const result = runMbt({ variant: 'owner-check', slots: true, runs: 2_000, seed: 24, isolation: false, makePool: (o) => new Mutant(o) });
    expect(result.verdict).toBe('fail');
    expect(result.failure?.property).toBe('Refinement');
  });
});

describe('model-based test with token slots: the page-level owner check leaks', () => {
  it('finds the stale tail of a cut prompt under owner-check and shrinks it to 4 commands', () => {
    const result = runMbt({ config: truncating('owner-check'), runs: 1_000, seed: 1 });
    expect(result.verdict).toBe('fail');
    expect(result.failure?.property).toBe('Isolation');
    expect(result.failure?.commands).toEqual(['allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)']);
  });

  it('and none under hardened', () => {
    expect(runMbt({ config: truncating('hardened'), runs: 1_000, seed: 1 }).verdict).toBe('pass');
  });

  it('the pool itself counts the stale read as foreign: a leak its own counters see', () => {
    const pool = new PagePool({ pages: 3, pageSize: 2, prefillLimit: 2, prefillTokens: 3, variant: 'owner-check', faults: ['auto-truncate'], slots: 2, maxLength: 2 });
    expect([pool.allocate(1, 2, undefined, 4), pool.prefill(1), pool.handoff(1), pool.decode(1)]).toEqual([true, true, true, true]);
    expect([pool.foreignReads(1), Array.from(pool.fill.subarray(0, 2)), Array.from(pool.tagFill.subarray(0, 2))]).toEqual([1, [2, 1], [2, 1]]);
    const hardened = new PagePool({ pages: 3, pageSize: 2, prefillLimit: 2, prefillTokens: 3, variant: 'hardened', faults: ['auto-truncate'], slots: 2, maxLength: 2 });
    expect([hardened.allocate(1, 2, undefined, 4), hardened.prefill(1), hardened.handoff(1), hardened.decode(1), hardened.phase(1)]).toEqual([true, true, true, true, 6]);
  });
});

describe('pagecheck mbt --random --page-size 2', () => {
  afterEach(() => vi.restoreAllMocks());

  it('draws slot configurations, finds the owner check\'s slot-level leak, and its replay line keeps --page-size', async () => {
    const run = await runCommand(register, 'mbt', ['--random', '--page-size', '2', '--variant', 'owner-check', '--faults', 'auto-truncate', '--runs', '300', '--json']);
    if ('error' in run) throw new Error(run.error);
    expect(run.code).toBe(EXIT.violation);
    const result = JSON.parse(run.out) as { property: string; traceLength: number; replay: string };
    expect(result).toMatchObject({ property: 'Isolation', traceLength: 4 });
    expect(result.replay).toMatch(/--page-size 2 --random --seed /);
    const hardened = await runCommand(register, 'mbt', ['--random', '--page-size', '2', '--variant', 'hardened', '--faults', 'auto-truncate', '--runs', '300', '--json']);
    if ('error' in hardened) throw new Error(hardened.error);
    expect(hardened.code).toBe(EXIT.ok);
  });
});
