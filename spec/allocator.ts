/**
 * The free list of D's page pool, in the four allocation orders of docs/ALLOCATOR.md:
 * `sorted` (the lowest free ids), `sglang` (SGLang's P/D allocator: a sorted free list
 * and a release list, merged and sorted when an allocation finds the free list short,
 * `behaviour.ts`'s `sglangShort`),
 * `lifo` (SGLang outside P/D mode: a release goes to the front) and `any` (every choice).
 *
 * Under `sorted` and `any` without fault `double-free` a page is free exactly when nobody
 * holds it, as in the first model, and the state stores nothing more. Otherwise the free
 * list is stored: per page its copies in the free list (and, under `sglang`, in the
 * release list), or under `lifo` the list itself in order. With `double-free` these are
 * multisets: a page released while still free is there twice.
 *
 * `take` and `put` are the two effects every allocation and every release goes through;
 * they write into a state the caller has just copied.
 */
import { extendTokens, sglangShort } from './behaviour.ts';
import { NO_PAGE, type Model } from './model.ts';

/** The end of `lifo`'s ordered free list: the list holds one byte per entry, so ids stay below it. */
const LIST_END = 0xff;

/** The most pages `lifo` can order (ids 1 .. pages, below {@link LIST_END}). */
export const LIFO_MAX_PAGES = 253;
import { holderOf, stepsOf, type State } from './state.ts';

/** Copies of page `p` in the free list and the release list together. */
export function freeCopies(m: Model, s: State, p: number): number {
  if (p < m.firstPage) return 0;
  if (m.listAt >= 0) {
    let c = 0;
    for (let i = 0; i < m.listCap; i++) if (s[m.listAt + i] === p) c++;
    return c;
  }
  if (m.freeAt < 0) return holderOf(m, s, p) === 0 ? 1 : 0;
  return s[m.freeAt + p]! + (m.releaseAt >= 0 ? s[m.releaseAt + p]! : 0);
}

/** Entries in the free list and the release list together: how many pages an allocation can take. */
export function freeEntries(m: Model, s: State): number {
  let c = 0;
  if (m.freeAt < 0 && m.listAt < 0) {
    // The free list is not stored: the free pages are those nobody holds (freeCopies' first case).
    for (let p = m.firstPage; p < m.pages; p++) if (holderOf(m, s, p) === 0) c++;
    return c;
  }
  for (let p = m.firstPage; p < m.pages; p++) c += freeCopies(m, s, p);
  return c;
}

/** The free list in order (front first), duplicates included. */
export function freeList(m: Model, s: State): number[] {
  if (m.listAt >= 0) return listOf(m, s);
  const out: number[] = [];
  for (let p = m.firstPage; p < m.pages; p++) {
    const c = m.freeAt < 0 ? freeCopies(m, s, p) : s[m.freeAt + p]!;
    for (let k = 0; k < c; k++) out.push(p);
  }
  return out;
}

/** `sglang`'s release list, ascending (its order never matters: only a sort consumes it); empty in the other orders. */
export function releaseList(m: Model, s: State): number[] {
  const out: number[] = [];
  if (m.releaseAt < 0) return out;
  for (let p = m.firstPage; p < m.pages; p++) for (let k = 0; k < s[m.releaseAt + p]!; k++) out.push(p);
  return out;
}

/**
 * The initial free list: every page id from `firstPage` on, once (SGLang's `clear()`:
 * `arange(1, num_pages + 1)`; the padding page 0 is never on it).
 */
export function initFree(m: Model, t: State): void {
  if (m.freeAt >= 0) for (let p = m.firstPage; p < m.pages; p++) t[m.freeAt + p] = 1;
  if (m.listAt >= 0) {
    t.fill(LIST_END, m.listAt, m.listAt + m.listCap);
    for (let p = m.firstPage; p < m.pages; p++) t[m.listAt + p - m.firstPage] = p;
  }
}

/**
 * Takes `need` pages off the free list of `s`, in its order, and returns them in the
 * order taken; the caller has checked that {@link freeEntries} is at least `need`. Not
 * used under `any`, whose actions name their pages ({@link canTake}, {@link takeOne}).
 */
export function take(m: Model, s: State, t: State, need: number): number[] {
  const out = new Int32Array(need);
  takeInto(m, s, t, need, out);
  return Array.from(out);
}

/** {@link take}, writing the pages into `out[0 .. need)`, which the caller may reuse: the search's hot path then allocates nothing. `path` is the SGLang call (`behaviour.ts`'s `sglangShort`): `alloc_extend` for a prompt, `alloc_decode` for a decode step's page; `tokens` is what an `alloc_extend` allocates, in tokens (whole pages when left out). */
export function takeInto(m: Model, s: State, t: State, need: number, out: Int32Array, path: 'extend' | 'decode' = 'extend', tokens = need * m.pageSize): void {
  if (m.listAt >= 0) {
    const list = listOf(m, s);
    writeList(m, t, list.slice(need));
    for (let i = 0; i < need; i++) out[i] = list[i]!;
    return;
  }
  if (m.releaseAt >= 0 && releasedEntries(m, s) > 0 && sglangShort(m.pageSize, need, listedEntries(m, s), path, tokens)) mergeAndSort(m, s, t);
  // A sorted multiset (sorted, sglang, any): the front is the lowest ids, a duplicate twice in a row.
  let n = 0;
  for (let p = m.firstPage; p < m.pages && n < need; p++) {
    let c = m.freeAt < 0 ? (holderOf(m, s, p) === 0 ? 1 : 0) : t[m.freeAt + p]!;
    while (c > 0 && n < need) {
      out[n++] = p;
      c--;
    }
    if (m.freeAt >= 0) t[m.freeAt + p] = c;
  }
}

/** `sglang`'s free list proper: its entries, the release list apart. */
function listedEntries(m: Model, s: State): number {
  let listed = 0;
  for (let p = m.firstPage; p < m.pages; p++) listed += s[m.freeAt + p]!;
  return listed;
}

/** `sglang`'s release list: its entries (0 in the other orders, which have none). */
export function releasedEntries(m: Model, s: State): number {
  if (m.releaseAt < 0) return 0;
  let released = 0;
  for (let p = m.firstPage; p < m.pages; p++) released += s[m.releaseAt + p]!;
  return released;
}

/** `merge_and_sort_free`: both lists of `s` become one sorted list in `t`; counts per id are already sorted. */
export function mergeAndSort(m: Model, s: State, t: State): void {
  for (let p = m.firstPage; p < m.pages; p++) {
    t[m.freeAt + p] = s[m.freeAt + p]! + s[m.releaseAt + p]!;
    t[m.releaseAt + p] = 0;
  }
}

/** The tokens `allocate(r)` asks `alloc_extend` for when it takes `need` pages: `r`'s prompt, less a cached prefix's whole pages. */
export function promptTokensTaken(m: Model, r: number, need: number): number {
  return extendTokens(m.tokens[r] ?? 0, m.promptPages[r] ?? 0, need, m.pageSize);
}

/**
 * The tokens `resume(r)` asks `alloc_extend` for when it takes `room` pages: SGLang's
 * `_pre_alloc` allocates `fill_len`, the prompt and the tokens decoded so far whose KV was
 * written (`len(origin_input_ids) + max(len(output_ids) - 1, 0)`), with no prefix. The
 * model's step `k` has written `k - 1` tokens. Kept within the `room` pages the table
 * holds (a page grown for a token not yet written counts whole).
 */
export function resumeTokens(m: Model, s: State, r: number, room: number): number {
  const written = (m.tokens[r] ?? 0) + Math.max(0, stepsOf(m, s, r) - 1);
  return Math.min(room * m.pageSize, Math.max(written, (room - 1) * m.pageSize + 1));
}

/** Whether an allocation of `need` pages can be served: under `any`, the pages named are free ({@link canTake}); otherwise the free lists hold `need` entries. */
export function canAllocate(m: Model, s: State, need: number, pages: readonly number[] | undefined): boolean {
  if (m.allocator === 'any') return pages !== undefined && canTake(m, s, pages, need);
  return freeEntries(m, s) >= need;
}

/** Under `any`: whether the pages named (in table order) are `need` entries of the free list, a duplicate only as often as it is there. */
export function canTake(m: Model, s: State, pages: readonly number[], need: number): boolean {
  if (pages.length !== need) return false;
  for (let i = 0; i < pages.length; i++) {
    const p = pages[i]!;
    if (!Number.isInteger(p) || p < m.firstPage || p >= m.pages) return false;
    let times = 0;
    for (let j = 0; j < pages.length; j++) if (pages[j] === p) times++;
    if (times > freeCopies(m, s, p)) return false;
  }
  return true;
}

/** Under `any`: takes one entry of page `p` off the free list (a page free by having no holder needs nothing here). */
export function takeOne(m: Model, t: State, p: number): void {
  if (m.freeAt >= 0) t[m.freeAt + p] = t[m.freeAt + p]! - 1;
}

/**
 * Puts one release's pages back (one call of SGLang's `free`): deduplicated within the
 * call and ascending, as `torch.unique` returns them; without `double-free` a page already
 * free is left out, since the free list is then a set. The pages are `pages[0 .. count)`.
 */
export function put(m: Model, s: State, t: State, pages: ArrayLike<number>, count = pages.length): void {
  // A free list that is not stored (a page is free when nobody holds it) has nothing to update.
  if (m.freeAt < 0 && m.listAt < 0) return;
  if (m.listAt >= 0) {
    const batch = [...new Set(Array.from(pages).slice(0, count))].filter((p) => p >= m.firstPage && p !== NO_PAGE).sort((a, b) => a - b);
    const fresh = m.multiset ? batch : batch.filter((p) => freeCopies(m, s, p) === 0);
    writeList(m, t, [...fresh, ...listOf(m, s)]);
    return;
  }
  // Per-page counts: the order of the batch does not matter, only each distinct page once.
  const at = m.releaseAt >= 0 ? m.releaseAt : m.freeAt;
  for (let k = 0; k < count; k++) {
    const p = pages[k]!;
    if (p < m.firstPage || p === NO_PAGE || appearsBefore(pages, k)) continue;
    if (m.multiset || freeCopies(m, s, p) === 0) t[at + p] = t[at + p]! + 1;
  }
}

/** Whether `pages[k]` is also among `pages[0 .. k)`. */
function appearsBefore(pages: ArrayLike<number>, k: number): boolean {
  for (let j = 0; j < k; j++) if (pages[j] === pages[k]) return true;
  return false;
}

function listOf(m: Model, s: State): number[] {
  const out: number[] = [];
  for (let i = 0; i < m.listCap; i++) {
    const p = s[m.listAt + i]!;
    if (p === LIST_END) break;
    out.push(p);
  }
  return out;
}

function writeList(m: Model, t: State, list: readonly number[]): void {
  if (list.length > m.listCap) throw new Error(`spec: lifo free list overflows its ${m.listCap} entries`);
  t.fill(LIST_END, m.listAt, m.listAt + m.listCap);
  list.forEach((p, i) => (t[m.listAt + i] = p));
}
