/**
 * The command generator of the model-based test at scale: what a run is made of (a
 * configuration and a list of steps) and how fast-check draws them. `mbt.ts` says what a
 * step does; lengths are drawn by kind so that the sizes that matter come up often.
 */
import fc from 'fast-check';
import type { ActionKind } from '../spec/actions.ts';
import type { Fault, Variant } from '../spec/config.ts';
import { POOL_ALLOCATORS, type PoolAllocator } from '../impl/allocator-order.ts';
import { REFERENCE_FAULTS, REFERENCE_LIFE_FAULTS, REFERENCE_VARIANTS } from './reference.ts';

/** The actions the pool has, in the spec's order: the kinds a step tries. */
export const POOL_ACTIONS = ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert'] as const satisfies readonly ActionKind[];

/**
 * The actions a run with a request's life on D tries: the pool's, with `grow`, `retract`,
 * `offload` and `resume`. `retract` comes right after `decode`: a step that starts at
 * `grow` or `decode` retracts a running request exactly when it cannot go on (its next
 * token needs a page and none is free: SGLang's retraction at exhaustion), and otherwise
 * only a step that starts at `retract` does, so that long decodes get far.
 */
export const LIFE_ACTIONS = ['allocate', 'prefill', 'stub', 'handoff', 'grow', 'decode', 'retract', 'offload', 'resume', 'free', 'timeout', 'insert'] as const satisfies readonly ActionKind[];

/**
 * The actions a run with the evicting prefix cache tries: `evict` first, then those of a
 * request's life. A step that starts at `evict` frees an entry when the admission it would
 * make (the same length) finds too few free pages, and otherwise admits: SGLang's
 * `evict` before `alloc_extend`.
 */
export const TREE_ACTIONS = ['evict', ...LIFE_ACTIONS] as const satisfies readonly ActionKind[];

/** One of {@link TREE_ACTIONS} (those of {@link LIFE_ACTIONS} and {@link POOL_ACTIONS} among them). */
export type PoolAction = (typeof TREE_ACTIONS)[number];

/** How a step picks the length of an admission. */
export const LENGTH_KINDS = ['one', 'short', 'long', 'at-limit', 'over-limit', 'exhaust', 'any'] as const;

/** One of {@link LENGTH_KINDS}. */
export type LengthKind = (typeof LENGTH_KINDS)[number];

/** One step of a run. */
export interface ScaleStep {
  /** The slot acted on (modulo the slots). */
  readonly slot: number;
  /** The first action kind tried, as an index into the kinds (modulo their number). */
  readonly kind: number;
  /** How an `allocate` picks its length. */
  readonly length: LengthKind;
  /** Where in its range the length falls, from 0 to 1. */
  readonly at: number;
  /** The prefix group of an `allocate` (modulo the groups), or -1. */
  readonly prefix: number;
}

/** A pool configuration at scale. */
export interface ScaleConfig {
  /** D's pages. */
  readonly pages: number;
  /** P's limit, in pages. */
  readonly prefillLimit: number;
  /** Request slots (reused). */
  readonly slots: number;
  /** Prefix groups. */
  readonly prefixes: number;
  /** The variant. */
  readonly variant: Variant;
  /** The faults (`double-free` among them once the spec's catalogue has it; see {@link ScaleConfig.doubleFree}). */
  readonly faults: readonly Fault[];
  /** Which free pages `allocate` hands out. */
  readonly allocator: PoolAllocator;
  /** Tokens per page: picks `sglang`'s shortage test. */
  readonly pageSize: number;
  /** Whether fault `double-free` is on (added to the faults both sides get). */
  readonly doubleFree: boolean;
  /** Decode steps per request (1 when left out). */
  readonly decodeSteps?: number;
  /** Whether tables grow a page at a time as decode writes tokens (`grow`). */
  readonly tableGrowth?: boolean;
  /** Whether D retracts running requests and resumes them (`retract`, `offload`, `resume`). */
  readonly retraction?: boolean;
  /** Whether the prefix cache evicts (`evict`; needs a prefix). */
  readonly eviction?: boolean;
  /** Whether the prefix cache is a radix tree (needs `eviction`). */
  readonly radix?: boolean;
  /** Whether every admission has a prefix (a step's -1 is group 0): no admission evicts its own node, so one node's lock_ref can sink far below 0. */
  readonly everyPrefixed?: boolean;
}

/** Which orders, page sizes and double-free setting random configurations draw from. */
export interface ScaleAllocation {
  /** The orders (all three when left out). */
  readonly allocators?: readonly PoolAllocator[];
  /** Whether `double-free` is on (random when left out). */
  readonly doubleFree?: boolean;
  /** The page sizes, in tokens (1 and 64 when left out; at 64, a stubbed one-page prompt has a stale tail, spec/slots.ts). */
  readonly pageSizes?: readonly number[];
}

/** Random configurations at scale: 33 to 4,096 pages (often exactly 256, 1,000 or 4,096), 1 to 6 slots, up to 2 prefixes. */
export function scaleConfigArbitrary(variant?: Variant, faults?: readonly Fault[], allocation: ScaleAllocation = {}): fc.Arbitrary<ScaleConfig> {
  return fc
    .record({
      pages: fc.oneof(fc.constantFrom(256, 1_000, 4_096), fc.integer({ min: 33, max: 2_048 })),
      limit: fc.double({ min: 0, max: 1, noNaN: true }),
      slots: fc.integer({ min: 1, max: 6 }),
      prefixes: fc.integer({ min: 0, max: 2 }),
      variant: variant === undefined ? fc.constantFrom(...REFERENCE_VARIANTS) : fc.constant(variant),
      // segment-overlap: neither the pool nor the reference splits a release into overlapping calls (spec/release.ts).
      // Retraction's faults are drawn only with retraction (scaleLifeArbitrary), so that these draws stay as they were.
      faults: faults === undefined ? fc.subarray(REFERENCE_FAULTS.filter((f) => !REFERENCE_LIFE_FAULTS.includes(f))) : fc.constant(faults),
      allocator: fc.constantFrom(...(allocation.allocators ?? POOL_ALLOCATORS)),
      pageSize: fc.constantFrom(...(allocation.pageSizes ?? [1, 64])),
      doubleFree: allocation.doubleFree === undefined ? fc.boolean() : fc.constant(allocation.doubleFree),
    })
    .map(({ limit, ...c }) => ({ ...c, prefillLimit: Math.floor(limit * c.pages) }));
}

/**
 * `configs` with a request's life on D: 2 or 3 decode steps, or 60 to 600 (tables that grow
 * past 64 and 255 pages, step counts past 255); growth and retraction each drawn, and
 * retraction's faults with it (where the faults were left to draw).
 */
export function scaleLifeArbitrary(configs: fc.Arbitrary<ScaleConfig>, drawFaults: boolean): fc.Arbitrary<ScaleConfig> {
  return fc
    .record({
      config: configs,
      decodeSteps: fc.oneof(fc.constantFrom(2, 3), fc.integer({ min: 60, max: 600 })),
      tableGrowth: fc.boolean(),
      retraction: fc.boolean(),
      lifeFaults: drawFaults ? fc.subarray([...REFERENCE_LIFE_FAULTS]) : fc.constant([]),
    })
    .map(({ config, lifeFaults, ...life }) => ({ ...config, ...life, faults: life.retraction ? [...config.faults, ...lifeFaults] : config.faults }));
}

/**
 * `configs` with the evicting prefix cache: 1 or 2 prefixes, eviction on, the radix tree
 * drawn; `lock-underflow` drawn as often as not (where the faults were left to draw), so
 * that lock_ref goes below 0 in half the trees.
 */
export function scaleTreeArbitrary(configs: fc.Arbitrary<ScaleConfig>, drawFaults: boolean): fc.Arbitrary<ScaleConfig> {
  return fc.record({ config: configs, prefixes: fc.integer({ min: 1, max: 2 }), radix: fc.boolean(), underflow: fc.boolean() }).map(({ config, prefixes, radix, underflow }) => {
    const faults = drawFaults ? [...config.faults.filter((f) => f !== 'lock-underflow'), ...(underflow ? (['lock-underflow'] as const) : [])] : config.faults;
    return { ...config, faults, prefixes, eviction: true, radix };
  });
}

/** Random steps: up to `maxSteps` (at least `minSteps`, a tenth of that unless given), lengths from every kind, the starting kind among the first `kinds` actions. */
export function scaleStepsArbitrary(maxSteps: number, kinds: number = POOL_ACTIONS.length, minSteps = Math.ceil(maxSteps / 10)): fc.Arbitrary<ScaleStep[]> {
  const step = fc.record({
    slot: fc.nat({ max: 63 }),
    kind: fc.nat({ max: kinds - 1 }),
    length: fc.constantFrom(...LENGTH_KINDS),
    at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    prefix: fc.integer({ min: -1, max: 1 }),
  });
  return fc.array(step, { minLength: minSteps, maxLength: maxSteps, size: 'max' });
}
