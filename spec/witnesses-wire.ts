/**
 * The witnesses of what crosses the wire besides D's pages (docs/WIRE.md): P's source
 * pages freed under a write in flight, D's commit before the last part, and the metadata
 * slot's room landing before its payload.
 */
import { bodyLabel } from './model.ts';
import { auxPayloadOf, auxRoomOf, hostReusedOf, loadOf, phaseOf, Ph, sourceFreedOf } from './state.ts';
import { LOAD, loadsBack } from './loadback.ts';
import { isCommitted, partsInFlight } from './transfer.ts';
import { anyRequest, sometimes } from './witness-kit.ts';

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
