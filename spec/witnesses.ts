/**
 * The non-vacuity witnesses: the `sometimes` properties of `properties.ts`, each a state
 * that must be reachable where it applies, so that an invariant cannot hold only because
 * the behaviour it guards never happens.
 */
import { OVERLAPPED } from './release.ts';
import { groupExtends, isOverLong, NO_PAGE, prefixLabel, type Model } from './model.ts';
import { dataOf, dataPartsOf, flagsOf, HIT, INSERTED, nodeLockOf, holderOf, isLive, phaseOf, Ph, RESUMED, EVICTED_FOR, sharedPages, tablePage, tableRoom, tagPartsOf } from './state.ts';
import type { Fault } from './config.ts';
import type { Property } from './properties.ts';
import { anyRequest, sometimes } from './witness-kit.ts';
import { DraftLanded, DraftPrefixHit, EarlyCommit, HostEvicted, HostReusedUnderLoad, LoadedBack, MetadataShared, ReadBeforeLoad, RoomBeforePayload, SourceFreed, StateSlotReused } from './witnesses-wire.ts';

export { DraftLanded, DraftPrefixHit, EarlyCommit, HostEvicted, HostReusedUnderLoad, LoadedBack, ReadBeforeLoad, RoomBeforePayload, SourceFreed } from './witnesses-wire.ts';

const hasOverLong = (m: Model): boolean => m.config.requests.some((_, r) => isOverLong(m, r));

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
  // a skipped load leaves cleared tags, and under `copy-carries-tag` a late copy brings another's tag back;
  // an early commit decodes over tags that have not landed; a decode before its load back meets the tags the allocation cleared.
  (m) =>
    m.ownerCheck &&
    ((hasOverLong(m) && (m.silentStub || m.fault['prefix-poison'] || m.fault['auto-truncate'])) ||
      (m.fault['early-free'] && !m.mechanism['revoke-writer']) ||
      (m.fault['stale-free'] && !m.mechanism['release-checks-holder']) ||
      (m.retraction && m.fault['resume-stale']) ||
      (m.retraction && m.fault['offload-after-free'] && m.mechanism['copy-carries-tag'] && m.n > 1) ||
      (m.fault['premature-success'] && m.fault['torn-write'] && !m.mechanism['commit-counts-landed']) ||
      (m.fault['read-before-load'] && m.layout.fields.load !== undefined && !m.mechanism['wait-own-load'])),
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
    // Two requests whose paths share group g's pages: the same prefix, or one that extends it (spec/nesting.ts).
    for (let g = 0; g < m.groups; g++) if (m.group.filter((x) => x >= 0 && groupExtends(m, x, g)).length > 1) return true;
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
      // Under the radix tree the handoff's insert locks too: a request that inserted reads its path as one that hit does.
      if (!isLive(phaseOf(m, s, r)) || (flagsOf(m, s, r) & (m.radix ? HIT | INSERTED : HIT)) === 0) return false;
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

/** With `radix`: some node's `lock_ref` is below 0 (`dec_lock_ref` has no floor; SGLang #27666 logs `protected=-12`), so the node counts as evictable whoever still reads it. */
export const LockNegative = sometimes(
  'LockNegative',
  (m) => m.radix,
  (m, s) => {
    for (let p = m.firstPage; p < m.pages; p++) if (nodeLockOf(m, s, p) < 0) return true;
    return false;
  },
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
  LockNegative,
  Retracted,
  Resumed,
  CopyInFlight,
  SourceFreed,
  EarlyCommit,
  RoomBeforePayload,
  DraftLanded,
  DraftPrefixHit,
  StateSlotReused,
  MetadataShared,
  LoadedBack,
  HostEvicted,
  HostReusedUnderLoad,
  ReadBeforeLoad,
];

/** The witness that shows each fault firing: it applies exactly where the fault can fire, so a warning asks it before a search (cli/warnings.ts). */
export const FAULT_WITNESSES: Readonly<Record<Fault, Property>> = {
  'silent-stub': OverLongStubbed,
  'early-free': LateWriteLands,
  'stale-free': DoubleRelease,
  'prefix-poison': PoisonedInsert,
  // The second release runs (what it then frees is the variant's business: under hardened, nothing another request holds).
  'double-free': DoubleRelease,
  'lock-underflow': EvictedWhileRead,
  'torn-write': TornPage,
  'auto-truncate': PromptTruncated,
  'segment-overlap': SegmentOverlap,
  'offload-after-free': CopyInFlight,
  // Every resume skips the load: the fault fires wherever a request is resumed.
  'resume-stale': Resumed,
  'source-early-free': SourceFreed,
  'premature-success': EarlyCommit,
  'aux-torn': RoomBeforePayload,
  'draft-stale': DraftPrefixHit,
  'state-slot-reuse': StateSlotReused,
  'metadata-collision': MetadataShared,
  'host-evict-during-load': HostReusedUnderLoad,
  'read-before-load': ReadBeforeLoad,
};
