/**
 * The invariants: the `always` properties of `properties.ts`, each checked in every
 * reachable state. `Isolation` and `Integrity` say what a read may see (`reads.ts` gives
 * each read its verdict); the others say how pages are held and freed.
 */
import { freeCopies } from './allocator.ts';
import { bodyLabel, isBodyLabel, NO_PAGE, prefixLabel, type Model } from './model.ts';
import { verdictOf, type ReadVerdict } from './reads.ts';
import { flagsOf, holderOf, isLive, phaseOf, READ_UNHELD, readRecordOf, sharedPages, tablePage, tableRoom, type State } from './state.ts';
import type { Breach, Property } from './properties.ts';

const always = (name: string, holds: Property['holds']): Property => ({
  name,
  kind: 'always',
  appliesTo: () => true,
  holds,
});

/** The reads of every request whose read record says `verdict` somewhere: what breaks `Isolation` or `Integrity`. */
function readsWith(m: Model, s: State, verdict: ReadVerdict): Breach | undefined {
  const requests: number[] = [];
  const pages: { r: number; i: number; page: number }[] = [];
  for (let r = 0; r < m.n; r++) {
    const len = m.len[r]!;
    let bad = false;
    for (let i = 0; i < len; i++) {
      if (verdictOf(m, r, i, readRecordOf(m, s, r, i)) !== verdict && !(verdict === 'integrity' && verdictOf(m, r, i, readRecordOf(m, s, r, i)) === 'isolation')) continue;
      bad = true;
      pages.push({ r, i, page: tablePage(m, s, r, i) });
    }
    if (bad) requests.push(r);
  }
  return requests.length === 0 ? undefined : { requests, pages };
}

/** Whether some read of some request has the verdict (or, for `integrity`, any bad verdict). */
function anyRead(m: Model, s: State, verdict: ReadVerdict): boolean {
  for (let r = 0; r < m.n; r++) {
    const len = m.len[r]!;
    for (let i = 0; i < len; i++) {
      const v = verdictOf(m, r, i, readRecordOf(m, s, r, i));
      if (v === verdict || (verdict === 'integrity' && v === 'isolation')) return true;
    }
  }
  return false;
}

/**
 * No request has ever read data written by another request, at any decode step. The one
 * exception is a shared prefix: a request may read, at each of its prefix's positions, a page
 * that holds its own prefix's page for that position, whoever computed it, because that
 * content is the same for every request with that prefix. A prefix page anywhere else (at
 * another position, or in another request's table) is a leak. This is the property the incident broke.
 * It is about confidentiality (another user's data).
 * Broken by the reads whose verdict is `isolation` (`reads.ts`).
 */
export const Isolation: Property = {
  ...always('Isolation', (m, s) => !anyRead(m, s, 'isolation')),
  breach: (m, s) => readsWith(m, s, 'isolation'),
};

/**
 * Every decode step that passed its check read, at every position of its table, content
 * written for this request (or for its prefix) at that position during its current hold.
 * About correctness, not confidentiality: a page never written (a stub over pages nobody
 * wrote) breaks `Integrity` only; another user's page, or a misplaced one, breaks both.
 * "Would have answered garbage." Broken by every read whose verdict is not `ok`.
 */
export const Integrity: Property = {
  ...always('Integrity', (m, s) => !anyRead(m, s, 'integrity')),
  breach: (m, s) => readsWith(m, s, 'integrity'),
};

/**
 * No page is held by two requests; every page in a live page table is held by its
 * request (a shared prefix page, by its prefix's cache entry); every page held by a
 * request is in that request's live table, so the free pages are exactly the pages
 * nobody holds.
 */
export const ExclusiveHold = always('ExclusiveHold', (m, s) => {
  const claimedBy = new Map<number, number>();
  for (let r = 0; r < m.n; r++) {
    if (!isLive(phaseOf(m, s, r))) continue;
    for (let i = 0; i < (m.len[r] ?? 0); i++) {
      const p = tablePage(m, s, r, i);
      // The prompt's pages are all there; past them, the pages `grow` added, up to the first empty position.
      if (p === NO_PAGE) {
        if (i < (m.promptPages[r] ?? 0)) return false;
        break;
      }
      const shared = i < sharedPages(m, s, r);
      const owner = shared ? prefixLabel(m, m.group[r] ?? -1, i) : bodyLabel(r);
      if (holderOf(m, s, p) !== owner) return false;
      if (shared) continue;
      if (claimedBy.has(p)) return false;
      claimedBy.set(p, r);
    }
  }
  for (let p = 0; p < m.pages; p++) {
    const h = holderOf(m, s, p);
    if (isBodyLabel(m, h) && claimedBy.get(p) !== h - 1) return false;
  }
  return true;
});

/**
 * Free pages plus held pages equal `pages`, counting free pages as entries of the free
 * list (and `sglang`'s release list), and held pages from the requests' own page tables
 * (each live table entry once, shared prefix pages once, as the cache's): a page freed
 * while still in a table, in two tables, or twice on the free list, is counted twice.
 */
export const Conservation = always('Conservation', (m, s) => {
  let count = 0;
  for (let p = m.firstPage; p < m.pages; p++) {
    count += freeCopies(m, s, p);
    if (holderOf(m, s, p) > m.n) count++;
  }
  for (let r = 0; r < m.n; r++) {
    if (isLive(phaseOf(m, s, r))) count += tableRoom(m, s, r) - sharedPages(m, s, r);
  }
  return count === m.pages - m.firstPage;
});

/**
 * No page is on the free list (with `sglang`'s release list) more than once. SGLang's
 * debug check (`SGLANG_CHECK_KV_PAGE_INVARIANTS`) looks for this: a page twice on the
 * list is handed to two requests.
 */
export const NoDuplicateFree = always('NoDuplicateFree', (m, s) => {
  if (m.freeAt < 0 && m.listAt < 0) return true;
  for (let p = m.firstPage; p < m.pages; p++) if (freeCopies(m, s, p) > 1) return false;
  return true;
});

/**
 * No page of a live page table is on the free list (or `sglang`'s release list): a page
 * is not handed out again while a request still reads it. SGLang's debug check looks for
 * this too.
 */
export const NoUseAfterFree = always('NoUseAfterFree', (m, s) => {
  for (let r = 0; r < m.n; r++) {
    if (!isLive(s[m.phaseAt + r]!)) continue;
    const len = m.len[r]!;
    for (let i = 0; i < len; i++) {
      const p = tablePage(m, s, r, i);
      if (p !== NO_PAGE && freeCopies(m, s, p) > 0) return false;
    }
  }
  return true;
});

/** Decode reads only pages its request holds at the moment of reading (or its prefix's cached page). */
export const ReadsOwnPages = always('ReadsOwnPages', (m, s) => {
  for (let r = 0; r < m.n; r++) if ((flagsOf(m, s, r) & READ_UNHELD) !== 0) return false;
  return true;
});

/** Every invariant, in the order they are checked and reported. */
export const INVARIANTS: readonly Property[] = [Isolation, ExclusiveHold, Conservation, ReadsOwnPages, NoDuplicateFree, NoUseAfterFree, Integrity];

/**
 * The invariants a search checks when none are named: all but `Integrity`. A search stops
 * at its first violation, and a silent stub over pages nobody wrote breaks `Integrity` in
 * four actions, before the incident's leak (nine); name `Integrity` to check it.
 */
export const DEFAULT_INVARIANTS: readonly Property[] = [Isolation, ExclusiveHold, Conservation, ReadsOwnPages, NoDuplicateFree, NoUseAfterFree];
