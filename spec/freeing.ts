/**
 * The end of a request's hold. D releases a finished request's table (`free`), or gives up
 * on a transfer and frees the table while P's write is in flight (`timeout`, fault
 * `early-free`). The allocator calls a release makes are `release.ts`'s.
 */
import { freeCopies } from './allocator.ts';
import { enter } from './liveness.ts';
import { NO_PAGE, type Model } from './model.ts';
import { holderOf, phaseOf, Ph, sharedPages, tablePage, type State } from './state.ts';
import { holdsKv, releaseTable } from './release.ts';
import { unlockPrefix } from './hold.ts';
import { isCommitted, partsInFlight } from './transfer.ts';
import { releaseSlot } from './aux.ts';
import { releaseState } from './state-slots.ts';

/**
 * D finishes the request and releases its pages (`release_kv_cache`): the page ids go
 * back to the free list (under `sglang`, to the release list) in SGLang's allocator calls,
 * in order: `cache_finished_req`'s `free` of the duplicates and of the tail, then
 * `free_segment` (`release.ts`); under `lifo` as one group (`free_group_begin/end`).
 * Nothing is zeroed.
 * @guard The request decoded, was refused, or failed. With fault `stale-free`, also a
 * request already freed (or whose late write landed): the abort path and the normal path
 * both release it. With fault `double-free`, the same second release while every page of
 * the old table is still free.
 * @effect Every page of the table except the shared prefix pages is free, whoever holds it
 * now; contents and tags stay. A page already free is left as it is, unless the free
 * list is a list (`double-free`): then it is there twice. With fault `segment-overlap`
 * the segment also frees the last page of the call before it, a second time. The request
 * is freed (released, for the second release). With fault `premature-success`, a request
 * committed before its write landed and released with parts still in flight is `landing`:
 * they land later, by page id, as a timed-out request's.
 * @variant hardened With `release-checks-holder`, only the pages the request still holds
 * are freed: a stale release frees nothing that another request holds.
 */
export function free(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  const normal = holdsKv(m, s, r) && (phase === Ph.decoded || phase === Ph.refused || phase === Ph.failed);
  // The `holds_kv` guard returns early on a request that no longer holds: only a fault bypasses it.
  const again = phase === Ph.freed || phase === Ph.landed;
  const stale = again && (m.fault['stale-free'] || (m.fault['double-free'] && stillFree(m, s, r)));
  if (!normal && !stale) return undefined;
  const t = s.slice();
  release(m, s, t, r);
  if (normal) unlockPrefix(m, s, t, r);
  // With `stateSlots` the request's state slot goes back with its pages (state-slots.ts).
  releaseState(m, s, t, r, true);
  enter(m, t, r, normal ? (m.fault['premature-success'] && isCommitted(phase) && partsInFlight(m, s, r) ? 'landing' : 'freed') : 'released');
  return t;
}

/**
 * With fault `early-free`: D gives up waiting for the transfer and frees the request's
 * pages at once, while P's write is still in flight (SGLang #24527).
 * @guard Fault `early-free` is on, and the request is allocated but not yet written
 * (under `torn-write`, also while its parts are landing).
 * @effect Every page of the table except the shared prefix pages is free; the request is
 * timed out. Its `prefill` or `stub` stays enabled, and parts in flight stay in flight:
 * the write lands later, by page id.
 * @variant hardened With `revoke-writer`, P's access to the pages is revoked first: the
 * parts in flight are dropped (the request's write has landed, nowhere), and a write
 * posted later lands nowhere.
 */
export function timeout(m: Model, s: State, r: number): State | undefined {
  if (!m.fault['early-free']) return undefined;
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.allocated && phase !== Ph.writing) return undefined;
  const t = s.slice();
  release(m, s, t, r);
  unlockPrefix(m, s, t, r);
  // The abort path of `pop_transferred` frees the metadata slot too (fault `aux-torn`; the late metadata is not modelled).
  releaseSlot(m, s, t, r);
  releaseState(m, s, t, r, true);
  if (phase === Ph.allocated) enter(m, t, r, 'timedOut');
  else enter(m, t, r, m.mechanism['revoke-writer'] ? 'landed' : 'landing');
  return t;
}

/** Releases `r`'s table as SGLang's `release_kv_cache` does: its allocator calls in order (`release.ts`). */
function release(m: Model, s: State, t: State, r: number): void {
  releaseTable(m, s, t, r);
}

/** Whether every page of `r`'s old table (except the shared prefix pages) is still free: nobody took it since. */
function stillFree(m: Model, s: State, r: number): boolean {
  const len = m.len[r] ?? 0;
  for (let i = sharedPages(m, s, r); i < len; i++) {
    const p = tablePage(m, s, r, i);
    if (p !== NO_PAGE && (holderOf(m, s, p) !== 0 || freeCopies(m, s, p) === 0)) return false;
  }
  return true;
}
