/**
 * The mechanisms of variant `hardened`: what the owner check needs besides its tag once
 * P's writes land part by part (fault `torn-write`) and D frees pages early or twice.
 * Each is a switch, defined here once; `hardened` has them all, and a test switches each
 * one off and shows the counterexample the checker then finds.
 *
 * Why these two. The checker's counterexamples under `owner-check` with `torn-write` come
 * in two shapes:
 * - a timed-out request's late write lands its content part after the new holder's tag
 *   (`early-free`): the tag says "mine", the content is another user's;
 * - a stale second release frees a page that another request still holds, a third
 *   request is allocated it, and one holder's content part lands after the other's tag
 *   (`stale-free`): the same disagreement between tag and content, without any timeout.
 *
 * In both, the owner check is right about the tag and wrong about the content, because
 * the tag and the content are two writes: no check made at read time can see which part
 * came last. So a mechanism must stop the foreign write from reaching a page that has a
 * new holder at all, one per path by which it gets there; and each is needed: without
 * either one, the checker finds a leak (test/hardened/hardened.test.ts).
 *
 * Candidates left out, and why:
 * - a generation number per allocation inside the tag: every request is allocated once
 *   in this model, so a request's label already names one hold; in code, where request
 *   slots are reused, the label is (slot, generation), and `release-checks-holder`
 *   compares exactly that;
 * - a write that meets another hold's tag poisons the page: `hardened` holds without it,
 *   because with the writer revoked and releases checked no write meets another hold;
 * - a release that waits for the writer (SGLang #35049): fault `early-free` is exactly its
 *   timeout path (#38961), which frees with the writer still live; waiting narrows the
 *   window, and `revoke-writer` is what makes the timeout itself safe;
 * - allocation that refuses a page still held: `hardened` holds without it, because
 *   `release-checks-holder` keeps a held page off the free list in the first place. A
 *   page freed twice in one hold (a double free) is the same case: the second release
 *   finds the page no longer held by the releasing request and frees nothing.
 *
 * The third, for token slots. With more than one slot per page, a tag names the right
 * owner of a page whose last slots were never written for that owner: the stale tail of
 * P's last page (`slots.ts`), read when P wrote fewer tokens than D reads, because P cut
 * the prompt (`auto-truncate`) or stubbed a one-page prompt (`silent-stub`). A tag per
 * page cannot tell, so the tag also carries how many slots the write filled, and decode
 * checks that the count covers every slot it reads (`tag-counts-tokens`). The checker
 * finds the slot-level leak under `owner-check` and none under `hardened`
 * (test/spec/slots.test.ts); with one slot per page the count is always the whole page,
 * and the mechanism changes nothing.
 *
 * The fourth, for retraction (config `retraction`, spec/retraction.ts). `resume` loads a
 * request's saved copy into its new pages, and the load is a write: under the plain owner
 * check it stamps every new page with the request's own label, whatever the copy holds.
 * So a copy that holds another user's KV is laundered: the stale pages a silent stub left
 * in the table before the first decode (no fault needed beyond the incident), or the pages
 * another request wrote after an early release (fault `offload-after-free`). The tag the
 * copy was taken with is the only witness of whose data it is, so the copy keeps each
 * page's tag with its content, and the load restores that tag rather than stamping a new
 * one (`copy-carries-tag`); decode's check then fails the request loudly. A skipped load
 * (`resume-stale`) needs nothing more: the new pages' tags were cleared when they were
 * taken, and no write stamped them. A generation per hold is not needed in the model: a
 * request's label names the request, not a reused request slot, and its KV at a position is
 * the same in every hold (test/spec/retraction.test.ts shows that `hardened` holds).
 *
 * The fifth, for the radix tree (config `radix`, spec/radix.ts). `dec_lock_ref` has no
 * floor, and a release that unlocks its path twice (fault `lock-underflow`) cancels another
 * request's lock on the shared nodes: the next eviction frees a page that request still
 * reads, and no check at read time can help, since the page is the prefix's until someone
 * else takes it. A clamp at 0 is not enough: with two requests on one node (lock_ref 2) the
 * double unlock reaches 0 without going below it, and the node is evictable while the
 * second still reads it. What stops it is that a request gives back only the lock it took:
 * the unlock moves the request's last node to the root, so a second unlock walks nothing
 * (`unlock-once`; test/spec/radix.test.ts holds `hardened` and shows the removal test).
 *
 * The sixth, for P's source pages (config `sourcePages`, spec/source-pages.ts). When P
 * aborts a request whose transfer is still reading its source pages and frees them at once
 * (fault `source-early-free`), P's next prefill computes another user's KV into them, and
 * the parts still to land copy it into D's pages; the tag part carries the request's own
 * label, so every D-side check passes. Two candidates:
 * - a content check that travels with the data, the tag computed from the source page
 *   when its part lands: not enough, because the tag part and the content part are two
 *   reads of the source (`torn-write`), and the tag part may read it before the abort and
 *   the content part after; only a check over the landed bytes themselves (a checksum D
 *   recomputes at every read) would see it, at the cost of hashing every page read;
 * - P holds the source pages until the transfer has ended, aborted or not
 *   (`hold-source`): the abort still happens, and no part reads a reused page. It needs
 *   no state and no check at D, so it is the one `hardened` has; without it the checker
 *   finds the leak (test/spec/source-pages.test.ts).
 *
 * The seventh, for an early Success (fault `premature-success`, with `torn-write`). D commits
 * a request on P's Success while parts of the write are still landing, and decode's tag
 * check cannot tell: a page whose tag part landed before its content part passes the
 * check and holds the previous holder's content (docs/WIRE.md). So D does not take P's
 * word: it counts the parts that landed on its own side, and commits only when every part
 * of the write has (`commit-counts-landed`). Left out, and why:
 * - the tag lands last (each page's tag written after its content, fenced): decode's
 *   check then sees a tag only over landed content, but a request that failed the check
 *   is released with parts still in flight, and they land in the pages' next holder; the
 *   ordering needs the writer revoked at every release as well, two mechanisms for one;
 * - decode waits for the parts instead of the commit: the same count, read one step
 *   later, with a committed request waiting in the running batch.
 *
 * The eighth, for the metadata slot (fault `aux-torn`, spec/aux.ts). D's gate and check
 * read the slot's room alone, and the room is reset before reuse while the payload is
 * not: a room that lands first vouches for the previous holder's first token. So P writes
 * the room last, after the payload and fenced behind it (`room-lands-last`): a room that
 * has landed vouches for a payload that has. Left out: resetting the payload with the
 * room (a payload not yet landed is then no token at all, garbage rather than a leak), and
 * a room inside each payload buffer (the same order, in one write per buffer).
 *
 * The ninth, for the draft model's KV (config `draft`, spec/draft.ts). On a prefix hit in
 * P's cache the draft part of the write skips the prefix's positions (fault
 * `draft-stale`), and D's pages there keep their old draft KV under the request's own tag
 * and target KV: the owner check passes. So P fills the hit's draft KV before it sends it
 * (`draft-fills-hit`): the draft part covers every page the target's part does. Left out:
 * an owner tag over both parts (a draft tag D checks beside the target's): it turns the
 * leak into a loud failure of every request whose prefix P's cache hit, so no such request
 * would ever decode.
 *
 * The tenth and eleventh, for D's state slots and metadata rows (config `stateSlots`,
 * spec/state-slots.ts). A state slot freed at the commit (fault `state-slot-reuse`) is
 * taken by the next allocation while its first holder still decodes from it, and its new
 * holder's transfer writes another user's state there: no page tag sees it, since the slot
 * has none. So the slot's free belongs to the request's own release, as its pages' does:
 * the commit frees the metadata row only (`slot-freed-with-request`). Left out: a holder
 * check at every decode step, which would see the reuse but fail every request whose
 * commit freed its slot, so that no request would decode at all (the checker finds no
 * successful decode with it). A metadata index handed to two requests
 * (`metadata-collision`) is stopped where it is made: the allocator hands out only an
 * index nobody holds (`metadata-alloc-checks-holder`, a free set rather than a deque that
 * can hold one index twice). Left out: D's check of the row's `bootstrap_room` at commit,
 * which fault `aux-torn` shows a room can pass on another request's payload.
 */

/** The mechanisms, in the order they are documented. */
export const MECHANISMS = ['revoke-writer', 'release-checks-holder', 'tag-counts-tokens', 'copy-carries-tag', 'unlock-once', 'hold-source', 'commit-counts-landed', 'room-lands-last', 'draft-fills-hit', 'slot-freed-with-request', 'metadata-alloc-checks-holder', 'protect-host', 'wait-own-load'] as const;

/** One of {@link MECHANISMS}. */
export type Mechanism = (typeof MECHANISMS)[number];

/** What a mechanism is, where it lives in real code, and what it costs; the documentation's source. */
export interface MechanismDoc {
  /** What it does, in the spec's terms. */
  readonly what: string;
  /** The real code path or change it corresponds to. */
  readonly where: string;
  /** What it costs at run time. */
  readonly cost: string;
}

/** Every mechanism's documentation. */
export const MECHANISM_DOCS: Readonly<Record<Mechanism, MechanismDoc>> = {
  'revoke-writer': {
    what:
      "When D times a request out (`timeout`), it revokes P's write access to the request's pages before freeing them: the parts of P's write still in flight, and a write posted later, land nowhere. The late write still arrives (`landed`), and is dropped.",
    where:
      "Mooncake/RDMA: register each transfer's destination pages under a memory window (or key) of its own and invalidate it (`IBV_WR_LOCAL_INV`, waiting for its completion) on the timeout and abort paths of `disaggregation/decode.py`, before `PagedTokenToKVPoolAllocator.free`. The fix that SGLang #24527 asks for, and what #35049's deferred release falls back on when it times out (#38961).",
    cost:
      'One memory-window bind per transfer (posted with the metadata) and one invalidation, waited for, per timed-out or aborted transfer; nothing on the normal path beyond the bind.',
  },
  'release-checks-holder': {
    what:
      'A release (`free`, `timeout`) frees a page only when the releasing request still holds it; a stale second release of pages that have since been handed to another request frees nothing.',
    where:
      "`PagedTokenToKVPoolAllocator.free`: keep, per page, the (request slot, allocation generation) that holds it, written by `alloc_extend`, and free only the pages whose entry matches the caller's; what `SGLANG_CHECK_KV_PAGE_INVARIANTS` checks after the fact (SGLang #27731, #38840, #38941).",
    cost: 'One small integer per page, written at allocation and compared at release: a gather and a compare over the pages freed.',
  },
  'tag-counts-tokens': {
    what:
      "The owner tag carries, beside the owner, how many of the page's slots the write filled (P: the prompt's tokens in that page; decode: up to the token it wrote); decode checks, at every step, that each page's count covers the slots it reads there, and fails the request loudly when one does not.",
    where:
      "P's transfer (`disaggregation/prefill.py`, `send_kv_chunk`) stamps each destination page's tag with the number of tokens it computed for that page, from the request's real (possibly truncated) `origin_input_ids`; D's check runs where decode builds `req_to_token[row, :seq_len]` (`disaggregation/decode.py`, before the first forward), comparing `seq_len - i * page_size` with the count of the i-th page; `alloc_decode`'s token write bumps the count of the page it writes.",
    cost:
      'One byte more per page tag (a page of at most 255 slots), written with the tag; at read time one compare per page, and only the last page of a table can be partial, so in practice one compare per request per step.',
  },
  'copy-carries-tag': {
    what:
      "With `retraction`: the saved copy of a retracted request keeps, per page, the owner tag it was taken with (and under `tag-counts-tokens` its count), and `resume`'s load restores that tag into the new page instead of stamping the request's label: a copy of another user's page carries that user's tag back, and decode fails the request loudly.",
    where:
      "`DecodeKVCacheOffloadManager.offload_kv_cache` and `load_kv_cache` (`disaggregation/decode_kvcache_offload_manager.py`, via `Req.offload_kv_cache` / `Req.load_kv_cache` in `managers/schedule_batch.py`): copy the per-page owner word with the KV (it is one more row of the host pool) and write it back with the KV on load, rather than re-deriving it from `req_pool_idx`.",
    cost: 'One word per page more in each host copy, copied with the pages; nothing on the decode path.',
  },
  'unlock-once': {
    what:
      "With `radix`: a request's release unlocks its path once: `dec_lock_ref` moves the request's last node to the root as it walks, so a second unlock of the same request (fault `lock-underflow`) walks nothing and cannot take another request's lock.",
    where:
      "`RadixCache.cache_finished_req` and `cache_unfinished_req` (`mem_cache/radix_cache.py`), and any other caller of `dec_lock_ref(req.last_node)`: set `req.last_node = self.root_node` right after the call (the root's `dec_lock_ref` walk is empty), the same idempotence `release_kv_cache`'s `holds_kv` guard gives the allocator's frees (SGLang #27666 shows the underflow).",
    cost: 'One assignment per release; nothing on the decode path.',
  },
  'hold-source': {
    what:
      "With `sourcePages`: P keeps a request's source pages until its transfer has ended, also when it aborts the request (`abortSource`); no content part of the write reads a page that P has handed to another prefill.",
    where:
      "`disaggregation/prefill.py`, `process_disagg_prefill_inflight_queue`: on `KVPoll.Failed`, call `release_kv_cache` only once the transfer worker has drained the room (no chunk of it taken and unfinished: `_staging_outstanding[room] == 0`, and `_await_transfer_futures` waiting for every running layer, as it does under `SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE`); SGLang PR #38961's \"hold prefill source pages\".",
    cost: "P's source pages of an aborted request stay allocated for as long as its running RDMA reads take (one chunk's layers); nothing on the normal path, where P already releases at Success.",
  },
  'commit-counts-landed': {
    what:
      "With `premature-success`: D commits a transfer (`handoff`) only when every part of P's write has landed on its side, by its own count of receiver-side completions, whatever P's Success says; a write still landing keeps the request waiting.",
    where:
      "`DecodeTransferQueue.pop_transferred` (`disaggregation/decode.py`) commits on `KVPoll.Success` from `poll_and_all_reduce`; the count replaces that trust: P posts each page write as an RDMA write with immediate (or NIXL's notification), D's receiver counts the completions against the page count it sent in `send_metadata`, and the metadata gate (`_apply_metadata_gate` in `disaggregation/utils.py`) downgrades Success to Transferring until the count is full.",
    cost: 'One immediate (a receive completion) per page write, polled by D, and a counter per request; no wait beyond the write itself landing.',
  },
  'room-lands-last': {
    what:
      "With `aux-torn`: P writes the metadata slot's `bootstrap_room` after the payload (the first output token), fenced behind it, so a room that has landed vouches for a payload that has; D's gate and check on the room are then a check on the payload too.",
    where:
      "P's aux transfer (`send_aux` of the Mooncake/NIXL managers, from `MetadataBuffers.get_buf_infos`): post the `bootstrap_room` buffer's write last, after the other buffers' writes on the same queue pair, with a fence (or as the write with immediate that completes the transfer); D's `_apply_metadata_gate` and `_commit_transfer_to_req` stay as they are.",
    cost: 'One fenced write per transfer, after the payload: no more bytes, a little more latency on the last write.',
  },
  'draft-fills-hit': {
    what:
      "With `draft`: on a prefix hit P fills the draft KV of the hit's positions before the transfer reads them, so the write's draft part (`landDraft`) covers every page its target part covers, the prefix's pages included.",
    where:
      "P's speculative worker (`speculative/eagle_worker.py`, the draft extend after the target's prefill): run the draft model over the cached prefix tokens too (or, as SGLang PR #19897 does for eagle-v2, fill the draft KV at `extend_prefix_lens` positions) before `send_kv_chunk` posts the request's pages, whose draft buffers `_init_kv_manager` appended to the target's.",
    cost: "The draft model's forward over a hit's prefix tokens (a small model: a fraction of the target's prefill of them); nothing on a miss.",
  },
  'slot-freed-with-request': {
    what:
      "With `stateSlots`: a request's state slot is freed only by the request's own release (`free`, `timeout`), with its pages; the commit frees its metadata row and nothing else, so no allocation takes a slot that a decoding request still reads.",
    where:
      "`HybridReqToTokenPool.free` / `free_mamba_cache` (`mem_cache/memory_pool.py`): called from `release_kv_cache` at the request's end only; `pop_transferred` (`disaggregation/decode.py`) frees the metadata buffer index (`req_to_metadata_buffer_idx_allocator.free`) and no state slot.",
    cost: 'None at run time: where the free is called, not an extra step.',
  },
  'metadata-alloc-checks-holder': {
    what:
      "With `stateSlots`: the metadata buffer index allocator hands out only an index nobody holds; an index freed twice is on its free list once, so two requests in flight never share a `MetadataBuffers` row.",
    where:
      "`ReqToMetadataIdxAllocator` (`disaggregation/utils.py`): keep the free indices as a set (or a per-index in-use bit), make `free` of an index not in use a no-op (or an error) and `alloc` skip an index in use; the allocator `pop_preallocated` and `pop_transferred` share (SGLang #22716).",
    cost: 'One bit per metadata row, set at alloc and cleared at free: nothing on the decode path.',
  },
  'protect-host': {
    what:
      "With `loadback`: a load back holds its host copy from the moment it is posted until it is acknowledged, so `evict_host` skips the copy and no other request's write-back reuses its slot while the load reads it.",
    where:
      "`HiRadixCache.load_back` (`mem_cache/hiradix_cache.py`): call `protect_host()` on every node it loads (and `release_host()` in `loading_check` when `ack_load_queue` acknowledges the node id); `evict_host` already skips a node with `host_ref_counter > 0`.",
    cost: 'A reference count per loading node, raised and dropped once per load; the host slots of loads in flight stay out of eviction for as long as the copy takes.',
  },
  'wait-own-load': {
    what:
      "With `loadback`: a request's decode waits on the completion of its own load back (the producer index its load was given), never on another load's or none, so the forward reads the prefix pages only once the load has landed.",
    where:
      "`HiRadixCache.ready_to_load_host_cache` and `LayerDoneCounter` (`managers/cache_controller.py`): every batch with a request whose prefix was loaded back carries that load's producer index (`hicache_consumer_index`), also on the disaggregated decode path's prebuilt batches, and each layer's attention calls `wait_until` on it before reading.",
    cost: 'A wait per layer on an event the load already records; none where no load is in flight.',
  },
};
