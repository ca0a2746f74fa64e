/**
 * How a {@link PagePool} is built: its sizes, the variant and the faults, with the same
 * names and meaning as the spec's configuration (spec/config.ts), and the label encoding
 * that the pool's per-page arrays share.
 *
 * Labels. At real scale requests are unbounded, so a request is named by the serial of its
 * admission (a positive 32-bit integer, unique among the last 2^31 - 1 admissions), and a
 * prefix page by the negative label `-(k + 1)`, where `k` numbers the pages of every prefix
 * group in turn (group `g`'s page `j` is `k = base(g) + j`, `base(g)` the pages of the
 * groups before it; with one-page prefixes `k = g`); `0` is nobody / never written. One
 * signed alphabet keeps every label a small integer (no boxing in V8) and the owner check
 * a single comparison for a page the reader wrote itself.
 */
import { checksOwner, firstPageOf, hasMechanism, stubsSilently } from '../spec/behaviour.ts';
import { DEFAULT_FAULTS, type Fault, type LengthRule, type Variant } from '../spec/config.ts';
import type { Mechanism } from '../spec/hardening.ts';
import type { PoolAllocator } from './allocator-order.ts';

/** The pool's sizes, variant and faults. */
export interface PoolOptions {
  /** D's KV pages, ids `0 .. pages-1`. */
  readonly pages: number;
  /** The longest prompt, in pages, that P really computes; longer ones hit `stub`. */
  readonly prefillLimit: number;
  /** The same limit in tokens, where it is not a whole number of pages (the spec's `prefillLimit`); `prefillLimit * pageSize` when left out. */
  readonly prefillTokens?: number;
  /** Which defence the serving stack has. */
  readonly variant: Variant;
  /** The bug classes switched on; the variant's own (`DEFAULT_FAULTS`) when left out, as in the spec's decoder. */
  readonly faults?: readonly Fault[];
  /** Request slots: the most requests in flight at once. */
  readonly slots: number;
  /** The longest request, in pages: the width of a slot's page table. */
  readonly maxLength: number;
  /** Number of prompt-prefix groups the prefix cache knows (`allocate`'s `prefix` is below it); 0 when left out. */
  readonly prefixes?: number;
  /** Per prefix group, its length in pages (the spec's `prefixPages`); 1 each when left out. */
  readonly prefixLengths?: readonly number[];
  /** Per prefix group, the group it extends (-1: none; spec/nesting.ts, under `radix`), which comes before it; none extends another when left out. */
  readonly prefixParents?: readonly number[];
  /**
   * Whether `allocate` may admit a new request into a slot whose request is finished
   * (freed, released, or timed out with its late write landed). On by default, as a server
   * reuses its request rows; the refinement harness turns it off, because a spec request
   * is admitted once.
   */
  readonly reuseSlots?: boolean;
  /** Which free pages `allocate` hands out (docs/ALLOCATOR.md); `sorted` when left out. */
  readonly allocator?: PoolAllocator;
  /** Tokens per page; under `sglang` it picks the shortage test (`alloc` for 1, `alloc_extend` otherwise). 1 when left out. */
  readonly pageSize?: number;
  /**
   * When a prompt is too long for P, in tokens against `prefillLimit * pageSize`: `gt`
   * (longer than the limit, the default) or `ge` (at least the limit, SGLang's
   * `validate_input_length`: `len(origin_input_ids) >= max_req_input_len`).
   */
  readonly lengthRule?: LengthRule;
  /** Whether the prefix cache evicts (action `evict`, lock counts per prefix); off when left out. */
  readonly eviction?: boolean;
}

/** The two length rules: refuse a prompt longer than the limit, or one at least as long (the spec's, spec/config.ts). */
export type { LengthRule };

/** What the options switch on, resolved once so that the actions test plain booleans. */
export interface Behaviour {
  /** `stub` writes a one-page dummy and reports success (rather than refusing). */
  readonly silentStub: boolean;
  /** `decode` checks every page's owner tag; writes stamp tags and `allocate` clears them. */
  readonly ownerCheck: boolean;
  /** `timeout` is enabled, and a timed-out request's write still lands. */
  readonly earlyFree: boolean;
  /** `free` releases a freed (or landed) request's old page table a second time. */
  readonly staleFree: boolean;
  /** `insert` also takes the first page of a refused or failed request. */
  readonly prefixPoison: boolean;
  /** See {@link PoolOptions.reuseSlots}. */
  readonly reuseSlots: boolean;
  /** The free list is a multiset (fault `double-free`), and `free` may release a freed request's still-free pages again. */
  readonly doubleFree: boolean;
  /** See {@link PoolOptions.allocator}. */
  readonly allocator: PoolAllocator;
  /** The lowest page id handed out: 1 where page 0 is SGLang's padding page (`sglang`, `lifo`), else 0. */
  readonly firstPage: number;
  /** See {@link PoolOptions.eviction}; only with a prefix cache. */
  readonly eviction: boolean;
  /** Fault `lock-underflow`: a hit locks another node than the page it reads, so nothing protects that page from eviction. */
  readonly lockUnderflow: boolean;
  /** `hardened`'s `revoke-writer`: a timed-out request's write lands nowhere. */
  readonly revokeWriter: boolean;
  /** `hardened`'s `release-checks-holder`: a release frees only the pages the request still holds. */
  readonly releaseChecksHolder: boolean;
  /** Fault `auto-truncate`: P cuts an over-long prompt to the limit and prefills it, reporting success. */
  readonly autoTruncate: boolean;
  /** `hardened`'s `tag-counts-tokens`: a tag counts the slots its write filled, and decode checks the count covers its reads. */
  readonly tagCountsTokens: boolean;
  /** Fault `offload-after-free`: a retraction releases first, and the copy to host memory reads the old pages later (`offload`). */
  readonly offloadAfterFree: boolean;
  /** Fault `resume-stale`: a resume takes new pages and loads nothing into them. */
  readonly resumeStale: boolean;
}

/** The data label of a read that met stale P-side data: the slots of a page past its write's end (spec/slots.ts); never a serial or a prefix's label. */
export const STALE_DATA = -0x7fffffff;

/** Marks a page-table entry that holds no page. */
export const NO_PAGE = -1;

/** The largest serial; the next admission after it gets serial 1 again. */
export const MAX_SERIAL = 0x7fffffff;

/** The label of prefix page `k`'s data, and of its slot in the prefix cache as a holder (`k = g` for one-page prefixes). */
export function prefixLabelOf(k: number): number {
  return -(k + 1);
}

/** The prefix page `k` of a negative label (the group itself, for one-page prefixes). */
export function groupOfLabel(label: number): number {
  return -label - 1;
}

const whole = (name: string, value: number, min: number): void => {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`PoolOptions.${name}: expected a whole number >= ${min}, got ${value}`);
};

/** Whether fault `fault` acts in a pool of these options: it is on (the variant's default faults when none are given), and the variant has no `stoppedBy` mechanism that stops it. */
export function faultActs(options: Pick<PoolOptions, 'faults' | 'variant'>, fault: Fault, stoppedBy?: Mechanism): boolean {
  return (options.faults ?? DEFAULT_FAULTS[options.variant]).includes(fault) && (stoppedBy === undefined || !hasMechanism(options.variant, stoppedBy));
}

/** Checks the sizes (a programming error, not user input: throws `RangeError`) and resolves the switches. */
export function resolveOptions(options: PoolOptions): Behaviour {
  whole('pages', options.pages, 1);
  whole('prefillLimit', options.prefillLimit, 0);
  whole('slots', options.slots, 1);
  whole('maxLength', options.maxLength, 1);
  whole('prefixes', options.prefixes ?? 0, 0);
  whole('pageSize', options.pageSize ?? 1, 1);
  const lengths = options.prefixLengths ?? [];
  if (options.prefixLengths !== undefined && lengths.length !== (options.prefixes ?? 0)) {
    throw new RangeError(`PoolOptions.prefixLengths: expected one length per prefix group (${options.prefixes ?? 0}), got ${lengths.length}`);
  }
  lengths.forEach((k, g) => whole(`prefixLengths[${g}]`, k, 1));
  whole('prefillTokens', options.prefillTokens ?? 0, 0);
  const faults = options.faults ?? DEFAULT_FAULTS[options.variant];
  const has = (f: Fault): boolean => faults.includes(f);
  return {
    silentStub: stubsSilently(options.variant, faults),
    ownerCheck: checksOwner(options.variant),
    earlyFree: has('early-free'),
    staleFree: has('stale-free'),
    prefixPoison: has('prefix-poison'),
    reuseSlots: options.reuseSlots ?? true,
    // Read as strings, so that the pool takes the fault whether or not the spec's catalogue names it yet.
    doubleFree: (faults as readonly string[]).includes('double-free'),
    allocator: options.allocator ?? 'sorted',
    firstPage: firstPageOf(options.allocator ?? 'sorted'),
    eviction: options.eviction === true && (options.prefixes ?? 0) > 0,
    lockUnderflow: (faults as readonly string[]).includes('lock-underflow'),
    revokeWriter: hasMechanism(options.variant, 'revoke-writer'),
    releaseChecksHolder: hasMechanism(options.variant, 'release-checks-holder'),
    autoTruncate: (faults as readonly string[]).includes('auto-truncate'),
    tagCountsTokens: hasMechanism(options.variant, 'tag-counts-tokens'),
    offloadAfterFree: has('offload-after-free'),
    resumeStale: has('resume-stale'),
  };
}
