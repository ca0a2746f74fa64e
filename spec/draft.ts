/**
 * A draft model's KV (speculative decoding, config `draft`). SGLang's code path
 * (`sgl-project/sglang`, `python/sglang/srt/`):
 * - `disaggregation/decode.py` and `disaggregation/prefill.py`, `_init_kv_manager`: with a
 *   draft model, the draft KV pool's buffers (`get_contiguous_buf_infos` of the draft
 *   worker's pool) are appended to the target's `kv_data_ptrs`, so one transfer per request
 *   moves both, one RDMA write per layer and buffer: the target's layers and the draft's
 *   land apart. D's page index names both pools' pages (one `req_to_token` row).
 * - Speculative decode (`speculative/eagle_worker.py`) runs the draft model over the
 *   request's draft KV and verifies with the target over its target KV: every step reads
 *   both at every page of the table, and the draft's forward over the accepted tokens
 *   writes the draft KV of the new token beside the target's.
 * - On a prefix hit, the prefix's cached positions are not extended again: P's draft extend
 *   covers the extend tokens only, and the draft KV of the cached positions is whatever the
 *   draft pool holds there. SGLang PR #19897 ("zero-fill draft KV on radix cache prefix
 *   hits to prevent NaN", eagle-v2) found it uninitialised (a NaN crash on the first hit);
 *   PR #17338 found the draft KV outside HiCache, so a target hit met a draft evicted and
 *   reused. Either way the draft KV at a hit's positions is another user's or garbage,
 *   under the request's own owner tag: the tag and the target KV are the request's.
 *
 * In the model. Every page holds a draft label beside its content (`draft`), never
 * cleared. P's write posts a draft part of its own for the pages it writes
 * (`draftPending`); `landDraft` lands it by page id, whoever holds the page now, with the
 * write's label at each position (page `j` of the prefix at the prefix's positions).
 * D's commit waits for it (its Success covers every buffer of the transfer). A late
 * write's draft lands with it. Decode reads the draft label of every page it reads, into
 * the same read record and read set as the target's (`reads.ts`): `Isolation` and
 * `Integrity` cover the draft KV too. The owner check compares the target's tag only.
 * Not modelled with `retraction` (refused: the saved copy is the target's only).
 *
 * Fault `draft-stale`: P's cache hits the prompt's prefix (P's cache is shared with every
 * user, so the model takes the hit for every prefix), and the draft part skips the
 * prefix's positions: D's pages there keep their draft label, another request's from
 * before the page was freed and reused, or none. A hit in D's own cache shares pages whose
 * draft the inserting request's write left, skipped the same way.
 *
 * What stops it (`hardening.ts`). `draft-fills-hit`: P fills the draft KV of the hit's
 * positions before it sends them (the draft extend run over the cached prefix, or #19897's
 * fill at every hit), so the draft part covers every page the target's part does.
 */
import { isPrefixPosition, NO_PAGE, type Model } from './model.ts';
import { keptRecord, readRecord } from './reads.ts';
import { addObserved, draftOf, draftPendingOf, phaseOf, Ph, readRecordOf, setDraft, setDraftPending, setReadRecord, tablePage, type State } from './state.ts';
import { isStubWrite, writeCount, writeLabel, writePosition } from './writes.ts';

/** Whether `m` models the draft model's KV (config `draft`). */
export function hasDraft(m: Model): boolean {
  return m.config.draft === true;
}

/** Whether the draft part of `r`'s write skips table position `i`: under `draft-stale`, a prefix position (P's cache hit it), unless P fills the hit's draft (`draft-fills-hit`). */
export function draftSkips(m: Model, r: number, i: number): boolean {
  return m.fault['draft-stale'] && !m.mechanism['draft-fills-hit'] && isPrefixPosition(m, r, i) && !isStubWrite(m, r);
}

/** The draft part of `r`'s write lands in `t`: at each position the write covers (less those it skips), the page's draft becomes the write's label. */
function landDraftPages(m: Model, s: State, t: State, r: number): void {
  const count = writeCount(m, s, r);
  for (let k = 0; k < count; k++) {
    const i = writePosition(m, s, r, k);
    const p = tablePage(m, s, r, i);
    if (p !== NO_PAGE && !draftSkips(m, r, i)) setDraft(m, t, p, writeLabel(m, r, i));
  }
}

/** P posts `r`'s write into `t` (from `transfer.ts`'s `postWrite`): with `draft`, its draft part is posted to land on its own, or, for a late write, lands with it. */
export function postDraft(m: Model, s: State, t: State, r: number, late: boolean): void {
  if (!hasDraft(m)) return;
  if (late) landDraftPages(m, s, t, r);
  else setDraftPending(m, t, r, true);
}

/**
 * Config `draft`: the draft part of the request's write lands (the draft pool's buffers,
 * appended to the target's in `_init_kv_manager`, written by RDMA apart from the target's),
 * by page id, whoever holds the page now.
 * @guard The request's draft part was posted and has not landed, and the request is still
 * waiting for its transfer (`writing`, `written`, or a timed-out `landing`).
 * @effect Every page the write covers gets the write's draft label for its position. With
 * fault `draft-stale`, not at the prefix's positions: P's cache hit them, and their draft
 * KV was never filled.
 * @variant hardened With `draft-fills-hit`, the prefix's positions too.
 */
export function landDraft(m: Model, s: State, r: number): State | undefined {
  if (!draftPendingOf(m, s, r)) return undefined;
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.writing && phase !== Ph.written && phase !== Ph.landing) return undefined;
  const t = s.slice();
  landDraftPages(m, s, t, r);
  setDraftPending(m, t, r, false);
  return t;
}

/** Whether D's commit of `r` may come: without `draft` always, else once its draft part has landed. */
export function draftLanded(m: Model, s: State, r: number): boolean {
  return !draftPendingOf(m, s, r);
}

/** Decode's read of page `p` at `r`'s table position `i` (from `decode-steps.ts`): with `draft`, the draft label joins the read set and the position's read record, the worse read kept. */
export function readDraft(m: Model, s: State, t: State, r: number, i: number, p: number): void {
  if (!hasDraft(m)) return;
  const label = draftOf(m, s, p);
  if (label !== 0) addObserved(m, t, r, label);
  setReadRecord(m, t, r, i, keptRecord(m, r, i, readRecordOf(m, t, r, i), readRecord(label, i, i)));
}
