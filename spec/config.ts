/**
 * The model's parameters: the page pool of the decode side (D), the longest prompt the
 * prefill side (P) really computes, the requests in flight, the variant under test and
 * the bug classes switched on.
 */
import type { Mechanism } from './hardening.ts';

/** The behaviours of the serving stack that pagecheck compares. */
export const VARIANTS = ['buggy', 'length-fix', 'owner-check', 'hardened'] as const;

/** One of {@link VARIANTS}. */
export type Variant = (typeof VARIANTS)[number];

/** The fault catalogue: bug classes of the same family as the incident, each a switch on the model. */
export const FAULTS = ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'torn-write', 'auto-truncate', 'segment-overlap', 'offload-after-free', 'resume-stale', 'source-early-free', 'premature-success', 'aux-torn', 'draft-stale', 'state-slot-reuse', 'metadata-collision', 'host-evict-during-load', 'read-before-load'] as const;

/** One of {@link FAULTS}. */
export type Fault = (typeof FAULTS)[number];

/** What each variant does, in one sentence; the documentation's source. */
export const VARIANT_DOCS: Readonly<Record<Variant, string>> = {
  buggy:
    'The pre-fix behaviour (SGLang before 0.5.22): prefill replaces an over-long prompt by a one-token stub and tells nobody; decode attends over every page it reserved.',
  'length-fix':
    'The 0.5.22 fix: both sides refuse an over-long request before the handoff, so decode never waits for pages that prefill will not write. It closes the incident\'s exact path and nothing else.',
  'owner-check':
    'The stub bug is still there, but every page carries a small owner tag, stamped with the content written into it and cleared when the page is handed out; decode checks the tag of every page it reads, at every step, and fails the request loudly on a foreign one (a prefix tag passes only at the prefix\'s own position).',
  hardened:
    'The owner check plus the mechanisms that the checker shows are needed once writes land part by part: the writer\'s access is revoked when D times a request out, and a release frees only pages that the releasing request still holds; with token slots, the tag also counts the slots written, and decode checks that the count covers what it reads (see spec/hardening.ts).',
};

/**
 * The allocation orders: which free pages `allocate` hands out (docs/ALLOCATOR.md gives
 * each in pseudo-code beside the SGLang functions it follows).
 */
export const ALLOCATORS = ['sorted', 'sglang', 'lifo', 'any'] as const;

/** One of {@link ALLOCATORS}. */
export type Allocator = (typeof ALLOCATORS)[number];

/** What each allocation order does, in one sentence; the documentation's source. */
export const ALLOCATOR_DOCS: Readonly<Record<Allocator, string>> = {
  sorted: 'The first model: the free pages form a sorted set, ids 0 .. pages-1, and an allocation takes the lowest free ids.',
  sglang:
    "SGLang in P/D mode (need_sort): ids 1 .. pages (page 0 is the padding page); a release waits in a release list; an allocation takes the front of the sorted free list, after merging the release list into it and sorting when it finds the free list short (alloc: need > free; alloc_extend, pages of more than one token: tokens // pageSize + 2 > free, the tokens it allocates; a failed attempt merges too).",
  lifo: 'SGLang outside P/D mode (paged allocator): ids 1 .. pages; each release goes to the front of the free list, so the pages freed last are handed out first.',
  any: 'Any allocator: an allocation may take any free pages in any order, each choice a transition; a verdict here holds for every order.',
};

/**
 * Whether a fault can read a finished request's page table again: a late second release
 * frees exactly that list. Where no configured fault can, the table is dead once the
 * request finishes, and is cleared (see `liveness.ts`); a new fault that re-reads old
 * tables says so here.
 */
export const FAULT_REREADS_FINISHED_TABLE: Readonly<Record<Fault, boolean>> = {
  'silent-stub': false,
  'early-free': false,
  'stale-free': true,
  'prefix-poison': false,
  'lock-underflow': false,
  // A second release of a finished request's table: the same list, freed again.
  'double-free': true,
  'torn-write': false,
  'auto-truncate': false,
  // The overlap is within the one release, while the table is still live.
  'segment-overlap': false,
  // Both act on a retracted request, whose table is not finished.
  'offload-after-free': false,
  'resume-stale': false,
  // It acts on a write in flight, whose table is live.
  'source-early-free': false,
  // A released request whose parts are in flight is `landing`, which keeps its table until they land.
  'premature-success': false,
  // The metadata slot is released at the commit, with the table still live.
  'aux-torn': false,  // It acts on a write into a live table.
  'draft-stale': false,
  // Both act on slots held by live requests.
  'state-slot-reuse': false,
  'metadata-collision': false,
  // Both act on a request that holds its table: a load in flight, a decode.
  'host-evict-during-load': false,
  'read-before-load': false,
};

/** The configuration switch a fault acts under, where it needs one (a fault without its switch cannot fire): the matrix's cells of that fault turn it on. */
export const FAULT_NEEDS: Readonly<Partial<Record<Fault, 'eviction' | 'retraction' | 'sourcePages' | 'draft' | 'stateSlots' | 'loadback'>>> = {
  'lock-underflow': 'eviction',
  'offload-after-free': 'retraction',
  'resume-stale': 'retraction',
  'source-early-free': 'sourcePages',
  'draft-stale': 'draft',
  'state-slot-reuse': 'stateSlots',
  'metadata-collision': 'stateSlots',
  'host-evict-during-load': 'loadback',
  'read-before-load': 'loadback',
};

/** `config` with every switch its faults act under turned on ({@link FAULT_NEEDS}): no fault of it is left unable to fire for want of its switch. */
export function withFaultSwitches(config: Config): Config {
  const on = config.faults.flatMap((f) => (FAULT_NEEDS[f] === undefined ? [] : [FAULT_NEEDS[f]]));
  return on.length === 0 ? config : { ...config, ...Object.fromEntries(on.map((k) => [k, true])) };
}

/** The faults a variant has when the user names none: the incident's silent stub, except under the length fix that removed it. */
export const DEFAULT_FAULTS: Readonly<Record<Variant, readonly Fault[]>> = {
  buggy: ['silent-stub'],
  'length-fix': [],
  'owner-check': ['silent-stub'],
  hardened: ['silent-stub'],
};

/**
 * The length rules: when P finds a prompt too long for its memory. `gt` refuses a prompt
 * longer than the prefill limit (the first model's rule); `ge` one of at least the limit,
 * SGLang's `validate_input_length` (`len(origin_input_ids) >= max_req_input_len`).
 */
export const LENGTH_RULES = ['gt', 'ge'] as const;

/** One of {@link LENGTH_RULES}. */
export type LengthRule = (typeof LENGTH_RULES)[number];

/** One request: its name, its prompt length in tokens, and the prompt prefix it shares, if any. */
export interface RequestSpec {
  /** Printed in traces: `allocate(A)`. */
  readonly name: string;
  /** The prompt's length in tokens; decode reserves `ceil(length / pageSize)` pages for it and reads its first `length` slots. */
  readonly length: number;
  /**
   * Requests with the same prefix share its pages, the first pages of their tables,
   * through the prefix cache. A prefix is one page long unless the configuration's
   * `prefixPages` gives it more; the request is longer than its prefix. Under `radix` a
   * name with a slash extends another (`sys/doc` extends `sys`, and is longer): its first
   * pages are the other's (spec/nesting.ts).
   */
  readonly prefix?: string;
}

/** A complete, validated model configuration. */
export interface Config {
  /** D's KV pages, ids `0 .. pages-1`. */
  readonly pages: number;
  /** The prefill limit, in tokens: the longest prompt P really computes (under the length rule); longer ones hit `stub`. */
  readonly prefillLimit: number;
  /** The requests, in the order of their names; every request is a different user. */
  readonly requests: readonly RequestSpec[];
  /** Which defence the serving stack has. */
  readonly variant: Variant;
  /** The bug classes switched on. */
  readonly faults: readonly Fault[];
  /** Which free pages `allocate` hands out; `sorted` when absent. */
  readonly allocator?: Allocator;
  /** Whether the prefix cache evicts an unlocked cached page when an allocation finds too few free pages (action `evict`); `false` when absent. */
  readonly eviction?: boolean;
  /**
   * Per prefix name, its length in pages (`{"sys": 2}`): the table positions `0 .. k-1`
   * that every request with that prefix shares, page `j` valid only at position `j`. A
   * prefix not named here is one page long; only lengths above 1 are kept.
   */
  readonly prefixPages?: Readonly<Record<string, number>>;
  /** Token slots per page; `1` (whole pages, the first model) when absent. It also selects `sglang`'s shortage test (`alloc` or `alloc_extend`). */
  readonly pageSize?: number;
  /** When a prompt is too long for P; `gt` when absent. */
  readonly lengthRule?: LengthRule;
  /**
   * How many times decode reads the whole page table (one step per generated token);
   * every step after the first also writes the new token into the request's last page.
   * Default 1 (left out): one read, no write, the first model's decode.
   */
  readonly decodeSteps?: number;
  /**
   * Whether the page table grows as decode writes tokens (SGLang's `alloc_decode`): a
   * decode step whose new token falls past the table's last slot first takes one more page
   * (action `grow`). Needs `decodeSteps` above 1 (only steps after the first write a
   * token); `false` when absent: the table is the prompt's pages, and a token past its
   * last slot overwrites the last slot.
   */
  readonly tableGrowth?: boolean;
  /**
   * Whether D may retract a running request and resume it later (SGLang's
   * `retract_decode` and `resume_retracted_reqs`): action `retract` saves the request's KV
   * to host memory and releases its pages, `resume` allocates new pages and loads the copy
   * back (spec/retraction.ts). `false` when absent: a request holds pages once.
   */
  readonly retraction?: boolean;
  /**
   * Whether the prefix cache is a radix tree (SGLang's `RadixCache` on D, the decode radix
   * cache on): a node per cached prefix page, its parent the page before; a partial match
   * shares the matched pages; the handoff inserts the prompt's prefix pages
   * (`cache_unfinished_req`); eviction frees one unlocked leaf at a time; and `lock_ref` is
   * per node, raised and lowered along the path to the root with no clamp
   * (spec/radix.ts). Needs `eviction`. `false` when absent: one entry per prefix name.
   */
  readonly radix?: boolean;
  /**
   * Whether P's source pages are modelled (spec/source-pages.ts): P computes a request's KV
   * into pages of its own, and each content part of the write copies what they hold when
   * it lands. Needed by fault `source-early-free`; `false` when absent.
   */
  readonly sourcePages?: boolean;
  /**
   * Mechanisms of `hardened` switched off (spec/hardening.ts): `hardened` without them, to
   * see the counterexample each one stops (the removal test, from the command line).
   * Only with variant `hardened`, the one that has mechanisms; absent or empty: all on.
   */
  readonly without?: readonly Mechanism[];
  /**
   * Whether a draft model's KV is modelled (speculative decoding, spec/draft.ts): every page
   * holds the draft's KV beside the target's, written by a transfer part of its own
   * (`landDraft`), and decode reads both. Needed by fault `draft-stale`; `false` when absent.
   */
  readonly draft?: boolean;
  /**
   * Whether D's per-request slots beside the pages are modelled (spec/state-slots.ts): a
   * state slot (the recurrent state) and a metadata buffer row per request, taken at
   * allocation, written with the transfer, read at commit and at every decode step.
   * Needed by faults `state-slot-reuse` and `metadata-collision`; `false` when absent.
   */
  readonly stateSlots?: boolean;
  /**
   * Whether D's prefix cache has a host tier that loads back (spec/loadback.ts): a request
   * whose prefix is not on D but in host memory gets pages of its own for it, filled by a
   * load from the host copy. Needs a request with a prefix; `false` when absent.
   */
  readonly loadback?: boolean;
}

/** The encoding's bounds: a label, a page id, a table position and a count take one byte where the configuration's values fit and two above (spec/layout.ts), so a pool is at most 65,535 pages (ids below the all-ones empty slot) and requests and prefix pages together at most 16,382 labels (a read record holds a label in 14 bits, and the stale P-side label is one more); a page's free-list copies and a prefix's lock count are one byte, and an action index is a byte. */
export const LIMITS = { maxPages: 65_535, maxRequests: 4_096, maxActions: 256, maxDecodeSteps: 16, maxLabels: 16_382, maxCountedRequests: 254 } as const;

/** Names A, B, C, ... for the requests given by length only. */
export function requestName(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : `R${index}`;
}

/** The minimal incident: 3 pages, prefill limit 2, A (2 pages) then B (3 pages). */
export function incidentConfig(variant: Variant, faults: readonly Fault[] = DEFAULT_FAULTS[variant]): Config {
  return {
    pages: 3,
    prefillLimit: 2,
    requests: [
      { name: 'A', length: 2 },
      { name: 'B', length: 3 },
    ],
    variant,
    faults,
  };
}

/**
 * The fault matrix's configuration: the minimal incident plus a shared prompt prefix, so
 * that every fault of the catalogue has a path to a leak. 3 pages, prefill limit 2,
 * A (2 pages), B (3 pages, prefix `sys`), C (2 pages, prefix `sys`).
 */
export function matrixConfig(variant: Variant, faults: readonly Fault[] = DEFAULT_FAULTS[variant]): Config {
  return {
    pages: 3,
    prefillLimit: 2,
    requests: [
      { name: 'A', length: 2 },
      { name: 'B', length: 3, prefix: 'sys' },
      { name: 'C', length: 2, prefix: 'sys' },
    ],
    variant,
    faults,
  };
}
