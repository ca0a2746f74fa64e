/**
 * `mbt --adapter` with token counts at SGLang's page size (issue 25): the reference Python
 * adapter follows `alloc_extend`'s shortage test on tokens and merges on a failed attempt,
 * and passes 500 random runs under `--allocator sglang --page-size 64` (1,000 in the heavy tier:
 * adapter-tokens-long.test.ts); the same adapter
 * with the shortage test on whole pages, or without the failed attempt's merge, fails.
 * Under `hardened` it passes with Isolation held too, and fails without either mechanism
 * a page-level adapter can get wrong (the tag's slot count, the release's holder check).
 * Also the `reset` message's units and how the free list is compared.
 */
import { describe, expect, it } from 'vitest';
import { compareObserved } from '../../conformance/adapter/compare.ts';
import { resetConfig } from '../../conformance/adapter/reset.ts';
import fc from 'fast-check';
import { configArbitrary } from '../../impl/index.ts';
import { compile, run, lastState, parseAction, type Config } from '../../spec/index.ts';
import { pagecheck } from '../support/cli.ts';

const REFERENCE = 'python3 examples/adapters/python/adapter.py';
const VARIANT = (mode: string): string => `python3 test/conformance/adapters/sglang_variants.py ${mode}`;
const AT_64 = ['--variant', 'owner-check', '--random', '--allocator', 'sglang', '--page-size', '64'];

describe('the reference adapter at page size 64 under sglang', () => {
  // 500 runs of the default seed here, 1,000 in the heavy tier (adapter-tokens-long.test.ts): the adapters below that
  // break these two claims fail within the first 500 (whole pages at run 98, no tag count at run 1, unchecked release at run 15).
  it('passes 500 random runs (refinement and enabledness; the spec itself leaks stale tails under owner-check, so --no-isolation)', async () => {
    const r = await pagecheck('mbt', '--adapter', REFERENCE, ...AT_64, '--no-isolation', '--runs', '500', '--json');
    expect([r.code, JSON.parse(r.out)]).toEqual([0, expect.objectContaining({ verdict: 'pass', runs: 500 })]);
  }, 120_000);

  it('under hardened it passes 500 random runs with Isolation held: tag-counts-tokens fails the stub\'s reader loudly', async () => {
    const r = await pagecheck('mbt', '--adapter', REFERENCE, '--variant', 'hardened', ...AT_64.slice(2), '--runs', '500', '--json');
    expect([r.code, JSON.parse(r.out)]).toEqual([0, expect.objectContaining({ verdict: 'pass', runs: 500 })]);
  }, 120_000);

  it.each([
    // A tag that claims the whole page shows in the observed tag as soon as a partial page is written.
    ['no-tag-count', ['allocate(A)', 'prefill(A)']],
    ['unchecked-release', ['allocate(A)', 'stub(A)', 'free(A)', 'allocate(B)', 'free(A)']],
  ])('an adapter without hardened\'s %s is found', async (mode, trace) => {
    const r = await pagecheck('mbt', '--adapter', VARIANT(mode), '--variant', 'hardened', ...AT_64.slice(2), '--runs', '2000', '--json');
    const json = JSON.parse(r.out) as { property: string; trace: string[] };
    expect([r.code, json.property, json.trace]).toEqual([1, 'Refinement', trace]);
  }, 120_000);

  it('with Isolation held, a silent stub read past its one token is the spec\'s own leak: mbt says so', async () => {
    const r = await pagecheck('mbt', '--adapter', REFERENCE, ...AT_64, '--runs', '200', '--json');
    const json = JSON.parse(r.out) as { property: string; trace: string[] };
    expect([r.code, json.property, json.trace]).toEqual([1, 'Isolation', ['allocate(A)', 'stub(A)', 'handoff(A)', 'decode(A)']]);
  }, 60_000);

  it('the shortage test on whole pages is found, in a configuration of sglang at 64 tokens a page', async () => {
    const r = await pagecheck('mbt', '--adapter', VARIANT('whole-pages'), ...AT_64, '--no-isolation', '--runs', '2000', '--json');
    const json = JSON.parse(r.out) as { property: string; config: Config; message: string };
    expect([r.code, json.property, json.config.allocator, json.config.pageSize]).toEqual([1, 'Refinement', 'sglang', 64]);
  }, 120_000);

  it('a failed attempt that does not merge is found: the next allocation takes another page', async () => {
    // Seed 3: no-merge fails at run 8 of this fixed configuration (the default seed's run 1,348 took the reference 2,000 runs to
    // match, 40% of this file's time); the reference passes 200 runs of the same seed, the 8 among them.
    const fixed = ['--variant', 'owner-check', '--no-isolation', '--allocator', 'sglang', '--pages', '3', '--prefill-limit', '3', '--requests', '1,1,3,1', '--seed', '3', '--json'];
    const r = await pagecheck('mbt', '--adapter', VARIANT('no-merge'), ...fixed, '--runs', '2000');
    const json = JSON.parse(r.out) as { property: string; trace: string[]; message: string; runs: number };
    expect([r.code, json.property, json.runs, json.trace]).toEqual([1, 'Refinement', 8, ['allocate(A)', 'allocate(B)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocFail(C)', 'allocate(D)']]);
    expect(json.message).toContain('D table: spec [1], adapter [3]');
    expect((await pagecheck('mbt', '--adapter', REFERENCE, ...fixed, '--runs', '200')).code).toBe(0);
  }, 120_000);
});

describe('the reset message and the comparison', () => {
  it('names lengths in both units: length and prefillLimit in pages, tokens and prefillTokens in tokens', () => {
    const c = resetConfig({ pages: 4, prefillLimit: 100, pageSize: 64, requests: [{ name: 'A', length: 150 }, { name: 'B', length: 64, prefix: 'p' }], variant: 'buggy', faults: [] });
    expect([c.pageSize, c.prefillLimit, c.prefillTokens, c.allocator, c.requests]).toEqual([64, 1, 100, 'sorted', [{ name: 'A', length: 3, tokens: 150 }, { name: 'B', length: 1, tokens: 64, prefix: 'p' }]]);
  });

  it('compares the free list as a sorted multiset, the release list and duplicates included; the padding page is never compared', () => {
    const config: Config = { pages: 3, prefillLimit: 3, requests: [{ name: 'A', length: 2 }], variant: 'buggy', faults: ['double-free'], allocator: 'sglang' };
    const m = compile(config);
    const labels = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'free(A)'];
    const built = run(m, labels.map((l) => parseAction(m, l)!));
    if (!('trace' in built)) throw new Error('not enabled');
    const s = lastState(built.trace);
    const observes = new Set(['free'] as const);
    expect(compareObserved(m, s, { free: [2, 1, 2, 3, 1] }, observes)).toEqual([]);
    expect(compareObserved(m, s, { free: [0, 1, 1, 2, 2, 3] }, observes)).toEqual([]);
    expect(compareObserved(m, s, { free: [1, 2, 3] }, observes)).toEqual(['the free list (sorted): spec [1,1,2,2,3], adapter [1,2,3]']);
  });
});

describe('the doc gaps of issue 25, in behaviour', () => {
  it('--random draws the order --allocator names and the page size --page-size gives (it drew sorted, 2 or 3 slots)', () => {
    const drawn = fc.sample(configArbitrary('owner-check', undefined, ['sglang'], false, true, undefined, [64]), { numRuns: 200, seed: 3 });
    expect(new Set(drawn.map((c) => `${c.allocator} ${c.pageSize}`))).toEqual(new Set(['sglang 64']));
    expect(drawn.some((c) => c.requests.some((q) => q.length % 64 !== 0))).toBe(true);
  });

  it('under buggy the spec itself leaks, so mbt fails on Isolation; --no-isolation tests the rest', async () => {
    const leak = await pagecheck('mbt', '--adapter', REFERENCE, '--variant', 'buggy', '--runs', '300', '--json');
    expect([leak.code, (JSON.parse(leak.out) as { property: string }).property]).toEqual([1, 'Isolation']);
    const rest = await pagecheck('mbt', '--adapter', REFERENCE, '--variant', 'buggy', '--random', '--no-isolation', '--runs', '300');
    expect([rest.code, rest.out]).toEqual([0, expect.stringContaining('(Isolation not checked: --no-isolation)')]);
  }, 60_000);
});

