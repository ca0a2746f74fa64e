/**
 * A commit-time abort (`abortCommit`): P reported Success, and D, committing the transfer,
 * finds the metadata wrong and aborts the request, releasing its pages without decoding
 * it. Read from `sgl-project/sglang`, `python/sglang/srt/disaggregation/decode.py` (at
 * commit 0035ca42c2d615f77778ce3bf825d6ce6e089661): `DecodeTransferQueue.pop_transferred`,
 * on `KVPoll.Success`, calls `_commit_transfer_to_req`, which reads the request's metadata
 * buffer and, when the `bootstrap_room` there is not the request's (an index collision:
 * "Context corruption detected") or is still 0, calls `prepare_abort`; back in
 * `pop_transferred` the request, now `FINISH_ABORT`, is released with
 * `release_kv_cache(req, tree_cache, is_insert=False)` (`mem_cache/common.py`), the calls
 * of spec/release.ts. The pages P wrote go back to the free list with that content.
 *
 * The spec's other releases before a handoff do not fit: `timeout` acts before the write
 * has landed (fault `early-free`), and `free` after a decode, a refusal or a failure. This
 * one acts on a written request, whose write has landed whole, so no late write follows it.
 *
 * Why `check` does not explore it. It releases a written request's pages, which `free`
 * does too one decode later; the search would gain states that differ only in a request
 * freed without a read. The action is the spec's word for an abort a log shows
 * (`validate-log`'s `abortCommit` event); `kindPresent` leaves it out of the search, and
 * every configuration's state count stays as it was.
 */
import { enter } from './liveness.ts';
import type { Model } from './model.ts';
import { releaseTable } from './release.ts';
import { phaseOf, Ph, type State } from './state.ts';
import { unlockPrefix } from './hold.ts';

/**
 * D aborts a written request at commit (`_commit_transfer_to_req` finds another
 * `bootstrap_room` in its metadata) and releases its pages (`release_kv_cache`,
 * `is_insert=False`).
 * @guard The request is written: P reported Success and every part landed.
 * @effect Every page of the table except the shared prefix pages is free, in the calls of
 * spec/release.ts; contents and tags stay. A request that hit the cache unlocks its entry.
 * The request is freed.
 */
export function abortCommit(m: Model, s: State, r: number): State | undefined {
  if (phaseOf(m, s, r) !== Ph.written) return undefined;
  const t = s.slice();
  releaseTable(m, s, t, r);
  unlockPrefix(m, s, t, r);
  enter(m, t, r, 'freed');
  return t;
}
