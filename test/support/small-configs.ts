/**
 * Small random configurations over every switch of the model, for the tests that need
 * whole state spaces (or many of their states): the footprint declarations against `step`
 * (test/spec/footprint.test.ts), the partial-order reduction against the plain search
 * (test/binding/por-agreement.test.ts) and the acyclicity of the state graph
 * (test/binding/acyclic.test.ts). 2 to 4 pages and 1 to 3 short requests, so that a
 * space is thousands of states, not millions; every variant, fault, allocator, length
 * rule, token slots, decode steps, table growth, prefixes (several pages long), eviction
 * and retraction. test/support/real-sizes.ts draws the large ones.
 */
import fc from 'fast-check';
import * as Either from 'effect/Either';
import { ALLOCATORS, decodeConfig, FAULTS, VARIANTS, type Allocator, type Config, type Fault, type Variant } from '../../spec/index.ts';

/** A drawn configuration before `decodeConfig` checks it. */
export interface SmallDraw {
  readonly pages: number;
  readonly prefillLimit: number;
  readonly lengths: readonly number[];
  readonly variant: Variant;
  readonly faults: readonly Fault[];
  readonly allocator: Allocator;
  readonly pageSize: number;
  readonly decodeSteps: number;
  readonly tableGrowth: boolean;
  readonly prefix: boolean;
  readonly prefixPages: number;
  readonly eviction: boolean;
  readonly retraction: boolean;
  readonly lengthRule: 'gt' | 'ge';
}

const draw: fc.Arbitrary<SmallDraw> = fc.record({
  pages: fc.integer({ min: 2, max: 4 }),
  prefillLimit: fc.integer({ min: 0, max: 5 }),
  lengths: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 3 }),
  variant: fc.constantFrom(...VARIANTS),
  // Not source-early-free, draft-stale, state-slot-reuse, metadata-collision nor the host cache's two: each acts only under its switch (--source-pages, --draft, --state-slots, --loadback), which the draws leave off (test/spec/footprint.test.ts and test/binding/por-agreement.test.ts take them on their own), so the draws stay those pinned before them.
  faults: fc.subarray(FAULTS.filter((f) => f !== 'source-early-free' && f !== 'draft-stale' && f !== 'state-slot-reuse' && f !== 'metadata-collision' && f !== 'host-evict-during-load' && f !== 'read-before-load'), { maxLength: 3 }),
  allocator: fc.constantFrom(...ALLOCATORS),
  pageSize: fc.constantFrom(1, 1, 2),
  decodeSteps: fc.constantFrom(1, 1, 2, 3),
  tableGrowth: fc.boolean(),
  prefix: fc.boolean(),
  prefixPages: fc.constantFrom(1, 1, 2),
  eviction: fc.boolean(),
  retraction: fc.constantFrom(false, false, true),
  lengthRule: fc.constantFrom<'gt' | 'ge'>('gt', 'ge'),
});

/** The configuration a draw stands for (every request of more than one page shares prefix `sys` when drawn), or `undefined` when the decoder refuses it. */
export function smallConfigOf(d: SmallDraw): Config | undefined {
  const size = d.pageSize;
  // Allocator `any` names every choice of pages as an action: keep it to one-page requests.
  const lengths = d.allocator === 'any' ? d.lengths.map(() => 1) : d.lengths;
  const prefixed = d.prefix && !d.retraction && d.allocator !== 'any';
  const requests = lengths.map((length) => (prefixed && Math.ceil(length / size) > d.prefixPages ? { length, prefix: 'sys' } : { length }));
  const hasPrefix = requests.some((q) => 'prefix' in q);
  const input = {
    pages: d.pages,
    prefillLimit: d.prefillLimit,
    requests,
    variant: d.variant,
    faults: d.faults,
    allocator: d.allocator,
    lengthRule: d.lengthRule,
    ...(size > 1 ? { pageSize: size } : {}),
    ...(d.decodeSteps > 1 ? { decodeSteps: d.decodeSteps, tableGrowth: d.tableGrowth } : {}),
    ...(hasPrefix && d.prefixPages > 1 ? { prefixPages: { sys: d.prefixPages } } : {}),
    ...(hasPrefix && d.eviction ? { eviction: true } : {}),
    ...(d.retraction && d.allocator !== 'any' ? { retraction: true } : {}),
  };
  const decoded = decodeConfig(input);
  return Either.isRight(decoded) ? decoded.right : undefined;
}

/** Small configurations the decoder accepts. */
export const smallConfig: fc.Arbitrary<Config> = draw.map(smallConfigOf).filter((c): c is Config => c !== undefined);

/** `count` small configurations from `seed`, in a fixed order. */
export function smallConfigs(seed: number, count: number): Config[] {
  return fc.sample(smallConfig, { seed, numRuns: count });
}
