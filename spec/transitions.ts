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
import { canTake, freeCopies, freeEntries, put, take, takeOne } from './allocator.ts';
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
  EVICTED_FOR,
  lockOf,
  type State,
} from './state.ts';

/**
 * D reserves pages for the whole prompt (`alloc_extend`) and sends their ids to P. Which
 * free pages it gets is the allocation order's (docs/ALLOCATOR.md): under `sorted` the
 * lowest free ids, the pages that the previous request just freed, with that request's
 * KV data still in them; under `sglang` the front of a sorted free list that recently
 * freed pages join only when it runs short.
 * @guard The request is new, and the free list (with `sglang`'s release list) holds
 * enough entries: its length, less one when its prefix is cached.
 * @effect The request holds the pages the allocation order hands out, in the order taken,
 * as its page table; they leave the free list. On a prefix-cache hit the cached prefix
 * page comes first and is shared, not taken. Page contents are not touched.
 * Under allocator `any` the action names the pages it takes, and every choice of free
 * pages is its own action.
 * @variant owner-check The owner tags of the pages taken are cleared: a tag that is cheap
 * to clear is what makes "written during the current hold" checkable.
 */
export function allocate(m: Model, s: State, r: number, pages?: readonly number[]): State | undefined {
  if (phaseOf(m, s, r) !== Ph.new) return undefined;
  const len = m.len[r] ?? 0;
  const g = m.group[r] ?? -1;
  const hitPage = g >= 0 ? cachedPage(m, s, g) : -1;
  const need = hitPage >= 0 ? len - 1 : len;
  // Under `any` the action names its pages: enabled when they are free and as many as needed.
  if (m.allocator === 'any' ? pages === undefined || !canTake(m, s, pages, need) : freeEntries(m, s) < need) return undefined;

  const t = s.slice();
  let i = 0;
  if (hitPage >= 0) {
    setTablePage(m, t, r, 0, hitPage);
    t[m.flagsAt + r] = flagsOf(m, s, r) | HIT;
    // The hit locks the cached page while r is live; with lock-underflow it locks another node.
    if (m.eviction && !m.fault['lock-underflow']) t[m.lockAt + g] = lockOf(m, s, g) + 1;
    i = 1;
  }
  for (const p of pages ?? take(m, s, t, need)) {
    if (pages !== undefined) takeOne(m, t, p);
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
 * the page ids go back to the free list (under `sglang`, to the release list) in one
 * call, deduplicated within it. Nothing is zeroed.
 * @guard The request decoded, was refused, or failed. With fault `stale-free`, also a
 * request already freed (or whose late write landed): the abort path and the normal path
 * both release it. With fault `double-free`, the same second release while every page of
 * the old table is still free.
 * @effect Every page of the table except a shared prefix page is free, whoever holds it
 * now; contents and tags stay. A page already free is left as it is, unless the free
 * list is a list (`double-free`): then it is there twice. The request is freed
 * (released, for the second release).
 */
export function free(m: Model, s: State, r: number): State | undefined {
  const phase = phaseOf(m, s, r);
  const normal = phase === Ph.decoded || phase === Ph.refused || phase === Ph.failed;
  const again = phase === Ph.freed || phase === Ph.landed;
  const stale = again && (m.fault['stale-free'] || (m.fault['double-free'] && stillFree(m, s, r)));
  if (!normal && !stale) return undefined;
  const t = s.slice();
  release(m, s, t, r);
  if (normal) unlock(m, s, t, r);
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
  unlock(m, s, t, r);
  enter(m, t, r, Ph.timedOut);
  return t;
}

/**
 * The prefix cache evicts to make room (`RadixCache.evict`): D finds too few free pages
 * for the request's allocation and frees an unlocked cached prefix page.
 * @guard Eviction is on, the request is new and its allocation finds fewer free pages
 * than it needs, and the cache holds a page whose lock count is 0 for a prefix other than
 * the request's own (the request's own prefix is matched, and so locked, first).
 * @effect The lowest such page leaves the cache and goes back to the free list, contents
 * untouched; the request is marked as the one evicted for.
 */
export function evict(m: Model, s: State, r: number): State | undefined {
  if (!m.eviction || phaseOf(m, s, r) !== Ph.new) return undefined;
  const g = m.group[r] ?? -1;
  const need = (m.len[r] ?? 0) - (g >= 0 && cachedPage(m, s, g) >= 0 ? 1 : 0);
  if (freeEntries(m, s) >= need) return undefined;
  let victim = -1;
  for (let p = m.firstPage; p < m.pages && victim < 0; p++) {
    const h = holderOf(m, s, p);
    if (h > m.n && h - m.n - 1 !== g && lockOf(m, s, h - m.n - 1) === 0) victim = p;
  }
  if (victim < 0) return undefined;
  const t = s.slice();
  t[m.holderAt + victim] = 0;
  put(m, s, t, [victim]);
  t[m.flagsAt + r] = flagsOf(m, s, r) | EVICTED_FOR;
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
 * its content is untouched. Under eviction the request locks the page until its release.
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
  // Under eviction the inserting request holds a lock on the page until its own release.
  if (m.eviction) t[m.lockAt + g] = lockOf(m, s, g) + 1;
  return t;
}

/** A transition of one kind: the next state, or `undefined` when not enabled. */
export type Transition = (m: Model, s: State, r: number) => State | undefined;

/** Every action kind's transition: the one place a new kind is registered (its name goes in `ACTION_KINDS`). */
export const TRANSITIONS: Readonly<Record<ActionKind, Transition>> = { allocate, prefill, stub, handoff, decode, free, timeout, insert, evict };

/** Takes action `a` in state `s`: the next state, or `undefined` when `a` is not enabled. */
export function step(m: Model, s: State, a: Action): State | undefined {
  // Under allocator `any` an allocation names its pages; every other action is a kind and a request.
  return a.kind === 'allocate' ? allocate(m, s, a.r, a.pages) : TRANSITIONS[a.kind](m, s, a.r);
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

/** Puts the pages of `r`'s table back on the free list in one release, except a shared prefix page; their holder is nobody. */
function release(m: Model, s: State, t: State, r: number): void {
  const len = m.len[r] ?? 0;
  const pages: number[] = [];
  for (let i = sharesFirstPage(m, s, r) ? 1 : 0; i < len; i++) {
    const p = tablePage(m, s, r, i);
    if (p === NO_PAGE) continue;
    t[m.holderAt + p] = 0;
    pages.push(p);
  }
  put(m, s, t, pages);
}

/** A finished request that hit the cache (or inserted into it) unlocks its prefix page; the count never goes below 0 (with lock-underflow it was never raised). */
function unlock(m: Model, s: State, t: State, r: number): void {
  const g = m.group[r] ?? -1;
  if (!m.eviction || g < 0 || (flagsOf(m, s, r) & (HIT | INSERTED)) === 0) return;
  const lock = lockOf(m, s, g);
  if (lock > 0) t[m.lockAt + g] = lock - 1;
}

/** Whether every page of `r`'s old table (except a shared prefix page) is still free: nobody took it since. */
function stillFree(m: Model, s: State, r: number): boolean {
  const len = m.len[r] ?? 0;
  for (let i = sharesFirstPage(m, s, r) ? 1 : 0; i < len; i++) {
    const p = tablePage(m, s, r, i);
    if (p !== NO_PAGE && (holderOf(m, s, p) !== 0 || freeCopies(m, s, p) === 0)) return false;
  }
  return true;
}
