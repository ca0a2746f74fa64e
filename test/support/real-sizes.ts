/**
 * Configurations at real sizes for the differential tests (issue 27, item 1): 9 to 16
 * pages, requests longer than 8 pages, 9 or more requests, every allocator asked for,
 * prefixes, every variant and the faults. test/binding/agreement.ts draws them for the
 * successors against `step`; test/impl/mbt-real-sizes*.test.ts for the pool against the
 * spec (impl/mbt.ts). The statistics say what a run drew, for the test to print and pin.
 */
import fc from 'fast-check';
import { ALLOCATORS, configFrom, type Allocator, type Config, type Fault, type Variant } from '../../spec/index.ts';

/** The drawn configuration's parameters, before `configFrom` checks them. */
export interface Drawn {
  readonly pages: number;
  readonly prefillLimit: number;
  readonly lengths: readonly number[];
  readonly allocator: Allocator;
  readonly variant: Variant;
  readonly faults: readonly Fault[];
  readonly prefix: boolean;
  readonly lengthRule: 'gt' | 'ge';
}

/** Request lengths of one of three shapes: a few long ones (past 8 pages), many that take the pool one at a time, or a few of any length. */
const lengthsOf = (pages: number): fc.Arbitrary<number[]> =>
  fc.oneof(
    fc.array(fc.integer({ min: Math.min(9, pages), max: pages }), { minLength: 1, maxLength: 3 }),
    fc.array(fc.integer({ min: (pages >> 1) + 1, max: pages }), { minLength: 9, maxLength: 11 }),
    fc.array(fc.integer({ min: 1, max: pages }), { minLength: 2, maxLength: 3 }),
  );

/** Allocator `any` names every ordered choice of pages as an action, at most 256 of them: requests of one page. */
const anyLengths = fc.array(fc.constant(1), { minLength: 1, maxLength: 9 });

/**
 * Half of the draws are in the fast family (sorted, no prefix, buggy or length-fix, at most
 * the silent stub); the rest range over everything else, with the allocator drawn from
 * `allocators` (the pool has no `any`, which is a choice per allocation).
 */
export function drawnConfigOver(allocators: readonly Allocator[]): fc.Arbitrary<Drawn> {
  return fc
    .record({ pages: fc.integer({ min: 9, max: 16 }), family: fc.boolean(), allocator: fc.constantFrom(...allocators), variant: fc.constantFrom<Variant>('buggy', 'length-fix', 'owner-check', 'hardened') })
    .chain(({ pages, family, allocator, variant }) => {
      const alloc: Allocator = family ? 'sorted' : allocator;
      const v: Variant = family ? (variant === 'owner-check' || variant === 'buggy' ? 'buggy' : 'length-fix') : variant;
      const faults: fc.Arbitrary<Fault[]> = family ? fc.subarray<Fault>(['silent-stub']) : fc.subarray<Fault>(['silent-stub', 'early-free', 'stale-free', 'double-free'], { maxLength: 2 });
      return fc.record({
        pages: fc.constant(pages),
        prefillLimit: fc.integer({ min: 1, max: pages }),
        lengths: alloc === 'any' ? anyLengths : lengthsOf(pages),
        allocator: fc.constant(alloc),
        variant: fc.constant(v),
        faults,
        prefix: family || alloc === 'any' ? fc.constant(false) : fc.boolean(),
        lengthRule: fc.constantFrom<'gt' | 'ge'>('gt', 'ge'),
      });
    });
}

/** The draws over every allocator, `any` included (the successors' differential test). */
export const drawnConfig: fc.Arbitrary<Drawn> = drawnConfigOver(ALLOCATORS);

/** The configuration drawn: under a prefix, every request of more than one page shares `sys`. */
export function configOf(d: Drawn): Config {
  const requests = d.lengths.map((length) => (d.prefix && length > 1 ? { length, prefix: 'sys' } : { length }));
  return configFrom({ pages: d.pages, prefillLimit: d.prefillLimit, requests, variant: d.variant, faults: d.faults, allocator: d.allocator, lengthRule: d.lengthRule });
}

/** What the draws covered: per value, how many configurations had it. */
export interface SizeStats {
  configs: number;
  pages: Record<number, number>;
  requestCounts: Record<number, number>;
  longestRequest: Record<number, number>;
  allocators: Record<string, number>;
  variants: Record<string, number>;
  withPrefix: number;
}

/** Empty {@link SizeStats}. */
export const sizeStats = (): SizeStats => ({ configs: 0, pages: {}, requestCounts: {}, longestRequest: {}, allocators: {}, variants: {}, withPrefix: 0 });

/** Adds one to `r[k]`. */
export const bump = (r: Record<string | number, number>, k: string | number): void => void (r[k] = (r[k] ?? 0) + 1);

/** Counts one configuration into `seen`. */
export function countConfig(c: Config, seen: SizeStats): void {
  seen.configs++;
  bump(seen.pages, c.pages);
  bump(seen.requestCounts, c.requests.length);
  bump(seen.longestRequest, Math.max(...c.requests.map((r) => r.length)));
  bump(seen.allocators, c.allocator ?? 'sorted');
  bump(seen.variants, c.variant);
  if (c.requests.some((r) => r.prefix !== undefined)) seen.withPrefix++;
}
