import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand, type CommandRun } from '../support/cli.ts';

/** Runs `pagecheck mbt ...args`. */
const mbt = (...args: string[]): Promise<CommandRun> => runCommand(register, 'mbt', args);

const ok = (r: CommandRun): { out: string; code: number } => {
  if ('error' in r) throw new Error(r.error);
  return r;
};

afterEach(() => vi.restoreAllMocks());

describe('pagecheck mbt --allocator', () => {
  it('sglang: the pool refines the spec on the minimal incident and shrinks the leak to its 9 commands; the replay line keeps the order', async () => {
    const run = ok(await mbt('--allocator', 'sglang', '--variant', 'buggy', '--seed', '1', '--json'));
    expect(run.code).toBe(EXIT.violation);
    const result = JSON.parse(run.out) as { property: string; traceLength: number; replay: string };
    expect(result).toMatchObject({ property: 'Isolation', traceLength: 9 });
    expect(result.replay).toMatch(/^pagecheck mbt --variant buggy --allocator sglang --seed 1 --path /);
    const text = ok(await mbt('--allocator', 'sglang', '--variant', 'buggy', '--seed', '1'));
    // Page ids from 1: page 0 is SGLang's padding page.
    expect(text.out).toContain('step 1  allocate(A)  D gives A pages 1, 2');
  });

  it('lifo, random configurations: owner-check passes', async () => {
    const run = ok(await mbt('--allocator', 'lifo', '--random', '--variant', 'owner-check', '--runs', '300', '--json'));
    expect(run.code).toBe(EXIT.ok);
    expect(JSON.parse(run.out)).toMatchObject({ verdict: 'pass', runs: 300 });
  });

  it('refuses any, which is a choice per allocation and not an order a pool can have', async () => {
    expect(await mbt('--allocator', 'any')).toEqual({ error: '--allocator: the pool hands out pages in one order: it has no allocator any; it follows allocators sorted, sglang, lifo; check it with `pagecheck check --allocator any`' });
  });
});
