/**
 * What each fault of the catalogue (`FAULTS`, config.ts) is, in a sentence with the real
 * code path or report it comes from: the catalogue's documentation (docs/SPEC.md,
 * docs/VARIANTS.md), kept apart from the configuration's types.
 */
import type { Fault } from './config.ts';

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
    'A request that hits the prefix cache locks another node than the cached page it reads (and its unlock underflows), so with eviction on the page is evicted and handed to another request while the first still reads it. Under --radix, a release walks dec_lock_ref from its last node twice with no floor, so lock_ref goes below 0 and cancels another request\'s lock on the same nodes, which eviction then takes while that request reads them (SGLang #27666).',
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
  'draft-stale':
    "With `draft`: on a prefix hit in P's cache the draft part of the write skips the prefix pages (P's draft extend covers the extend tokens only, and the draft KV of the cached positions is never filled: SGLang PR #19897), so D's pages keep whatever draft KV was there, possibly another request's from before the page was freed and reused; speculative decode reads it beside the target KV, which is the request's own, under the request's own tag (spec/draft.ts).",
  'state-slot-reuse':
    "With `stateSlots`: D frees a request's state slot (its recurrent state, SGLang's `MambaPool` slot held through `HybridReqToTokenPool`) at the commit, with its metadata buffer index (`pop_transferred`), instead of at the request's end; the next allocation takes it, that request's transfer writes its own state there, and the first request's next decode step reads another user's state (SGLang PRs #22811, #31108; spec/state-slots.ts).",
  'metadata-collision':
    "With `stateSlots`: the metadata buffer index allocator (`ReqToMetadataIdxAllocator`) hands an index that a request still holds to a second request (an index on its free list twice), so both transfers write their first output token into one `MetadataBuffers` row and the commit of one reads the other's (SGLang #22716, #17259; spec/state-slots.ts).",
  'host-evict-during-load':
    "With `loadback`: the host copy a load back is still reading is evicted from host memory and its slot reused for another request's KV (`evict_host` takes a node whose host value a running load reads: no `protect_host` on it); the load copies that KV into D's pages, tagged as the prefix's (D tags what it asked to load), so an owner check passes it (spec/loadback.ts).",
  'read-before-load':
    "With `loadback`: decode reads the request's loaded-back prefix pages before the load has landed (the forward does not wait on the load's own completion, `LayerDoneCounter.wait_until` for its producer), so it reads what the pages held before, the previous holder's KV (spec/loadback.ts).",
};
