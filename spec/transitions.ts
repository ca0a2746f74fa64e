/**
 * The transitions of the model. Each action is a pure function from a state to the next
 * state, or `undefined` when the action is not enabled: guards first, then effects on a
 * copy; whatever an action does not mention stays as it was. Enabledness is defined here
 * and nowhere else: the checker, the tests and the implementation's harness all ask
 * {@link isEnabled} or {@link step}. Every transition copies its input once, with
 * `slice()`, before it writes: the search's fast path relies on that to reuse one buffer
 * for the copies (`expanders.ts`). A request changes phase only through `enter`
 * (`liveness.ts`), which also resets what dies with the phase.
 */
import type { Action, ActionKind } from './actions.ts';
import { enter } from './liveness.ts';
import { bodyLabel, mayRead, NO_PAGE, prefixLabel, type Model } from './model.ts';
import {
  cachedPage,
  flagsOf,
  HIT,
  holderOf,
  INSERTED,
  observedOf,
  phaseOf,
  Ph,
  READ_UNHELD,
  setObserved,
  setTablePage,
  sharesFirstPage,
  tablePage,
  tagOf,
  dataOf,
  type State,
} from './state.ts';

/**
 * D reserves pages for the whole prompt (`alloc_extend`) and sends their ids to P. The
 * free list is kept sorted, so the request gets the lowest free page ids: the pages that
 * the previous request just freed, with that request's KV data still in them.
 * @guard The request is new, and enough pages are free: its length, less one when its
 * prefix is cached.
 * @effect The request holds the lowest free pages, in ascending order, as its page table.
 * On a prefix-cache hit the cached prefix page comes first and is shared, not taken.
 * Page contents are not touched.
 * @variant owner-check The owner tags of the pages taken are cleared: a tag that is cheap
 * to clear is what makes "written during the current hold" checkable.
 */
export function allocate(m: Model, s: State, r: number): State | undefined {
  if (phaseOf(m, s, r) !== Ph.new) return undefined;
  const len = m.len[r] ?? 0;
  const g = m.group[r] ?? -1;
  const hitPage = g >= 0 ? cachedPage(m, s, g) : -1;
  const need = hitPage >= 0 ? len - 1 : len;
  let free = 0;
  for (let p = 0; p < m.pages; p++) if (holderOf(m, s, p) === 0) free++;
  if (free < need) return undefined;

  const t = s.slice();
  let i = 0;
  if (hitPage >= 0) {
    setTablePage(m, t, r, 0, hitPage);
    t[m.flagsAt + r] = flagsOf(m, s, r) | HIT;
    i = 1;
  }
  for (let p = 0; p < m.pages && i < len; p++) {
    if (holderOf(m, s, p) !== 0) continue;
    t[m.holderAt + p] = bodyLabel(r);
    if (m.ownerCheck) t[m.tagAt + p] = 0;
    setTablePage(m, t, r, i++, p);
  }
  enter(m, t, r, Ph.allocated);
  return t;
}

/**
 * P computes the prompt's KV and writes it into D's pages by RDMA, page by page.
 * @guard The request fits P's memory (length at most the prefill limit), and D allocated
 * it; or, with fault `early-free`, D has already timed it out and P does not know.
 * @effect Every page of the table except a shared prefix page now holds the request's
 * data; its first page holds its prefix's data when it has a prefix. The request is
 * written; a timed-out request's write has landed in pages it no longer holds.
 * @variant owner-check Every page written is stamped with the label of what was written.
 */
export function prefill(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.allocated && phase !== Ph.timedOut) return undefined;
  if ((m.len[r] ?? 0) > m.config.prefillLimit) return undefined;

  const t = s.slice();
  const len = m.len[r] ?? 0;
  const g = m.group[r] ?? -1;
  for (let i = sharesFirstPage(m, s, r) ? 1 : 0; i < len; i++) {
    write(m, t, tablePage(m, s, r, i), i === 0 && g >= 0 ? prefixLabel(m, g) : bodyLabel(r));
  }
  enter(m, t, r, phase === Ph.timedOut ? Ph.landed : Ph.written);
  return t;
}

/**
 * P meets a prompt longer than its memory (`validate_input_length`, then
 * `set_finish_with_abort`, which shortens the prompt to one token "to skip the long
 * prefill").
 * @guard The request is longer than the prefill limit, and D allocated it; or, with fault
 * `early-free`, D has already timed it out.
 * @effect With the silent stub (fault `silent-stub`): P writes a one-page dummy, the
 * request's data in its first own page only, and reports success as if every page were
 * written. Without it: P refuses the request and tells D; nothing is written and the
 * request is refused (a timed-out one simply ends).
 * @variant length-fix Always refuses, whatever the faults: the fix of SGLang 0.5.22.
 * @variant owner-check The dummy page is stamped with the request's label.
 */
export function stub(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.allocated && phase !== Ph.timedOut) return undefined;
  if ((m.len[r] ?? 0) <= m.config.prefillLimit) return undefined;

  const t = s.slice();
  if (!m.silentStub) {
    enter(m, t, r, phase === Ph.timedOut ? Ph.freed : Ph.refused);
    return t;
  }
  write(m, t, tablePage(m, s, r, sharesFirstPage(m, s, r) ? 1 : 0), bodyLabel(r));
  enter(m, t, r, phase === Ph.timedOut ? Ph.landed : Ph.written);
  return t;
}

/**
 * P reports Success with the last chunk's metadata; D checks that the metadata landed and
 * commits the request. Nothing compares P's page count with D's allocation.
 * @guard P wrote the request (by `prefill` or by a silent `stub`).
 * @effect The request is handed off to decode.
 */
export function handoff(m: Model, s: State, r: number): State | undefined {
  if (phaseOf(m, s, r) !== Ph.written) return undefined;
  const t = s.slice();
  enter(m, t, r, Ph.handedOff);
  return t;
}

/**
 * D decodes: attention reads `req_to_token[row, :seq_len]` with `seq_len` from D's own
 * length, that is every page of the table, whoever wrote it.
 * @guard The request was handed off.
 * @effect The request has read every page of its table: the content label of each page
 * joins its read set (a page never written adds nothing). A read of a page the request
 * does not hold at that moment is recorded too. The request is decoded.
 * @variant owner-check Before reading, the tag of every page is compared with the
 * request's own label and its prefix's label. On any other tag the request fails loudly
 * and nothing is read.
 */
export function decode(m: Model, s: State, r: number): State | undefined {
  if (phaseOf(m, s, r) !== Ph.handedOff) return undefined;
  const t = s.slice();
  const len = m.len[r] ?? 0;
  if (m.ownerCheck) {
    for (let i = 0; i < len; i++) {
      if (!mayRead(m, r, tagOf(m, s, tablePage(m, s, r, i)))) {
        enter(m, t, r, Ph.failed);
        return t;
      }
    }
  }
  let observed = observedOf(m, s, r);
  let flags = flagsOf(m, s, r);
  for (let i = 0; i < len; i++) {
    const p = tablePage(m, s, r, i);
    const label = dataOf(m, s, p);
    if (label !== 0) observed = (observed | (1 << (label - 1))) >>> 0;
    const holder = holderOf(m, s, p);
    if (holder !== bodyLabel(r) && !(i === 0 && sharesFirstPage(m, s, r) && mayRead(m, r, holder))) {
      flags |= READ_UNHELD;
    }
  }
  setObserved(m, t, r, observed);
  t[m.flagsAt + r] = flags;
  enter(m, t, r, Ph.decoded);
  return t;
}

/**
 * D finishes the request and releases its pages (`PagedTokenToKVPoolAllocator.free`):
 * the page ids go back to the free list by id. Nothing is zeroed.
 * @guard The request decoded, was refused, or failed. With fault `stale-free`, also a
 * request already freed (or whose late write landed): the abort path and the normal path
 * both release it.
 * @effect Every page of the table except a shared prefix page is free, whoever holds it
 * now; contents and tags stay. The request is freed (released, for the second release).
 */
export function free(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  const normal = phase === Ph.decoded || phase === Ph.refused || phase === Ph.failed;
  const stale = m.fault['stale-free'] && (phase === Ph.freed || phase === Ph.landed);
  if (!normal && !stale) return undefined;
  const t = s.slice();
  release(m, s, t, r);
  enter(m, t, r, normal ? Ph.freed : Ph.released);
  return t;
}

/**
 * With fault `early-free`: D gives up waiting for the transfer and frees the request's
 * pages at once, while P's write is still in flight (SGLang #24527).
 * @guard Fault `early-free` is on, and the request is allocated but not yet written.
 * @effect Every page of the table except a shared prefix page is free; the request is
 * timed out. Its `prefill` or `stub` stays enabled: the write lands later, by page id.
 */
export function timeout(m: Model, s: State, r: number): State | undefined {
  if (!m.fault['early-free'] || phaseOf(m, s, r) !== Ph.allocated) return undefined;
  const t = s.slice();
  release(m, s, t, r);
  enter(m, t, r, Ph.timedOut);
  return t;
}

/**
 * D inserts the request's first page into the prefix cache (`cache_finished_req`), so
 * that a later request with the same prefix reuses it instead of computing it again.
 * @guard The request has a prefix, the cache has no page for that prefix yet, the
 * request still holds its own first page, and it decoded. With fault `prefix-poison`,
 * also a request that was refused or failed: its first page was never written for the
 * prefix.
 * @effect The first page is held by the prefix cache entry, no longer by the request;
 * its content is untouched.
 */
export function insert(m: Model, s: State, r: number): State | undefined {
  // The guards are conjuncts: the phase, cheapest and most often false, is tested first.
  const phase = phaseOf(m, s, r);
  const poison = m.fault['prefix-poison'] && (phase === Ph.refused || phase === Ph.failed);
  if (phase !== Ph.decoded && !poison) return undefined;
  const g = m.group[r] ?? -1;
  if (g < 0 || cachedPage(m, s, g) >= 0) return undefined;
  const first = tablePage(m, s, r, 0);
  if (sharesFirstPage(m, s, r) || first === NO_PAGE || holderOf(m, s, first) !== bodyLabel(r)) return undefined;
  const t = s.slice();
  t[m.holderAt + first] = prefixLabel(m, g);
  t[m.flagsAt + r] = flagsOf(m, s, r) | INSERTED;
  return t;
}

/** A transition of one kind: the next state, or `undefined` when not enabled. */
export type Transition = (m: Model, s: State, r: number) => State | undefined;

/** Every action kind's transition: the one place a new kind is registered (its name goes in `ACTION_KINDS`). */
export const TRANSITIONS: Readonly<Record<ActionKind, Transition>> = { allocate, prefill, stub, handoff, decode, free, timeout, insert };

/** Takes action `a` in state `s`: the next state, or `undefined` when `a` is not enabled. */
export function step(m: Model, s: State, a: Action): State | undefined {
  return TRANSITIONS[a.kind](m, s, a.r);
}

/** Whether action `a` is enabled in state `s`. */
export function isEnabled(m: Model, s: State, a: Action): boolean {
  return step(m, s, a) !== undefined;
}

/** A page receives a write: its data, and under `owner-check` its tag, become `label`. */
function write(m: Model, t: State, p: number, label: number): void {
  if (p === NO_PAGE) return;
  t[m.dataAt + p] = label;
  if (m.ownerCheck) t[m.tagAt + p] = label;
}

/** Puts the pages of `r`'s table back on the free list by id, except a shared prefix page. */
function release(m: Model, s: State, t: State, r: number): void {
  const len = m.len[r] ?? 0;
  for (let i = sharesFirstPage(m, s, r) ? 1 : 0; i < len; i++) {
    const p = tablePage(m, s, r, i);
    if (p !== NO_PAGE) t[m.holderAt + p] = 0;
  }
}
