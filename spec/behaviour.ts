/**
 * What a configuration's names mean, derived once. A variant, a length rule, an allocator
 * and a page size are words in a configuration; the spec's model (`model.ts`), the pool
 * (`impl/`), the incident replay (`incident/`), the log validator (`conformance/`), the
 * scale reference (`scale/`) and the printers (`trace/`) all need the same few facts from
 * them: which checks a variant runs, when a prompt is too long for P, whether page 0 is the
 * padding page, which mechanisms a variant has, and when `sglang`'s allocator finds its
 * free list short. Each is a function here, and every consumer asks it, so that a new
 * variant or allocator changes one table, not five copies.
 *
 * The facts are plain functions of plain values (no model, no state), so that a pool of a
 * million pages and a log validator can ask them without building a spec model.
 */
import type { Allocator, Fault, LengthRule, Variant } from './config.ts';
import { MECHANISMS, type Mechanism } from './hardening.ts';

/** What a variant does, as switches: the checks it runs and the mechanisms it has. */
export interface VariantBehaviour {
  /** Decode checks every page's owner tag, at every step; writes stamp tags and `allocate` clears them. */
  readonly ownerCheck: boolean;
  /** P refuses an over-long prompt before the handoff (the 0.5.22 length fix), so fault `silent-stub` has nothing to act on. */
  readonly refusesOverLong: boolean;
  /** The mechanisms of spec/hardening.ts it has, in their documented order. */
  readonly mechanisms: readonly Mechanism[];
}

/** Every variant's behaviour: the one table the variants' meaning is read from (spec/config.ts's VARIANT_DOCS says it in words). */
export const VARIANT_BEHAVIOUR: Readonly<Record<Variant, VariantBehaviour>> = {
  buggy: { ownerCheck: false, refusesOverLong: false, mechanisms: [] },
  'length-fix': { ownerCheck: false, refusesOverLong: true, mechanisms: [] },
  'owner-check': { ownerCheck: true, refusesOverLong: false, mechanisms: [] },
  hardened: { ownerCheck: true, refusesOverLong: false, mechanisms: MECHANISMS },
};

/** Whether variant `variant`'s decode checks the owner tag of every page it reads. */
export function checksOwner(variant: Variant): boolean {
  return VARIANT_BEHAVIOUR[variant].ownerCheck;
}

/** Whether variant `variant` has mechanism `mechanism` (spec/hardening.ts). */
export function hasMechanism(variant: Variant, mechanism: Mechanism): boolean {
  return VARIANT_BEHAVIOUR[variant].mechanisms.includes(mechanism);
}

/** Every mechanism, switched on or off for variant `variant`, less those a configuration switches off (`without`). */
export function mechanismsOf(variant: Variant, without: readonly Mechanism[] = []): Record<Mechanism, boolean> {
  return Object.fromEntries(MECHANISMS.map((k) => [k, hasMechanism(variant, k) && !without.includes(k)])) as Record<Mechanism, boolean>;
}

/**
 * Whether P silently stubs an over-long prompt (writes a one-page dummy and reports
 * success): fault `silent-stub` is on and the variant does not refuse such prompts. The
 * faults are read as strings, so that a pool takes a fault list of any origin.
 */
export function stubsSilently(variant: Variant, faults: readonly (Fault | string)[]): boolean {
  return !VARIANT_BEHAVIOUR[variant].refusesOverLong && faults.includes('silent-stub');
}

/**
 * Whether a prompt of `tokens` is too long for P, whose limit is `limit` (in the same
 * unit): more than the limit under rule `gt` (the first model's), at least the limit under
 * `ge` (SGLang's `validate_input_length`: `len(origin_input_ids) >= max_req_input_len`).
 * Such a prompt is stubbed, refused, or (fault `auto-truncate`) cut to the limit.
 */
export function isOverLongPrompt(tokens: number, limit: number, rule: LengthRule = 'gt'): boolean {
  return rule === 'ge' ? tokens >= limit : tokens > limit;
}

/** P's limit in tokens, from a limit of `limitPages` pages of `pageSize` tokens (a log's and the pool's unit). */
export function limitInTokens(limitPages: number, pageSize = 1): number {
  return limitPages * pageSize;
}

/**
 * Whether page 0 is SGLang's padding page, never handed out, so that page ids run
 * `1 .. pages` (`sglang` and `lifo`, as SGLang's allocators' `clear()`:
 * `arange(1, num_pages + 1)`); under `sorted` and `any` ids run `0 .. pages-1`.
 */
export function hasPaddingPage(allocator: Allocator): boolean {
  return allocator === 'sglang' || allocator === 'lifo';
}

/** The lowest page id an allocator hands out: 1 where page 0 is the padding page, else 0. */
export function firstPageOf(allocator: Allocator): 0 | 1 {
  return hasPaddingPage(allocator) ? 1 : 0;
}

/**
 * Whether `sglang`'s allocation of `need` pages finds its free list of `listed` entries
 * short, and so merges the release list into it and sorts (`merge_and_sort_free`). Read
 * from `mem_cache/allocator/paged.py` (`PagedTokenToKVPoolAllocator`) and D's
 * `_pre_alloc` (`disaggregation/decode.py`, `alloc_for_decode_prealloc`), which calls
 * `alloc` for pages of one token and `alloc_extend` (a batch of one) otherwise:
 * - `alloc` is short when it needs more pages than the free list holds;
 * - `alloc_extend` is short when `extend_num_tokens // page_size + bs + 1` exceeds it,
 *   where `extend_num_tokens` is the tokens the call allocates (`tokens`: the prompt's,
 *   less a cached prefix's, `fill_len - total_prefix_len`) and `bs` is 1. With whole pages
 *   that is `need + 2`, two pages early; a prompt that ends mid-page has
 *   `tokens // page_size = need - 1`, one page early.
 * A decode step's page (`grow`, path `decode`) comes from `alloc_decode` (or `alloc` for
 * pages of one token), which is short when the batch size, one here, exceeds the free
 * list: only when the free list is empty. `tokens` is read only on the `extend` path; it
 * is `need * pageSize`, whole pages, when left out.
 */
export function sglangShort(pageSize: number, need: number, listed: number, path: 'extend' | 'decode' = 'extend', tokens = need * pageSize): boolean {
  if (pageSize === 1 || path === 'decode') return need > listed;
  return Math.floor(tokens / pageSize) + 1 + 1 > listed;
}

/**
 * The tokens an `alloc_extend` of `need` pages allocates for a prompt of `promptTokens`
 * tokens in `promptPages` pages, of which the first `promptPages - need` are a cached
 * prefix's (whole pages, as the radix cache matches page-aligned keys): its
 * `extend_num_tokens`.
 */
export function extendTokens(promptTokens: number, promptPages: number, need: number, pageSize: number): number {
  return promptTokens - (promptPages - need) * pageSize;
}
