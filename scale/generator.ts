/**
 * The command generator of the model-based test at scale: what a run is made of (a
 * configuration and a list of steps) and how fast-check draws them. `mbt.ts` says what a
 * step does; lengths are drawn by kind so that the sizes that matter come up often.
 */
import fc from 'fast-check';
import type { ActionKind } from '../spec/actions.ts';
import type { Fault, Variant } from '../spec/config.ts';
import { POOL_ALLOCATORS, type PoolAllocator } from '../impl/allocator-order.ts';
import { REFERENCE_FAULTS, REFERENCE_VARIANTS } from './reference.ts';

/** The actions the pool has, in the spec's order: the kinds a step tries. */
export const POOL_ACTIONS = ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert'] as const satisfies readonly ActionKind[];

/** One of {@link POOL_ACTIONS}. */
export type PoolAction = (typeof POOL_ACTIONS)[number];

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
      faults: faults === undefined ? fc.subarray([...REFERENCE_FAULTS]) : fc.constant(faults),
      allocator: fc.constantFrom(...(allocation.allocators ?? POOL_ALLOCATORS)),
      pageSize: fc.constantFrom(...(allocation.pageSizes ?? [1, 64])),
      doubleFree: allocation.doubleFree === undefined ? fc.boolean() : fc.constant(allocation.doubleFree),
    })
    .map(({ limit, ...c }) => ({ ...c, prefillLimit: Math.floor(limit * c.pages) }));
}

/** Random steps: up to `maxSteps` (at least a tenth of that), lengths from every kind. */
export function scaleStepsArbitrary(maxSteps: number): fc.Arbitrary<ScaleStep[]> {
  const step = fc.record({
    slot: fc.nat({ max: 63 }),
    kind: fc.nat({ max: POOL_ACTIONS.length - 1 }),
    length: fc.constantFrom(...LENGTH_KINDS),
    at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    prefix: fc.integer({ min: -1, max: 1 }),
  });
  return fc.array(step, { minLength: Math.ceil(maxSteps / 10), maxLength: maxSteps, size: 'max' });
}
