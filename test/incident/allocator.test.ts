/**
 * The incident replayed on SGLang's own allocator and length rule: `sglang` order (ids
 * from 1, a release list merged and sorted on a shortage, `alloc_extend`'s test for
 * 64-token pages) and `validate_input_length`'s `>=`. Pinned on the seeded 3,000-request
 * run of replay.test.ts, beside the `sorted`/`>` figures pinned there.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/incident.ts';
import { EXIT } from '../../cli/errors.ts';
import { PagePool } from '../../impl/pool.ts';
import type { PoolAllocator } from '../../impl/allocator-order.ts';
import type { LengthRule } from '../../impl/options.ts';
import { replay } from '../../incident/replay.ts';
import { summarize, type IncidentReport } from '../../incident/report.ts';
import { defaultWorkload } from '../../incident/workload.ts';
import type { Variant } from '../../spec/index.ts';
import { runCommand } from '../support/cli.ts';

const LIMIT = 681_280;
const workload = defaultWorkload({ requests: 3_000 });

const run = (variant: Variant, allocator: PoolAllocator, lengthRule: LengthRule): IncidentReport =>
  summarize(replay({ workload, variant, seed: 1, allocator, lengthRule, pool: (o) => new PagePool(o) }));

afterEach(() => vi.restoreAllMocks());

describe('pagecheck incident --allocator sglang (SGLang as it is: >= rule, 64-token pages)', () => {
  it('buggy: a prompt of exactly the limit is stubbed and leaks too; the boundary is 681,280, not 681,281', () => {
    const r = run('buggy', 'sglang', 'ge');
    expect(r).toMatchObject({ allocator: 'sglang', lengthRule: 'ge', served: 3_000, overLong: 107, leaked: 107, minLeakTokens: LIMIT, leakedWithinLimit: 14, overLongClean: 0 });
    expect(r.boundary).toEqual({ tokens: LIMIT, requests: 14, served: 14, leaked: 14, refused: 0, failedLoudly: 0 });
    expect(r.oneOver).toEqual({ tokens: LIMIT + 1, requests: 9, served: 9, leaked: 9, refused: 0, failedLoudly: 0 });
    // 681,280 before token slots (a stubbed boundary prompt on never-written pages read nothing foreign); its
    // one-token stub page now leaks P's 63 stale slots, so the longest clean prompt is a shorter, prefilled one.
    expect(r.maxCleanTokens).toBe(673_105);
  });

  it('length-fix refuses the boundary request as well; owner-check fails it loudly', () => {
    expect(run('length-fix', 'sglang', 'ge')).toMatchObject({ leaked: 0, refused: 107, boundary: { requests: 14, refused: 14 }, oneOver: { refused: 9 } });
    const owner = run('owner-check', 'sglang', 'ge');
    expect(owner).toMatchObject({ leaked: 0, failedLoudly: 107, wouldHaveLeaked: 107, boundary: { failedLoudly: 14 }, oneOver: { failedLoudly: 9 } });
  });

  it('with the > rule the sglang order leaks exactly what sorted does: the order does not move the boundary', () => {
    const gt = run('buggy', 'sglang', 'gt');
    expect(gt).toMatchObject({ overLong: 93, leaked: 93, minLeakTokens: LIMIT + 1, leakedWithinLimit: 0, foreignPagesRead: 1_236_813 });
    expect(gt.boundary).toMatchObject({ requests: 14, served: 14, leaked: 0 });
    expect(run('buggy', 'lifo', 'gt')).toMatchObject({ leaked: 93, foreignPagesRead: 1_236_813 });
  });
});

describe('pagecheck incident --allocator (command line)', () => {
  it('defaults to the >= rule under sglang and prints both in the report and the replay line', async () => {
    const r = await runCommand(register, 'incident', ['--allocator', 'sglang', '--requests', '3000']);
    if (!('out' in r)) throw new Error(r.error);
    expect(r.code).toBe(EXIT.violation);
    expect(r.out).toContain("allocator sglang; P refuses a prompt when its length >= (SGLang's validate_input_length) 681,280 tokens");
    expect(r.out).toContain('boundary: 14 requests of exactly 681,280 tokens, 14 served, 14 leaked');
    expect(r.out).toContain('one over: 9 requests of 681,281 tokens, 9 served, 9 leaked');
    expect(r.out).toContain('replay: pagecheck incident --variant buggy --allocator sglang --seed 1 --requests 3000 --in-flight 64');
    const gt = await runCommand(register, 'incident', ['--allocator', 'sglang', '--length-rule', 'gt', '--requests', '500', '--json']);
    if (!('out' in gt)) throw new Error(gt.error);
    expect(JSON.parse(gt.out)).toMatchObject({ allocator: 'sglang', lengthRule: 'gt', leakedWithinLimit: 0 });
  });

  it('names the flag and the value of a bad allocator or rule', async () => {
    expect(await runCommand(register, 'incident', ['--allocator', 'any'])).toEqual({ error: '--allocator: expected one of sorted, sglang, lifo, got "any"' });
    expect(await runCommand(register, 'incident', ['--length-rule', '>='])).toEqual({ error: '--length-rule: expected one of gt, ge, got ">="' });
  });
});
