/**
 * The model's parameters: the page pool of the decode side (D), the longest prompt the
 * prefill side (P) really computes, the requests in flight, the variant under test and
 * the bug classes switched on.
 */

/** The behaviours of the serving stack that pagecheck compares. */
export const VARIANTS = ['buggy', 'length-fix', 'owner-check', 'hardened'] as const;

/** One of {@link VARIANTS}. */
export type Variant = (typeof VARIANTS)[number];

/** The fault catalogue: bug classes of the same family as the incident, each a switch on the model. */
export const FAULTS = ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'torn-write', 'auto-truncate', 'segment-overlap', 'offload-after-free', 'resume-stale', 'source-early-free', 'premature-success', 'aux-torn', 'host-evict-during-load', 'read-before-load'] as const;

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

/** What each fault is, in one sentence; the documentation's source. */
export const FAULT_DOCS: Readonly<Record<Fault, string>> = {
  'silent-stub':
    'The incident: prefill replaces an over-long prompt by a one-page dummy and reports success; decode reads every page it reserved.',
  'early-free':
    'Decode times a request out before the handoff and frees its pages at once, while prefill\'s write is still in flight; the write lands later, by page id, in pages that may now belong to another request (SGLang #24527).',
  'stale-free':
    'A late second release (the abort path and the normal path both run) frees a request\'s old page table, whose pages may since have been handed to another request.',
  'prefix-poison':
    'Decode inserts a request\'s prefix pages into the prefix cache although they were not written for that prefix (the request was refused or failed); a later request with the same prefix reads it.',
  'lock-underflow':
    'A request that hits the prefix cache locks another node than the cached page it reads (and its unlock underflows), so with eviction on the page is evicted and handed to another request while the first still reads it.',
  'double-free':
    'The free list is a list, not a set: a second release of pages that are still free (the abort path and the normal path both run) leaves them there twice, and two later allocations can both be handed one of them (SGLang #27731, #38840, #38941).',
  'torn-write':
    'A write by P into a page is two parts, its content and its owner tag, that land one at a time, in any order and interleaved with every other action (one-sided RDMA, as D\'s CPU does not see it land); a late write can land part by part in a page that has a new holder.',
  'auto-truncate':
    'P cuts an over-long prompt to the prefill limit (`allow_auto_truncate`) and prefills what is left, reporting an ordinary success; D still believes the full length and reads every slot of it, past the cut: the pages P did not write, and the stale tail of the page P cut in.',
  'segment-overlap':
    "Two allocator calls of one release name the same page: the segment (`free_segment`) starts one page early, on the last page that `cache_finished_req`'s frees already released; it is a double free with no second release, and a free list that keeps duplicates (SGLang's tensor) then holds the page twice, so two later allocations can both be handed it (SGLang #38941, #38840; spec/release.ts).",
  'offload-after-free':
    "With `retraction`: D releases a retracted request's pages before the copy to host memory has read them (`offload_kv_cache` is asynchronous); the copy reads the pages later (action `offload`), when another request may hold them and have written its own KV there, and `resume` loads that copy back as the request's own (SGLang PR #30899; spec/retraction.ts).",
  'resume-stale':
    "With `retraction`: `resume` allocates the request's new pages but does not load its saved copy into them (the load is skipped, or reads a slot another request now holds), and reports the request resumed; decode reads whatever the new pages held before (SGLang PR #35957; spec/retraction.ts).",
  'source-early-free':
    "With `sourcePages`: P aborts a request whose transfer is still reading P's source pages and frees them at once (`process_disagg_prefill_inflight_queue` calls `release_kv_cache` on `KVPoll.Failed`, while a chunk the transfer worker already took keeps reading); P's next prefill computes another user's KV into them, and the parts of the write still to land copy it into D's pages under the request's own tag (SGLang #38961; spec/source-pages.ts).",
  'premature-success':
    "With `torn-write`: the transfer engine reports Success at the sender before every part of the write is visible at D (kvcache-ai/vllm PR #3; vllm #44238, #42395), so D commits the request (`handoff`) while its parts are still landing; decode reads pages whose content has not landed, and the parts still in flight land after D has released the pages (spec/transfer.ts).",
  'aux-torn':
    "The metadata slot (SGLang's `MetadataBuffers` row: the first output token and, apart, its `bootstrap_room`) lands apart from its payload: D's gate and check read the room only (`_apply_metadata_gate` in `disaggregation/utils.py`, `_commit_transfer_to_req` in `disaggregation/decode.py`), and only the room is reset to 0 before the slot is reused (`pop_transferred`), so a room that lands before its payload passes on the slot's previous holder's first token (spec/aux.ts).",
  'host-evict-during-load':
    "With `loadback`: the host copy a load back is still reading is evicted from host memory and its slot reused for another request's KV (`evict_host` takes a node whose host value a running load reads: no `protect_host` on it); the load copies that KV into D's pages, tagged as the prefix's (D tags what it asked to load), so an owner check passes it (spec/loadback.ts).",
  'read-before-load':
    "With `loadback`: decode reads the request's loaded-back prefix pages before the load has landed (the forward does not wait on the load's own completion, `LayerDoneCounter.wait_until` for its producer), so it reads what the pages held before, the previous holder's KV (spec/loadback.ts).",
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
  'aux-torn': false,
  // Both act on a request that holds its table: a load in flight, a decode.
  'host-evict-during-load': false,
  'read-before-load': false,
};

/** The configuration switch a fault acts under, where it needs one (a fault without its switch cannot fire): the matrix's cells of that fault turn it on. */
export const FAULT_NEEDS: Readonly<Partial<Record<Fault, 'eviction' | 'retraction' | 'sourcePages' | 'loadback'>>> = {
  'lock-underflow': 'eviction',
  'offload-after-free': 'retraction',
  'resume-stale': 'retraction',
  'source-early-free': 'sourcePages',
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
   * `prefixPages` gives it more; the request is longer than its prefix.
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
