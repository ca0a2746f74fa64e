/**
 * The witnesses of what crosses the wire besides D's pages (docs/WIRE.md): P's source
 * pages freed under a write in flight, D's commit before the last part, and the metadata
 * slot's room landing before its payload, and the draft model's KV.
 */
import { bodyLabel, prefixLength } from './model.ts';
import { auxPayloadOf, auxRoomOf, draftOf, hostReusedOf, loadOf, phaseOf, Ph, poolOf, sharedPages, sourceFreedOf } from './state.ts';
import { hasStateSlots, twoInFlight } from './state-slots.ts';
import { LOAD, loadsBack } from './loadback.ts';
import { isCommitted, partsInFlight } from './transfer.ts';
import { anyRequest, sometimes } from './witness-kit.ts';
import { hasDraft } from './draft.ts';

/**
 * With `source-early-free` (and `torn-write`, under which a write is in flight): P aborted a
 * request while its transfer still read P's source pages. Under `hardened` the abort is
 * taken too, and P holds the pages (`hold-source`), so the witness applies there as well.
 */
export const SourceFreed = sometimes(
  'SourceFreed',
  (m) => m.sourcePages && m.fault['source-early-free'] && m.fault['torn-write'],
  (m, s) => anyRequest(m, (r) => sourceFreedOf(m, s, r)),
);

/** With `premature-success` (and `torn-write`): D committed a request while parts of its write were still landing. */
export const EarlyCommit = sometimes(
  'EarlyCommit',
  (m) => m.fault['premature-success'] && m.fault['torn-write'] && !m.mechanism['commit-counts-landed'],
  (m, s) => anyRequest(m, (r) => isCommitted(phaseOf(m, s, r)) && partsInFlight(m, s, r)),
);

/** With `aux-torn`: a request's room has landed in the metadata slot over another's payload (or none), so D's gate would let it through. */
export const RoomBeforePayload = sometimes(
  'RoomBeforePayload',
  (m) => m.fault['aux-torn'] && !m.mechanism['room-lands-last'],
  (m, s) => anyRequest(m, (r) => auxRoomOf(m, s) === bodyLabel(r) && auxPayloadOf(m, s) !== bodyLabel(r)),
);

/** With `draft`: some page holds a draft model's KV (a draft part landed, or a decode step wrote a token's). Under every variant. */
export const DraftLanded = sometimes(
  'DraftLanded',
  (m) => hasDraft(m),
  (m, s) => {
    for (let p = m.firstPage; p < m.pages; p++) if (draftOf(m, s, p) !== 0) return true;
    return false;
  },
);

/**
 * With `draft-stale` (and `draft`, a prompt prefix): D committed a request whose prefix
 * positions P wrote (D's cache did not share them), so P's cache hit them and the draft
 * part skipped them, or, under `hardened`, filled them first (`draft-fills-hit`): the
 * witness applies there as well.
 */
export const DraftPrefixHit = sometimes(
  'DraftPrefixHit',
  (m) => hasDraft(m) && m.fault['draft-stale'] && m.groups > 0,
  (m, s) => anyRequest(m, (r) => (m.group[r] ?? -1) >= 0 && isCommitted(phaseOf(m, s, r)) && sharedPages(m, s, r) < prefixLength(m, r)),
);

/** With `state-slot-reuse` (and two requests that fit D's pages together): a committed request still decoding from a state slot that another request now holds (the slot was freed at its commit and taken again). */
export const StateSlotReused = sometimes(
  'StateSlotReused',
  (m) => hasStateSlots(m) && m.fault['state-slot-reuse'] && !m.mechanism['slot-freed-with-request'] && twoInFlight(m),
  (m, s) =>
    anyRequest(m, (r) => {
      const phase = phaseOf(m, s, r);
      const k = poolOf(m, s, 'stateIdx', r);
      const holder = k > 0 ? poolOf(m, s, 'stateHolder', k - 1) : 0;
      return (phase === Ph.handedOff || phase === Ph.decoding) && holder !== 0 && holder !== bodyLabel(r);
    }),
);

/** With `metadata-collision` (and two requests that fit D's pages together): two requests in flight hold one metadata row. */
export const MetadataShared = sometimes(
  'MetadataShared',
  (m) => hasStateSlots(m) && m.fault['metadata-collision'] && !m.mechanism['metadata-alloc-checks-holder'] && twoInFlight(m),
  (m, s) => anyRequest(m, (r) => poolOf(m, s, 'metaIdx', r) > 0 && anyRequest(m, (q) => q !== r && poolOf(m, s, 'metaIdx', q) === poolOf(m, s, 'metaIdx', r))),
);

/** With `loadback`: a request's load from host memory has landed in its prefix pages. */
export const LoadedBack = sometimes(
  'LoadedBack',
  (m) => loadsBack(m),
  (m, s) => anyRequest(m, (r) => loadOf(m, s, r) === LOAD.landed),
);

/** With `loadback`: a prefix's host copy was evicted and its slot reused (`evictHost`). */
export const HostEvicted = sometimes(
  'HostEvicted',
  (m) => loadsBack(m),
  (m, s) => m.groupNames.some((_, g) => hostReusedOf(m, s, g)),
);

/** With `host-evict-during-load`: the host copy a posted load still reads was evicted and its slot reused. */
export const HostReusedUnderLoad = sometimes(
  'HostReusedUnderLoad',
  (m) => loadsBack(m) && m.fault['host-evict-during-load'] && !m.mechanism['protect-host'],
  (m, s) => anyRequest(m, (r) => loadOf(m, s, r) === LOAD.posted && hostReusedOf(m, s, m.group[r]!)),
);

/** With `read-before-load`: a request took a decode step (or failed its check) while its load had not landed. */
export const ReadBeforeLoad = sometimes(
  'ReadBeforeLoad',
  (m) => loadsBack(m) && m.fault['read-before-load'] && !m.mechanism['wait-own-load'],
  (m, s) =>
    anyRequest(m, (r) => {
      const phase = phaseOf(m, s, r);
      return loadOf(m, s, r) === LOAD.posted && (phase === Ph.decoding || phase === Ph.decoded || phase === Ph.failed);
    }),
);
