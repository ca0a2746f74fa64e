/**
 * KV-cache page ownership across a prefill/decode handoff, as an executable state machine.
 *
 * In 2026 an LLM provider serving with SGLang in prefill/decode disaggregation leaked
 * fragments of other users' prompts in 155 responses. Its prefill machines (P) replaced
 * prompts longer than their memory by a one-token stub and reported success; the decode
 * machines (D) had reserved pages for the whole prompt and attended over all of them.
 * Only the first page had been rewritten: the others still held KV data of earlier
 * requests, because a freed page is handed out again without being cleared.
 *
 * This specification models D's page pool and the handoff of a handful of requests: who
 * holds each page, whose data each page holds, and whose data each request read when it
 * decoded. Its actions are the protocol's (`allocate`, `prefill`, `stub`, `handoff`,
 * `decode`, `free`), plus `timeout` and `insert` for the fault catalogue and the prefix
 * cache, and `landData` and `landTag` for a write that lands part by part (fault
 * `torn-write`); any interleaving of them is allowed, so a page freed by one request is
 * reused by the next. Four variants are compared: the pre-fix behaviour (`buggy`), the
 * fix that shipped (`length-fix`: refuse over-long requests before the handoff), an owner
 * check that tags every page with whose data it holds and fails a read of a foreign page
 * (`owner-check`), and the owner check with the mechanisms that the checker shows it
 * needs once writes land part by part (`hardened`, spec/hardening.ts).
 *
 * A page's content names its writer and the table position it was written for; a prefix
 * of `k` pages covers positions `0 .. k-1`, and its page `j` is valid only at position `j`. Decode takes `decodeSteps` steps, each
 * reading (and, under an owner check, checking) the whole table, each after the first
 * writing its new token into the last page. Two properties are about reads: `Isolation`
 * (no request read another user's data: confidentiality) and `Integrity` (every read was
 * of content written for that request at that position: correctness).
 *
 * The specification describes only safety: which states can be reached, never whether
 * anything must happen. By default it abstracts token counts to pages (one token slot per
 * page); with a page size of more than one, a page's slots and the stale tail of P's last
 * page are modelled (`slots.ts`). It abstracts a page's KV contents to the label of the
 * request (or shared prefix page) that wrote it, and prompt prefixes to whole pages shared
 * from position 0 (one page unless `prefixPages` gives more), each prefix one entry of the
 * cache, evicted whole. These
 * simplifications keep what every leak of this family needs: one page, in a request's
 * table, whose label is not the reader's. A request is allocated once, and with
 * `retraction` allocated again on resume: its label names the request, and
 * `retraction.ts` says why that still tells its own content from anyone else's. A page write lands whole, or as two parts
 * (content, tag) under `torn-write`; transitions.ts says why two are enough.
 */
export * from './allocator.ts';
export * from './behaviour.ts';
export * from './config.ts';
export * from './fault-docs.ts';
export * from './config-flags.ts';
export * from './decode.ts';
export * from './layout.ts';
export * from './model.ts';
export * from './state.ts';
export * from './actions.ts';
export * from './transitions.ts';
export * from './properties.ts';
export * from './run.ts';
export * from './view.ts';
export * from './liveness.ts';
export * from './hardening.ts';
export * from './removals.ts';
export * from './reads.ts';
export * from './writes.ts';
export * from './slots.ts';
export * from './release.ts';
export * from './retraction.ts';
export * from './source-pages.ts';
export * from './draft.ts';
export * from './state-slots.ts';
export * from './alloc-fail.ts';
export * from './abort-commit.ts';
export * from './features.ts';
export * from './coverage.ts';
export * from './loadback.ts';
