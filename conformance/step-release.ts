/**
 * A release in a log. SGLang releases a request's pages in two or three allocator calls
 * (`release_kv_cache`: `cache_finished_req`'s `free` of the duplicates and of the tail, then
 * `free_segment`; spec/release.ts), and a log that records every call has several `free`
 * lines for one release. The spec releases the table in one action; so the first line of
 * a release (a `free`, or the `timeout`, `retract` or `abortCommit` that releases) is that
 * action, and names some of the table's pages, and each later `free` line whose pages are
 * among those not yet named is one more call of the same release, which changes nothing.
 * A `free` line that names a page the release already freed, or a page outside the table,
 * is a release of its own: a second release (a double free, #38941) or a deviation.
 *
 * D releases in one thread, so the calls of one release are consecutive in D's log; they
 * are grouped by request all the same, and a page named twice across them is reported at
 * the line that names it again. What is not yet named is a fact of the log (the tables are
 * the log's), kept with the request in the window, the same in every possible state.
 */
import { isLive, Ph, type ActionKind } from '../spec/index.ts';
import type { LogPool } from './pool.ts';
import type { PageRuns } from './pages.ts';
import { holderName, OK, pageWords, refused, type EventContext, type StepResult } from './step-context.ts';
import type { OpenRelease, RequestInfo } from './window.ts';

// Read once: a namespace re-export is a getter call on every access.
const { freed: FREED, landed: LANDED } = Ph;

/** The table entries a release frees, `[from, to)`: all but the shared prefix pages (`shared`, when read before the release). */
export function releaseRange(pool: LogPool, slot: number, shared = pool.sharedCount(slot)): readonly [number, number] {
  return [shared, pool.lengths[slot] ?? 0];
}

/**
 * Names the pages of one logged call in an open release: each must be an entry not yet
 * named (a page at two entries, after a double free, once per entry). A call's pages are
 * runs of the table in order, so each page is first looked for right after the one before;
 * only the first page of a run is searched for. Nothing is named when one is missing.
 */
function nameCall(open: OpenRelease, pages: PageRuns): boolean {
  const { row, named } = open;
  let hint = 0;
  let ok = true;
  pages.filter(0, Number.MAX_SAFE_INTEGER, (p) => {
    if (!ok) return false;
    let i = hint < row.length && row[hint] === p && named[hint] === 0 ? hint : -1;
    for (let k = 0; i < 0 && k < row.length; k++) if (row[k] === p && named[k] === 0) i = k;
    // Marked 2 until the whole call is known to fit.
    if (i < 0) ok = false;
    else {
      named[i] = 2;
      hint = i + 1;
    }
    return false;
  });
  for (let k = 0; k < row.length; k++) if (named[k] === 2) named[k] = ok ? 1 : 0;
  if (ok) open.left -= pages.count;
  return ok;
}

/**
 * Whether a `free` line with these pages is a further allocator call of the request's
 * open release: every page is among those not yet named (as often as it is there). If so
 * they are named now; the release closes when every page has been.
 */
export function takeReleaseCall(info: RequestInfo, pages: PageRuns | undefined): boolean {
  const open = info.release;
  if (open === undefined || pages === undefined || pages.count === 0 || pages.count > open.left || !nameCall(open, pages)) return false;
  if (open.left === 0) info.release = undefined;
  return true;
}

/**
 * After a releasing action: the pages its line names (the release's first call) must be
 * pages of the table's released entries (past the `shared` pages it kept, counted before it); those it does not name wait for their calls. A
 * line without pages stands for the whole release.
 */
export function openRelease(ctx: EventContext, pool: LogPool, kind: ActionKind, shared: number): StepResult {
  const [from, to] = releaseRange(pool, ctx.slot, shared);
  const pages = ctx.pages;
  ctx.info.release = undefined;
  if (pages === undefined) return OK;
  const table = pool.pageTable(ctx.slot);
  // The common case first: one line names the whole release, in table order.
  if (pages.equalsRow(table, from, to)) return OK;
  const open: OpenRelease = { row: table.slice(from, to), named: new Uint8Array(to - from), left: to - from };
  if (pages.count > open.left || !nameCall(open, pages)) {
    return refused(`${kind}(${ctx.info.id}) releases pages ${pageWords(Array.from(open.row))}; the log says ${pages.words()}, which are not among them (or name one twice)`);
  }
  if (open.left > 0) ctx.info.release = open;
  return OK;
}

/** The pages of the request's table still held by someone else: a release of them frees pages that live tables hold. */
export function heldByOthers(pool: LogPool, slot: number): number[] {
  // Under `hardened`'s release-checks-holder a release frees only the request's own pages: none of these.
  if (pool.behaviour.releaseChecksHolder) return [];
  const own = pool.serial(slot);
  const row = pool.pageTable(slot);
  const out: number[] = [];
  const [from, to] = releaseRange(pool, slot);
  for (let i = from; i < to; i++) {
    const p = row[i] ?? 0;
    const h = pool.holder[p] ?? 0;
    // Another request's page; or the prefix cache's, while a live request shares it.
    if ((h > 0 && h !== own) || (h < 0 && sharedByLive(pool, p))) out.push(p);
  }
  return out;
}

/** Whether a live request has page `p` among its shared prefix pages. */
function sharedByLive(pool: LogPool, p: number): boolean {
  for (let s = 0; s < pool.options.slots; s++) {
    if (isLive(pool.phase(s)) && pool.pageTable(s).subarray(0, pool.sharedCount(s)).includes(p)) return true;
  }
  return false;
}

/** The pages of the slot's own table entries that the free list (with `sglang`'s release list) now holds more than once (at most 16). */
function listedTwice(pool: LogPool, slot: number): number[] {
  const row = pool.pageTable(slot);
  const out: number[] = [];
  const [from, to] = releaseRange(pool, slot);
  for (let i = from; i < to && out.length < 16; i++) {
    const p = row[i] ?? 0;
    if (pool.freeCopies(p) + pool.releaseCopies(p) > 1 && !out.includes(p)) out.push(p);
  }
  return out;
}

/** For a refused second release: which fault would allow it, in words. */
export function secondRelease(ctx: EventContext, pool: LogPool, kind: ActionKind): string {
  const phase = pool.phase(ctx.slot);
  if (kind !== 'free' || (phase !== FREED && phase !== LANDED)) return '';
  if (ctx.model.faults.includes('double-free')) return ' and a second release needs every page of its old table still free (fault double-free), or fault stale-free';
  return '; a second release of its pages needs fault double-free (the pages are still free) or stale-free';
}

/**
 * What a release that the spec took breaks, checked in the order the spec lists its
 * invariants: pages another request held, now held and free at once (`ExclusiveHold`, a
 * stale release; `stale` and their holders read before it), then a page on the free list
 * twice (`NoDuplicateFree`, under fault `double-free`).
 */
export function afterRelease(ctx: EventContext, pool: LogPool, kind: ActionKind, stale: readonly number[], holders: readonly number[]): StepResult {
  const name = ctx.info.id;
  if (stale.length > 0) {
    const headline = stale.slice(0, 4).map((p, i) => `${kind}(${name}) released page ${p}, which ${holderName(ctx, holders[i] ?? 0)} holds: it is held and free at once.`);
    return { kind: 'violation', invariant: 'ExclusiveHold', headline, involved: holders.filter((x) => x > 0) };
  }
  if (pool.behaviour.doubleFree) {
    const twice = listedTwice(pool, ctx.slot);
    if (twice.length > 0) {
      const headline = twice.slice(0, 4).map((p) => `${kind}(${name}) released page ${p}, which was already free: it is on the free list twice, and two allocations can each be handed it.`);
      return { kind: 'violation', invariant: 'NoDuplicateFree', headline, involved: [], pages: twice.slice(0, 4) };
    }
  }
  return OK;
}
