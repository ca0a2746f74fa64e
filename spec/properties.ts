/**
 * The properties of the model, Stateright style: named predicates with a kind. An
 * `always` property is an invariant, checked in every reachable state; a `sometimes`
 * property is a non-vacuity witness, a state that must be reachable, or the invariants
 * could hold only because nothing happens. A witness that does not apply to a
 * configuration (no over-long request, say) is not expected there.
 */
import { freeCopies } from './allocator.ts';
import { OVERLAPPED } from './release.ts';
import { bodyLabel, isBodyLabel, isOverLong, NO_PAGE, prefixLabel, type Model } from './model.ts';
import { verdictOf, type ReadVerdict } from './reads.ts';
import {
  dataOf,
  dataPartsOf,
  flagsOf,
  HIT,
  holderOf,
  isLive,
  phaseOf,
  Ph,
  READ_UNHELD,
  RESUMED,
  EVICTED_FOR,
  readRecordOf,
  sharedPages,
  tablePage,
  tableRoom,
  tagPartsOf,
  type State,
} from './state.ts';

/** What breaks an invariant in a state: the requests, and the pages (with their table positions), at fault. */
export interface Breach {
  /** Indices of the requests at fault. */
  readonly requests: readonly number[];
  /** The pages at fault: the request, its table position and the page id. */
  readonly pages: readonly { readonly r: number; readonly i: number; readonly page: number }[];
}

/** A named state predicate: an invariant (`always`) or a witness (`sometimes`). */
export interface Property {
  /** The name printed in counterexamples and reports. */
  readonly name: string;
  /** `always`: must hold in every reachable state; `sometimes`: must hold in some. */
  readonly kind: 'always' | 'sometimes';
  /** Whether the property is expected to matter for this configuration. */
  readonly appliesTo: (m: Model) => boolean;
  /** The predicate itself. */
  readonly holds: (m: Model, s: State) => boolean;
  /** For an invariant that says so: what breaks it in `s`, or `undefined` when it holds. */
  readonly breach?: (m: Model, s: State) => Breach | undefined;
}

const always = (name: string, holds: Property['holds']): Property => ({
  name,
  kind: 'always',
  appliesTo: () => true,
  holds,
});

const sometimes = (name: string, appliesTo: Property['appliesTo'], holds: Property['holds']): Property => ({
  name,
  kind: 'sometimes',
  appliesTo,
  holds,
});

const anyRequest = (m: Model, test: (r: number) => boolean): boolean => {
  for (let r = 0; r < m.n; r++) if (test(r)) return true;
  return false;
};

const hasOverLong = (m: Model): boolean => m.config.requests.some((_, r) => isOverLong(m, r));

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

/** Some request decodes successfully: the model serves requests at all. */
export const DecodeSucceeds = sometimes('DecodeSucceeds', () => true, (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.decoded));

/** A page freed by one request is reused by another while it still holds the first one's data: the precondition of every leak. */
export const PageReused = sometimes(
  'PageReused',
  (m) => m.n > 1,
  (m, s) => {
    for (let p = 0; p < m.pages; p++) {
      const h = holderOf(m, s, p);
      const d = dataOf(m, s, p);
      if (h >= 1 && h <= m.n && d >= 1 && d <= m.n && d !== h) return true;
    }
    return false;
  },
);

/** An over-long request is silently stubbed and P reports success (where the silent stub is on). */
export const OverLongStubbed = sometimes(
  'OverLongStubbed',
  (m) => m.silentStub && hasOverLong(m) && !m.fault['auto-truncate'],
  (m, s) => anyRequest(m, (r) => isOverLong(m, r) && phaseOf(m, s, r) === Ph.written),
);

/** An over-long request is refused before the handoff (where the silent stub is off, as under `length-fix`). */
export const OverLongRefused = sometimes(
  'OverLongRefused',
  (m) => !m.silentStub && hasOverLong(m) && !m.fault['auto-truncate'],
  (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.refused),
);

/** Fault `auto-truncate` fires: an over-long prompt was cut to the limit and P reported success. */
export const PromptTruncated = sometimes(
  'PromptTruncated',
  (m) => m.fault['auto-truncate'] && hasOverLong(m),
  (m, s) => anyRequest(m, (r) => isOverLong(m, r) && phaseOf(m, s, r) === Ph.written),
);

/** Under `owner-check`, a read that would have leaked fails the request loudly instead. */
export const FailsLoudly = sometimes(
  'FailsLoudly',
  // A stub, and a poisoned insert (of a refused request), need an over-long request to happen at all;
  // under `hardened` a late write and a stale release never reach a page with a new holder;
  // a skipped load leaves cleared tags, and under `copy-carries-tag` a late copy brings another's tag back.
  (m) =>
    m.ownerCheck &&
    ((hasOverLong(m) && (m.silentStub || m.fault['prefix-poison'] || m.fault['auto-truncate'])) ||
      (m.fault['early-free'] && !m.mechanism['revoke-writer']) ||
      (m.fault['stale-free'] && !m.mechanism['release-checks-holder']) ||
      (m.retraction && m.fault['resume-stale']) ||
      (m.retraction && m.fault['offload-after-free'] && m.mechanism['copy-carries-tag'] && m.n > 1)),
  (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.failed),
);

/** Fault `early-free` fires: a timed-out request's late write lands. */
export const LateWriteLands = sometimes(
  'LateWriteLands',
  (m) => m.fault['early-free'],
  (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.landed),
);

/** Fault `stale-free` or `double-free` fires: a request's old page table is released a second time. */
export const DoubleRelease = sometimes(
  'DoubleRelease',
  (m) => m.fault['stale-free'] || m.fault['double-free'],
  (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.released),
);

/** Fault `double-free` fires: one page is handed to two requests that hold it at once (or twice to one). */
export const HandedOutTwice = sometimes(
  'HandedOutTwice',
  // Under `hardened` the second release (taken only while every page of the old table is
  // free) frees nothing: `release-checks-holder` frees only pages the request still holds.
  (m) => m.fault['double-free'] && !m.mechanism['release-checks-holder'],
  (m, s) => {
    const seen = new Uint8Array(m.pages);
    for (let r = 0; r < m.n; r++) {
      if (!isLive(phaseOf(m, s, r))) continue;
      for (let i = sharedPages(m, s, r); i < m.len[r]!; i++) {
        const p = tablePage(m, s, r, i);
        if (p === NO_PAGE) continue;
        if (seen[p] === 1) return true;
        seen[p] = 1;
      }
    }
    return false;
  },
);

/**
 * Fault `segment-overlap` fires: two allocator calls of one release named the same page
 * (`release.ts`), whatever the variant then made of it; under `hardened` the second call
 * finds the page held by nobody and frees nothing.
 */
export const SegmentOverlap = sometimes(
  'SegmentOverlap',
  // Only a request with an earlier call to share a page with: own pages at its prefix's positions, or a tail.
  (m) => m.fault['segment-overlap'] && m.config.requests.some((q, r) => q.prefix !== undefined || (m.pageSize > 1 && (m.tokens[r] ?? 0) % m.pageSize !== 0)),
  (m, s) => anyRequest(m, (r) => (flagsOf(m, s, r) & OVERLAPPED) !== 0),
);

/** The prefix cache is used: a request is allocated on its prefix's cached pages. */
export const PrefixHit = sometimes(
  'PrefixHit',
  (m) => {
    for (let g = 0; g < m.groups; g++) if (m.group.filter((x) => x === g).length > 1) return true;
    return false;
  },
  (m, s) => anyRequest(m, (r) => (flagsOf(m, s, r) & HIT) !== 0),
);

/** Fault `prefix-poison` fires: the cache holds a page for a prefix page whose data it does not hold. */
export const PoisonedInsert = sometimes(
  'PoisonedInsert',
  (m) => m.fault['prefix-poison'] && m.groups > 0,
  (m, s) => {
    for (let p = 0; p < m.pages; p++) {
      const h = holderOf(m, s, p);
      if (h > m.n && dataOf(m, s, p) !== h) return true;
    }
    return false;
  },
);

/** With eviction on, every request gets served and released: nobody starves behind pages the prefix cache holds for good. */
export const AllServed = sometimes(
  'AllServed',
  (m) => m.eviction,
  (m, s) => !anyRequest(m, (r) => phaseOf(m, s, r) !== Ph.freed),
);

/** With eviction on, the prefix cache evicts an entry to make room for an allocation. */
export const CacheEvicts = sometimes(
  'CacheEvicts',
  (m) => m.eviction,
  (m, s) => anyRequest(m, (r) => (flagsOf(m, s, r) & EVICTED_FOR) !== 0),
);

/** Fault `lock-underflow` fires: a live request that hit the cache reads a prefix page that the cache no longer holds. */
export const EvictedWhileRead = sometimes(
  'EvictedWhileRead',
  (m) => m.eviction && m.fault['lock-underflow'],
  (m, s) =>
    anyRequest(m, (r) => {
      if (!isLive(phaseOf(m, s, r)) || (flagsOf(m, s, r) & HIT) === 0) return false;
      for (let j = 0; j < sharedPages(m, s, r); j++) if (holderOf(m, s, tablePage(m, s, r, j)) !== prefixLabel(m, m.group[r]!, j)) return true;
      return false;
    }),
);

/** With fault `torn-write`: a page's content has landed and its tag not yet, or the other way round. */
export const TornPage = sometimes(
  'TornPage',
  (m) => m.fault['torn-write'] && m.ownerCheck,
  (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.writing && dataPartsOf(m, s, r) !== tagPartsOf(m, s, r)),
);

/** With several decode steps: a request is between two of them. */
export const BetweenSteps = sometimes(
  'BetweenSteps',
  (m) => m.decodeSteps > 1,
  (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.decoding),
);

/** With `tableGrowth`: a request's table holds a page that `grow` added past its prompt's pages. */
export const TableGrew = sometimes(
  'TableGrew',
  (m) => m.tableGrowth,
  (m, s) => anyRequest(m, (r) => isLive(phaseOf(m, s, r)) && tableRoom(m, s, r) > (m.promptPages[r] ?? 0)),
);

/** With `retraction`: a request was retracted, its pages released and its KV saved (or, with `offload-after-free`, still being copied). */
export const Retracted = sometimes(
  'Retracted',
  (m) => m.retraction,
  (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.retracted || phaseOf(m, s, r) === Ph.offloading),
);

/** With `retraction`: a request holds pages again after a retraction. */
export const Resumed = sometimes(
  'Resumed',
  (m) => m.retraction,
  (m, s) => anyRequest(m, (r) => isLive(phaseOf(m, s, r)) && (flagsOf(m, s, r) & RESUMED) !== 0),
);

/** With `offload-after-free`: a retracted request's pages are released while its copy to host memory has not read them. */
export const CopyInFlight = sometimes(
  'CopyInFlight',
  (m) => m.retraction && m.fault['offload-after-free'],
  (m, s) => anyRequest(m, (r) => phaseOf(m, s, r) === Ph.offloading),
);

/** Every invariant, in the order they are checked and reported. */
export const INVARIANTS: readonly Property[] = [Isolation, ExclusiveHold, Conservation, ReadsOwnPages, NoDuplicateFree, NoUseAfterFree, Integrity];

/**
 * The invariants a search checks when none are named: all but `Integrity`. A search stops
 * at its first violation, and a silent stub over pages nobody wrote breaks `Integrity` in
 * four actions, before the incident's leak (nine); name `Integrity` to check it.
 */
export const DEFAULT_INVARIANTS: readonly Property[] = [Isolation, ExclusiveHold, Conservation, ReadsOwnPages, NoDuplicateFree, NoUseAfterFree];

/** The non-vacuity witnesses. */
export const WITNESSES: readonly Property[] = [
  DecodeSucceeds,
  PageReused,
  OverLongStubbed,
  OverLongRefused,
  PromptTruncated,
  FailsLoudly,
  LateWriteLands,
  DoubleRelease,
  HandedOutTwice,
  SegmentOverlap,
  PrefixHit,
  PoisonedInsert,
  AllServed,
  CacheEvicts,
  EvictedWhileRead,
  TornPage,
  BetweenSteps,
  TableGrew,
  Retracted,
  Resumed,
  CopyInFlight,
];

/** The property of that name, if there is one. */
export function propertyNamed(name: string): Property | undefined {
  return [...INVARIANTS, ...WITNESSES].find((p) => p.name === name);
}
