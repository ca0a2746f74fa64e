/**
 * P's source pages (config `sourcePages`): P computes a request's KV into pages of its own
 * pool, and the transfer copies them into D's pages by one-sided RDMA, so what lands in D
 * is what P's source page holds when the copy reads it, not when the write was posted.
 * Read from `sgl-project/sglang`, `python/sglang/srt/disaggregation/`:
 * - `prefill.py`, `send_kv_chunk`: the source is `req_to_token[req.req_pool_idx,
 *   start_idx:end_idx]`, P's own pages for the request, handed to
 *   `req.disagg_kv_sender.send(page_indices, state_indices)`, which queues a chunk for a
 *   transfer thread and returns.
 * - `mooncake/conn.py`, `MooncakeKVManager.transfer_worker`: the thread takes the chunk
 *   and checks the room's status once, when it takes it (`check_status(room) ==
 *   KVPoll.Failed`: skip); then `send_kvcache` submits one read-and-write per layer to an
 *   executor, and `_await_transfer_futures` waits for them. With the deferred release off
 *   (the default) it returns at the first failed layer and leaves the others running.
 * - `prefill.py`, `process_disagg_prefill_inflight_queue`: on `KVPoll.Failed` (an abort
 *   marks the room failed: `Scheduler.abort_request` calls
 *   `req.disagg_kv_sender.abort()`; so does a failed chunk's `conclude_failure`) it calls
 *   `release_kv_cache(req, self.tree_cache)` at once: the source pages go back to P's
 *   allocator, and P's next prefill batch may be handed them, while a chunk already taken
 *   still reads them. The chunk goes on to `send_aux`; D sees the room's data arrive
 *   (SGLang #33507: such a request even reports `FINISH_LENGTH`, a success).
 * - SGLang PR #38961 names the gap: the deferred release (#35049) "has no counterpart for
 *   the prefill's source pages".
 *
 * In the model. One source page per write, which holds the request's own KV until P frees
 * it early. `abortSource(r)` is P's abort of `r` while content parts of its write are still
 * to land (fault `source-early-free`, under `torn-write`, the only configuration where a
 * write is in flight): P frees `r`'s source pages, and the next prefill on P, of a user the
 * configuration does not name, is computed into them. Every content part of `r`'s write
 * that lands after the abort copies that user's KV, the stale P-side label, into D's page
 * (`sourceLabel`); its tag part still stamps `r`'s label, so D's owner check passes. The
 * reuse is folded into the abort: a freed page that is not reused before the last part
 * lands changes nothing a property reads, and P's pool is shared with every other user.
 *
 * What stops it (`hardening.ts`). `hold-source`: P keeps a request's source pages until
 * its transfer has ended, aborted or not (the drain of `_await_transfer_futures` under
 * the deferred release, extended to P's own release as #38961 proposes): the abort is still
 * taken, and every part still reads the request's own KV. A check computed from the source
 * when a part lands is not enough under `torn-write`: the tag part may land before the
 * abort and the content part after it (test/spec/source-pages.test.ts shows the trace).
 */
import type { Model } from './model.ts';
import { dataPartsOf, phaseOf, Ph, setSourceFreed, sourceFreedOf, type State } from './state.ts';
import { writeCount, writeLabel } from './writes.ts';

/**
 * P aborts a request whose transfer is still reading its source pages
 * (`Scheduler.abort_request` → `req.disagg_kv_sender.abort()`, then
 * `process_disagg_prefill_inflight_queue` → `release_kv_cache` on `KVPoll.Failed`).
 * @guard Fault `source-early-free` with `sourcePages`; the request's write was posted
 * (`writing`, or a timed-out request's `landing`), some content part has not landed, and P
 * has not aborted it already.
 * @effect P frees the request's source pages (`sourceFreed`, until the write's last content
 * part lands), and its next prefill, another user's, is
 * computed into them: every content part of the write that lands from now on copies that
 * user's KV. D is not told; the request stays where it was.
 * @variant hardened With `hold-source`, P keeps the source pages until the transfer ends:
 * the abort is taken, and the parts still copy the request's own KV.
 */
export function abortSource(m: Model, s: State, r: number): State | undefined {
  if (!m.sourcePages || !m.fault['source-early-free']) return undefined;
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.writing && phase !== Ph.landing) return undefined;
  if (dataPartsOf(m, s, r) >= writeCount(m, s, r)) return undefined;
  if (sourceFreedOf(m, s, r)) return undefined;
  const t = s.slice();
  setSourceFreed(m, t, r, true);
  return t;
}

/** After a content part of `r`'s write landed in `t`: once the last one has, the transfer no longer reads P's source pages, and whether P freed them early is forgotten (so that states differing only there are one). */
export function sourceRead(m: Model, t: State, r: number): void {
  if (m.sourcePages && dataPartsOf(m, t, r) >= writeCount(m, t, r)) setSourceFreed(m, t, r, false);
}

/** Whether the parts of `r`'s write that land now copy another user's KV: P freed its source pages early, and does not hold them until the transfer's end. */
export function sourceReused(m: Model, s: State, r: number): boolean {
  return sourceFreedOf(m, s, r) && !m.mechanism['hold-source'];
}

/** The content label a part of `r`'s write at table position `i` copies when it lands: the write's own, or another user's KV where P's source page was reused. */
export function sourceLabel(m: Model, s: State, r: number, i: number): number {
  return sourceReused(m, s, r) ? m.staleLabel : writeLabel(m, r, i);
}
