/**
 * Every successor of a state of the fast family, each written into a `slice()` of it, in action order.
 *
 * Emitted by `binding/fast-emit.ts` from `binding/fast-actions.ts`: do not edit; edit the
 * description and run `npm run generate` (a test fails while this file is stale).
 */
import { type FastFamily, hasEmptySlot } from './family.ts';
import { decode as decodeBySpec } from '../spec/transitions.ts';
import { BYTE_LABEL, BYTE_MISPLACED, BYTE_READ, Ph, READ_UNHELD, type State } from '../spec/state.ts';
import { timeout, landData, landTag } from './fast-successors-faults.ts';

/** Receives a successor and the index (in `allActions`) of the action that made it. */
export type Sink = (t: State, action: number) => void;

/** allocate: a new request takes the lowest free pages as its table, if there are enough (under the owner check, their tags cleared). */
function allocate(f: FastFamily, s: State, sink: Sink): void {
  const { n, phaseAt, holderAt, tagAt, ownerCheck, len, tableAt, free } = f;
  let scanned = false;
  for (let r = 0; r < n; r++) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.new) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!scanned) f.scanFree(s);
    scanned = true;
    if (!(f.freeCount >= l)) continue;
    const t = s.slice();
    for (let k = 0; k < l; k++) {
      const p = free[k]!;
      t[holderAt + p] = r + 1;
      t[at + k] = p;
      if (ownerCheck) { t[tagAt + p] = 0; }
    }
    t[phaseAt + r] = Ph.allocated;
    sink(t, r);
  }
}

/** prefill: P writes the request's own data into every page of its table, for its position (under the owner check, stamped with its label); under torn-write the write is only posted. A late write under revoke-writer lands nowhere. */
function prefill(f: FastFamily, s: State, sink: Sink): void {
  const { n, phaseAt, dataAt, dataPosAt, tagAt, ownerCheck, dataPartsAt, tagPartsAt, len, tableAt, overLong } = f;
  for (let r = 0; r < n; r++) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.allocated && phase !== Ph.timedOut) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!(overLong[r] === 0)) continue;
    const t = s.slice();
    if (phase === Ph.timedOut && f.revokeWriter) {
      if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
      t[phaseAt + r] = Ph.landed;
    } else {
      if (f.tornWrite) {
        t[dataPartsAt + r] = 0;
        if (ownerCheck) { t[tagPartsAt + r] = 0; }
        if (phase === Ph.timedOut) {
          t[phaseAt + r] = Ph.landing;
        } else {
          t[phaseAt + r] = Ph.writing;
        }
      } else {
        for (let i = 0; i < l; i++) {
          const p = s[at + i]!;
          if (p === 0xff) continue;
          t[dataAt + p] = r + 1;
          t[dataPosAt + p] = i;
          if (ownerCheck) { t[tagAt + p] = r + 1; }
        }
        if (phase === Ph.timedOut) {
          if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
          t[phaseAt + r] = Ph.landed;
        } else {
          t[phaseAt + r] = Ph.written;
        }
      }
    }
    sink(t, 1 * n + r);
  }
}

/** stub: an over-long request is refused, or (silent stub) written as one dummy page at position 0 (under the owner check, stamped with its label; under torn-write, posted; late under revoke-writer, nowhere). */
function stub(f: FastFamily, s: State, sink: Sink): void {
  const { n, phaseAt, dataAt, dataPosAt, tagAt, ownerCheck, dataPartsAt, tagPartsAt, len, tableAt, overLong } = f;
  for (let r = 0; r < n; r++) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.allocated && phase !== Ph.timedOut) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!(overLong[r] === 1)) continue;
    const t = s.slice();
    if (!f.silentStub) {
      if (phase === Ph.timedOut) {
        if (f.clearOn[Ph.freed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
        t[phaseAt + r] = Ph.freed;
      } else {
        t[phaseAt + r] = Ph.refused;
      }
    } else {
      if (phase === Ph.timedOut && f.revokeWriter) {
        if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
        t[phaseAt + r] = Ph.landed;
      } else {
        if (f.tornWrite) {
          t[dataPartsAt + r] = 0;
          if (ownerCheck) { t[tagPartsAt + r] = 0; }
          if (phase === Ph.timedOut) {
            t[phaseAt + r] = Ph.landing;
          } else {
            t[phaseAt + r] = Ph.writing;
          }
        } else {
          const p = s[at]!;
          if (p !== 0xff) {
            t[dataAt + p] = r + 1;
            t[dataPosAt + p] = 0;
            if (ownerCheck) { t[tagAt + p] = r + 1; }
          }
          if (phase === Ph.timedOut) {
            if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
            t[phaseAt + r] = Ph.landed;
          } else {
            t[phaseAt + r] = Ph.written;
          }
        }
      }
    }
    sink(t, 2 * n + r);
  }
}

/** handoff: a written request goes to decode. */
function handoff(f: FastFamily, s: State, sink: Sink): void {
  const { n, phaseAt } = f;
  for (let r = 0; r < n; r++) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.written) continue;
    const t = s.slice();
    t[phaseAt + r] = Ph.handedOff;
    sink(t, 3 * n + r);
  }
}

/** decode: one step reads every page of the table: read records (the worse kept), read set, unheld reads, steps, phase; under the owner check, a foreign tag fails it instead. */
function decode(f: FastFamily, s: State, sink: Sink): void {
  const { n, phaseAt, holderAt, dataAt, dataPosAt, tagAt, ownerCheck, flagsAt, stepsAt, observedAt, len, tableAt, readAt, sev, sevAt } = f;
  for (let r = 0; r < n; r++) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.handedOff) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    const rec0 = readAt[r]!;
    const sev0 = sevAt[r]!;
    const w = f.observedBytes;
    const o = observedAt + w * r;
    if (hasEmptySlot(s, at, l)) {
      const u = decodeBySpec(f.m, s, r);
      if (u !== undefined) sink(u, 4 * n + r);
      continue;
    }
    const t = s.slice();
    let foreign = false;
    if (ownerCheck) {
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        if (s[tagAt + p] !== r + 1) foreign = true;
      }
    }
    if (foreign) {
      t[phaseAt + r] = Ph.failed;
    } else {
      let observed = 0;
      for (let k = 0; k < w; k++) { observed |= s[o + k]! << (8 * k); }
      let unheld = false;
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        const label = s[dataAt + p]!;
        const record = BYTE_READ | (label & BYTE_LABEL) | (label !== 0 && s[dataPosAt + p] !== i ? BYTE_MISPLACED : 0);
        if ((label & BYTE_LABEL) !== 0) observed |= 1 << ((label & BYTE_LABEL) - 1);
        const old = s[rec0 + i]!;
        const row = sev0 + 256 * i;
        if ((old & BYTE_READ) === 0 || sev[row + record]! > sev[row + old]!) { t[rec0 + i] = record; }
        if (s[holderAt + p] !== r + 1) unheld = true;
      }
      for (let k = 0; k < w; k++) { t[o + k] = (observed >>> (8 * k)) & 0xff; }
      if (unheld) { t[flagsAt + r] = s[flagsAt + r]! | READ_UNHELD; }
      t[stepsAt + r] = s[stepsAt + r]! + 1;
      t[phaseAt + r] = Ph.decoded;
    }
    sink(t, 4 * n + r);
  }
}

/** free: the table's pages are held by nobody (under release-checks-holder, those the request still holds); the request is freed, or under stale-free a finished one released again. */
function free(f: FastFamily, s: State, sink: Sink): void {
  const { n, phaseAt, holderAt, len, tableAt } = f;
  for (let r = 0; r < n; r++) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.decoded && phase !== Ph.refused && phase !== Ph.failed && phase !== Ph.freed && phase !== Ph.landed) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!(f.staleFree || (phase !== Ph.freed && phase !== Ph.landed))) continue;
    const t = s.slice();
    for (let i = 0; i < l; i++) {
      const p = s[at + i]!;
      if (p === 0xff) continue;
      if (!f.checksHolder || s[holderAt + p] === r + 1) { t[holderAt + p] = 0; }
    }
    if (phase === Ph.freed || phase === Ph.landed) {
      if (f.clearOn[Ph.released] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
      t[phaseAt + r] = Ph.released;
    } else {
      if (f.clearOn[Ph.freed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
      t[phaseAt + r] = Ph.freed;
    }
    sink(t, 5 * n + r);
  }
}

/** Every successor of `s`, in action order (kind-major, then request). */
export function successors(f: FastFamily, s: State, sink: Sink): void {
  const { n, phaseAt } = f;
  let present = 0;
  for (let r = 0; r < n; r++) present |= 1 << s[phaseAt + r]!;
  if ((present & 0x1) !== 0) allocate(f, s, sink);
  if ((present & 0x102) !== 0) prefill(f, s, sink);
  if ((present & 0x102) !== 0) stub(f, s, sink);
  if ((present & 0x4) !== 0) handoff(f, s, sink);
  if ((present & 0x8) !== 0) decode(f, s, sink);
  if ((present & 0x2f0) !== 0) free(f, s, sink);
  if ((present & 0x802) !== 0) timeout(f, s, sink);
  if ((present & 0x1800) !== 0) landData(f, s, sink);
  if ((present & 0x1800) !== 0) landTag(f, s, sink);
}
