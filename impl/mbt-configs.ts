/**
 * The random configurations of the model-based tests (mbt.ts here, and `mbt --adapter`,
 * conformance/adapter/): small pools, so that pages are reused soon, where the bugs are.
 */
import fc from 'fast-check';
import { requestName, VARIANTS, type Config, type Fault, type RequestSpec, type Variant } from '../spec/config.ts';
import type { PoolAllocator } from './allocator-order.ts';
import { MAX_RANDOM_PAGES, MAX_RANDOM_REQUESTS } from './mbt-commands.ts';
import { POOL_DRAFT_FAULTS, POOL_FAULTS, POOL_LIFE_FAULTS, POOL_LOAD_FAULTS, POOL_SLOT_FAULTS, POOL_SOURCE_FAULTS, POOL_TORN_FAULTS } from './coverage.ts';

/**
 * Random small configurations: 1 to 6 pages, any prefill limit, 1 to 4 requests with
 * lengths that fit the pool and optional prefixes (`p`, `q`); the variant and the faults
 * as given, or random. Lengths are drawn in pages and given in whole pages of the page
 * size (drawn from `pageSizes` where `sglang` is among the orders, for its shortage test;
 * at more than one token per page a stubbed prompt has a stale tail, spec/slots.ts); with `slots`, pages hold 2 or 3 token slots and lengths and the limit are drawn
 * in tokens, so that last pages are partial and prompts are cut inside a page.
 */
export function configArbitrary(
  variant?: Variant,
  faults?: readonly Fault[],
  allocators: readonly PoolAllocator[] = ['sorted'],
  eviction = false,
  slots = false,
  pageSizes: readonly number[] = [1, 4],
  slotSizes: readonly number[] = [2, 3],
  life?: LifeOptions,
): fc.Arbitrary<Config> {
  if (life !== undefined) return withLife(configArbitrary(variant, faults, allocators, eviction, slots, pageSizes, slotSizes), life, variant, faults);
  if (slots) return slotConfigArbitrary(variant, faults, allocators, slotSizes);
  const request = fc.record({ length: fc.integer({ min: 1, max: MAX_RANDOM_PAGES }), prefix: fc.constantFrom('', 'p', 'q') });
  // Only `sorted` draws nothing more, so that its cases stay the ones earlier seeds gave.
  const allocation =
    allocators.length === 1 && allocators[0] === 'sorted'
      ? fc.constant({})
      : fc.record({
          allocator: fc.constantFrom(...allocators),
          // The page size picks sglang's shortage test; the other orders do not look at it.
          pageSize: allocators.includes('sglang') ? fc.constantFrom(...pageSizes) : fc.constant(1),
        });
  // Likewise eviction is drawn only when asked for.
  const evicting = eviction ? fc.record({ eviction: fc.boolean() }) : fc.constant({});
  return fc
    .record({
      allocation,
      evicting,
      pages: fc.integer({ min: 1, max: MAX_RANDOM_PAGES }),
      prefillLimit: fc.integer({ min: 0, max: MAX_RANDOM_PAGES }),
      requests: fc.array(request, { minLength: 1, maxLength: MAX_RANDOM_REQUESTS }),
      variant: variant === undefined ? fc.constantFrom(...VARIANTS) : fc.constant(variant),
      faults: faults === undefined ? fc.subarray([...POOL_FAULTS]) : fc.constant(faults),
    })
    .map(({ allocation: a, evicting: e, pages, prefillLimit, requests, variant: v, faults: f }): Config => {
      // Whole pages: a length of k pages is k * pageSize tokens.
      const size: number = 'pageSize' in a && typeof a.pageSize === 'number' ? a.pageSize : 1;
      return {
        ...a,
        ...e,
        pages,
        prefillLimit: Math.min(prefillLimit, pages) * size,
        requests: requests.map(({ length, prefix }, i): RequestSpec => {
          const fitted = Math.min(length, pages);
          // A prefix is one page, so a request with one needs a page of its own besides.
          return prefix !== '' && fitted >= 2 ? { name: requestName(i), length: fitted * size, prefix } : { name: requestName(i), length: fitted * size };
        }),
        variant: v,
        faults: f,
      };
    });
}

/**
 * Random small configurations with token slots: `sizes` slots per page (2 or 3 unless
 * given), lengths and the prefill limit in tokens; the allocation order drawn from
 * `allocators` (left out, as `sorted`, when that is the only one).
 */
function slotConfigArbitrary(variant: Variant | undefined, faults: readonly Fault[] | undefined, allocators: readonly PoolAllocator[], sizes: readonly number[]): fc.Arbitrary<Config> {
  const most = Math.max(...sizes) * MAX_RANDOM_PAGES;
  const request = fc.record({ tokens: fc.integer({ min: 1, max: most }), prefix: fc.constantFrom('', 'p') });
  // Only `sorted` alone draws nothing more, so that its cases stay the ones earlier seeds gave.
  const allocation = allocators.length === 1 && allocators[0] === 'sorted' ? fc.constant({}) : fc.record({ allocator: fc.constantFrom(...allocators) });
  return fc
    .record({
      allocation,
      pageSize: fc.constantFrom(...sizes),
      pages: fc.integer({ min: 1, max: MAX_RANDOM_PAGES }),
      prefillLimit: fc.integer({ min: 0, max: most }),
      lengthRule: fc.constantFrom('gt' as const, 'ge' as const),
      requests: fc.array(request, { minLength: 1, maxLength: MAX_RANDOM_REQUESTS }),
      variant: variant === undefined ? fc.constantFrom(...VARIANTS) : fc.constant(variant),
      faults: faults === undefined ? fc.subarray([...POOL_FAULTS]) : fc.constant(faults),
    })
    .map(({ allocation, pageSize, pages, prefillLimit, lengthRule, requests, variant: v, faults: f }): Config => ({
      ...allocation,
      pages,
      pageSize,
      ...(lengthRule === 'ge' ? { lengthRule } : {}),
      prefillLimit: Math.min(prefillLimit, pages * pageSize),
      requests: requests.map(({ tokens, prefix }, i): RequestSpec => {
        const fitted = Math.min(tokens, pages * pageSize);
        // A prefix is one page, so a request with one needs a page of its own besides.
        return prefix !== '' && fitted > pageSize ? { name: requestName(i), length: fitted, prefix } : { name: requestName(i), length: fitted };
      }),
      variant: v,
      faults: f,
    }));
}

/** The decode steps a request's life draws when {@link LifeOptions} names none. */
export const LIFE_DECODE_STEPS: readonly number[] = [2, 3];

/** A request's life on D in random configurations: each switch fixed, or drawn when left out. */
export interface LifeOptions {
  /** The decode steps drawn ({@link LIFE_DECODE_STEPS} when left out). */
  readonly decodeSteps?: readonly number[];
  /** Config `tableGrowth`: on, off, or drawn when left out. */
  readonly tableGrowth?: boolean;
  /** Config `retraction`: on, off, or drawn when left out. */
  readonly retraction?: boolean;
}

/**
 * `configs` with decode steps, growth and retraction drawn by `life`; the faults as given,
 * or a random set of every fault the pool has, those of retraction included.
 */
function withLife(configs: fc.Arbitrary<Config>, life: LifeOptions, variant: Variant | undefined, faults: readonly Fault[] | undefined): fc.Arbitrary<Config> {
  const drawn = (fixed: boolean | undefined): fc.Arbitrary<boolean> => (fixed === undefined ? fc.boolean() : fc.constant(fixed));
  return fc
    .record({
      config: configs,
      decodeSteps: fc.constantFrom(...(life.decodeSteps ?? LIFE_DECODE_STEPS)),
      tableGrowth: drawn(life.tableGrowth),
      retraction: drawn(life.retraction),
      faults: faults === undefined ? fc.subarray([...POOL_FAULTS, ...POOL_LIFE_FAULTS]) : fc.constant(faults),
    })
    .map(({ config, decodeSteps, tableGrowth, retraction, faults: f }): Config => ({
      ...config,
      variant: variant ?? config.variant,
      faults: f,
      decodeSteps,
      // Growth needs a step that writes a token, the second or later.
      ...(tableGrowth && decodeSteps > 1 ? { tableGrowth } : {}),
      ...(retraction ? { retraction } : {}),
    }));
}

/**
 * `configs` with D's state slots and metadata rows (config `stateSlots`): the faults as
 * given, or those `configs` drew with a random set of the slots' own faults added (drawn
 * apart, so that the other faults are the ones `configs` draws alone).
 */
export function withStateSlots(configs: fc.Arbitrary<Config>, faults: readonly Fault[] | undefined): fc.Arbitrary<Config> {
  return fc
    .record({ config: configs, slotFaults: faults === undefined ? fc.subarray([...POOL_SLOT_FAULTS]) : fc.constant([]) })
    .map(({ config, slotFaults }): Config => ({ ...config, faults: [...config.faults, ...slotFaults], stateSlots: true }));
}

/**
 * `configs` with a draft model's KV (config `draft`): the faults as given, or those `configs`
 * drew with `draft-stale` drawn besides. Retraction is turned off: the spec refuses it with
 * a draft model (spec/config-checks.ts).
 */
export function withDraft(configs: fc.Arbitrary<Config>, faults: readonly Fault[] | undefined): fc.Arbitrary<Config> {
  return withSwitchNoRetraction(configs, faults, POOL_DRAFT_FAULTS, { draft: true });
}

/**
 * `configs` with the host tier of D's prefix cache (config `loadback`): the faults as given,
 * or those `configs` drew with a random set of the host tier's own faults besides.
 * Retraction is turned off (it leaves the switch inert, spec/config-checks.ts); a
 * configuration without a prefix keeps the switch, inert, as the spec has it.
 */
export function withLoadback(configs: fc.Arbitrary<Config>, faults: readonly Fault[] | undefined): fc.Arbitrary<Config> {
  return withSwitchNoRetraction(configs, faults, POOL_LOAD_FAULTS, { loadback: true });
}

/** `configs` with switch `on` and retraction off (and its faults left out): the faults as given, or those `configs` drew with a random set of the switch's `own` faults besides. */
function withSwitchNoRetraction(configs: fc.Arbitrary<Config>, faults: readonly Fault[] | undefined, own: readonly Fault[], on: Pick<Config, 'draft' | 'loadback'>): fc.Arbitrary<Config> {
  return fc.record({ config: configs, drawn: faults === undefined ? fc.subarray([...own]) : fc.constant([]) }).map(({ config, drawn }): Config => {
    const { retraction: _retraction, ...rest } = config;
    return { ...rest, faults: [...config.faults.filter((f) => !POOL_LIFE_FAULTS.includes(f)), ...drawn], ...on };
  });
}

/**
 * `configs` with writes landing in parts: the faults as given, or those `configs` drew with
 * `torn-write` always among them and `premature-success` and `aux-torn` drawn; with
 * `premature-success` retraction is turned off (the spec refuses the two together,
 * spec/config-checks.ts).
 */
export function withTorn(configs: fc.Arbitrary<Config>, faults: readonly Fault[] | undefined): fc.Arbitrary<Config> {
  if (faults !== undefined) return configs;
  return fc.record({ config: configs, premature: fc.boolean(), aux: fc.boolean() }).map(({ config, premature, aux }): Config => {
    const kept = [...config.faults.filter((f) => !POOL_TORN_FAULTS.includes(f)), 'torn-write' as const, ...(aux ? ['aux-torn' as const] : [])];
    if (!premature) return { ...config, faults: kept };
    const { retraction: _retraction, ...rest } = config;
    return { ...rest, faults: [...kept.filter((f) => !POOL_LIFE_FAULTS.includes(f)), 'premature-success'] };
  });
}

/** `configs` with P's source pages (config `sourcePages`): the faults as given, or those `configs` drew with `source-early-free` drawn besides (it acts only under `torn-write`). */
export function withSourcePages(configs: fc.Arbitrary<Config>, faults: readonly Fault[] | undefined): fc.Arbitrary<Config> {
  return fc
    .record({ config: configs, sourceFaults: faults === undefined ? fc.subarray([...POOL_SOURCE_FAULTS]) : fc.constant([]) })
    .map(({ config, sourceFaults }): Config => ({ ...config, faults: [...config.faults, ...sourceFaults], sourcePages: true }));
}
