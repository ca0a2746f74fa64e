/**
 * spec/behaviour.ts is the one derivation of what a variant, a length rule, an allocator
 * and a page size mean. These tests pin each fact on a table of configurations, and check
 * that the spec's compiled model, which every printer and the binding read, agrees with it
 * on random configurations.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALLOCATORS,
  checksOwner,
  compile,
  FAULTS,
  firstPageOf,
  hasMechanism,
  hasPaddingPage,
  isOverLong,
  isOverLongPrompt,
  LENGTH_RULES,
  limitInTokens,
  MECHANISMS,
  mechanismsOf,
  sglangShort,
  stubsSilently,
  VARIANTS,
  type Config,
  type Variant,
} from '../../spec/index.ts';

describe('which checks and mechanisms a variant has', () => {
  it.each([
    // variant, owner check, stubs with silent-stub on, mechanisms
    ['buggy', false, true, []],
    ['length-fix', false, false, []],
    ['owner-check', true, true, []],
    ['hardened', true, true, ['revoke-writer', 'release-checks-holder', 'tag-counts-tokens', 'copy-carries-tag', 'unlock-once', 'hold-source', 'commit-counts-landed', 'room-lands-last', 'draft-fills-hit', 'slot-freed-with-request', 'metadata-alloc-checks-holder', 'protect-host', 'wait-own-load']],
  ] as const)('%s: owner check %s, silent stub %s, mechanisms %j', (variant, owner, stub, mechanisms) => {
    expect(checksOwner(variant)).toBe(owner);
    expect(stubsSilently(variant, ['silent-stub'])).toBe(stub);
    expect(stubsSilently(variant, [])).toBe(false);
    expect(stubsSilently(variant, ['early-free', 'torn-write'])).toBe(false);
    expect(MECHANISMS.filter((k) => hasMechanism(variant, k))).toEqual(mechanisms);
    expect(Object.entries(mechanismsOf(variant)).filter(([, on]) => on).map(([k]) => k)).toEqual(mechanisms);
  });
});

describe('the over-long rule', () => {
  it.each([
    // tokens, limit, rule, over-long
    [0, 0, 'gt', false],
    [1, 0, 'gt', true],
    [2, 2, 'gt', false],
    [3, 2, 'gt', true],
    [2, 2, 'ge', true],
    [1, 2, 'ge', false],
    [0, 0, 'ge', true],
    [681_280, 681_280, 'gt', false],
    [681_280, 681_280, 'ge', true],
    [681_281, 681_280, 'gt', true],
  ] as const)('%i tokens against a limit of %i under %s: %s', (tokens, limit, rule, over) => {
    expect(isOverLongPrompt(tokens, limit, rule)).toBe(over);
  });

  it('defaults to rule gt, and counts a limit in pages as pages times the page size', () => {
    expect(isOverLongPrompt(3, 3)).toBe(false);
    expect(isOverLongPrompt(4, 3)).toBe(true);
    expect(limitInTokens(3)).toBe(3);
    expect(limitInTokens(3, 64)).toBe(192);
    expect(limitInTokens(0, 64)).toBe(0);
  });
});

describe('the padding page', () => {
  it.each([
    ['sorted', false, 0],
    ['sglang', true, 1],
    ['lifo', true, 1],
    ['any', false, 0],
  ] as const)('%s: page 0 is the padding page: %s, first page %i', (allocator, padding, first) => {
    expect(hasPaddingPage(allocator)).toBe(padding);
    expect(firstPageOf(allocator)).toBe(first);
  });
});

describe("sglang's shortage test", () => {
  it.each([
    // page size, need, listed, short
    [1, 2, 2, false],
    [1, 3, 2, true],
    [1, 0, 0, false],
    [4, 2, 4, false],
    [4, 2, 3, true],
    [4, 3, 4, true],
    [64, 1, 3, false],
    [64, 1, 2, true],
  ] as const)('page size %i, %i pages needed, %i listed: short %s', (pageSize, need, listed, short) => {
    expect(sglangShort(pageSize, need, listed)).toBe(short);
  });
});

/** Random configurations of every variant, fault set, allocator, length rule and page size the decoder takes. */
const configs: fc.Arbitrary<Config> = fc
  .record({
    variant: fc.constantFrom(...VARIANTS),
    faults: fc.subarray([...FAULTS]),
    allocator: fc.constantFrom(...ALLOCATORS),
    lengthRule: fc.constantFrom(...LENGTH_RULES),
    pageSize: fc.constantFrom(1, 2, 4),
    pages: fc.integer({ min: 1, max: 6 }),
    prefillLimit: fc.integer({ min: 0, max: 12 }),
    lengths: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 3 }),
  })
  .map(({ lengths, ...c }) => ({ ...c, requests: lengths.map((length, r) => ({ name: String.fromCharCode(65 + r), length })) }));

describe('the compiled model agrees with spec/behaviour.ts', () => {
  it('on 500 random configurations (every variant, fault set, allocator and length rule)', () => {
    let checked = 0;
    const property = fc.property(configs, (config) => {
      const m = compile(config);
      const v: Variant = config.variant;
      expect(m.ownerCheck).toBe(checksOwner(v));
      expect(m.silentStub).toBe(stubsSilently(v, config.faults));
      expect(m.mechanism).toEqual(mechanismsOf(v));
      expect(m.firstPage).toBe(firstPageOf(config.allocator ?? 'sorted'));
      expect(m.pages).toBe(config.pages + firstPageOf(config.allocator ?? 'sorted'));
      config.requests.forEach((q, r) => expect(isOverLong(m, r)).toBe(isOverLongPrompt(q.length, config.prefillLimit, config.lengthRule)));
      checked++;
    });
    fc.assert(property, { numRuns: 500, seed: 22 });
    expect(checked).toBe(500);
  });
});
