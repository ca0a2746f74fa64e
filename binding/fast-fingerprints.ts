/**
 * Every successor of a state of the fast family as its action and fingerprint: each written byte's old numbers out, the new ones in.
 *
 * Emitted by `binding/fast-emit.ts` from `binding/fast-actions.ts`: do not edit; edit the
 * description and run `npm run generate` (a test fails while this file is stale).
 */
import type { FingerprintSink } from '../checker/model.ts';
import type { Zobrist } from '../checker/zobrist.ts';
import { byHash } from './hash-whole.ts';
import { type FastFamily, hasEmptySlot, namesPageTwice, nextIn } from './family.ts';
import { BYTE_LABEL, BYTE_MISPLACED, BYTE_READ, Ph, READ_UNHELD, type State } from '../spec/state.ts';
import { timeout, landData, landTag } from './fast-fingerprints-faults.ts';

/** allocate: a new request takes the lowest free pages as its table, if there are enough (under the owner check, their tags cleared). */
function allocate(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt, holderAt, tagAt, ownerCheck, len, tableAt, free } = f;
  const { lo, hi } = z;
  let scanned = false;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.new) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!scanned) f.scanFree(s);
    scanned = true;
    if (!(f.freeCount >= l)) continue;
    let x = h1;
    let y = h2;
    let b = 0;
    let was = 0;
    let now = 0;
    for (let k = 0; k < l; k++) {
      const p = free[k]!;
      b = (holderAt + p) << 8; was = s[holderAt + p]!; now = (r + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      b = (at + k) << 8; was = s[at + k]!; now = (p) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      if (ownerCheck) { b = (tagAt + p) << 8; was = s[tagAt + p]!; now = 0; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
    }
    b = (phaseAt + r) << 8; was = phase; now = Ph.allocated; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    sink(r, x, y);
  }
}

/** prefill: P writes the request's own data into every page of its table, for its position (under the owner check, stamped with its label); under torn-write the write is only posted. A late write under revoke-writer lands nowhere. Quiet but from phase `timedOut`. */
function prefill(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt, dataAt, dataPosAt, tagAt, ownerCheck, dataPartsAt, tagPartsAt, len, tableAt, overLong } = f;
  const { lo, hi } = z;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.allocated && phase !== Ph.timedOut) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!(overLong[r] === 0)) continue;
    if (namesPageTwice(s, at, l)) {
      byHash(f, s, 1 * n + r, z, sink, phase !== Ph.timedOut);
      continue;
    }
    let x = h1;
    let y = h2;
    let b = 0;
    let was = 0;
    let now = 0;
    if (phase === Ph.timedOut && f.revokeWriter) {
      if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
      b = (phaseAt + r) << 8; was = phase; now = Ph.landed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    } else {
      if (f.tornWrite) {
        b = (dataPartsAt + r) << 8; was = s[dataPartsAt + r]!; now = 0; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
        if (ownerCheck) { b = (tagPartsAt + r) << 8; was = s[tagPartsAt + r]!; now = 0; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
        if (phase === Ph.timedOut) {
          b = (phaseAt + r) << 8; was = phase; now = Ph.landing; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
        } else {
          b = (phaseAt + r) << 8; was = phase; now = Ph.writing; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
        }
      } else {
        for (let i = 0; i < l; i++) {
          const p = s[at + i]!;
          if (p === 0xff) continue;
          b = (dataAt + p) << 8; was = s[dataAt + p]!; now = (r + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
          b = (dataPosAt + p) << 8; was = s[dataPosAt + p]!; now = (i) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
          if (ownerCheck) { b = (tagAt + p) << 8; was = s[tagAt + p]!; now = (r + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
        }
        if (phase === Ph.timedOut) {
          if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
          b = (phaseAt + r) << 8; was = phase; now = Ph.landed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
        } else {
          b = (phaseAt + r) << 8; was = phase; now = Ph.written; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
        }
      }
    }
    sink(1 * n + r, x, y, phase !== Ph.timedOut);
  }
}

/** stub: an over-long request is refused, or (silent stub) written as one dummy page at position 0 (under the owner check, stamped with its label; under torn-write, posted; late under revoke-writer, nowhere). Quiet but from phase `timedOut`. */
function stub(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt, dataAt, dataPosAt, tagAt, ownerCheck, dataPartsAt, tagPartsAt, len, tableAt, overLong } = f;
  const { lo, hi } = z;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.allocated && phase !== Ph.timedOut) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!(overLong[r] === 1)) continue;
    let x = h1;
    let y = h2;
    let b = 0;
    let was = 0;
    let now = 0;
    if (!f.silentStub) {
      if (phase === Ph.timedOut) {
        if (f.clearOn[Ph.freed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
        b = (phaseAt + r) << 8; was = phase; now = Ph.freed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      } else {
        b = (phaseAt + r) << 8; was = phase; now = Ph.refused; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      }
    } else {
      if (phase === Ph.timedOut && f.revokeWriter) {
        if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
        b = (phaseAt + r) << 8; was = phase; now = Ph.landed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      } else {
        if (f.tornWrite) {
          b = (dataPartsAt + r) << 8; was = s[dataPartsAt + r]!; now = 0; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
          if (ownerCheck) { b = (tagPartsAt + r) << 8; was = s[tagPartsAt + r]!; now = 0; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
          if (phase === Ph.timedOut) {
            b = (phaseAt + r) << 8; was = phase; now = Ph.landing; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
          } else {
            b = (phaseAt + r) << 8; was = phase; now = Ph.writing; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
          }
        } else {
          const p = s[at]!;
          if (p !== 0xff) {
            b = (dataAt + p) << 8; was = s[dataAt + p]!; now = (r + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
            b = (dataPosAt + p) << 8; was = s[dataPosAt + p]!; now = 0; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
            if (ownerCheck) { b = (tagAt + p) << 8; was = s[tagAt + p]!; now = (r + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
          }
          if (phase === Ph.timedOut) {
            if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
            b = (phaseAt + r) << 8; was = phase; now = Ph.landed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
          } else {
            b = (phaseAt + r) << 8; was = phase; now = Ph.written; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
          }
        }
      }
    }
    sink(2 * n + r, x, y, phase !== Ph.timedOut);
  }
}

/** handoff: a written request goes to decode. Quiet. */
function handoff(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt } = f;
  const { lo, hi } = z;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.written) continue;
    let x = h1;
    let y = h2;
    let b = 0;
    let was = 0;
    let now = 0;
    b = (phaseAt + r) << 8; was = phase; now = Ph.handedOff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    sink(3 * n + r, x, y, true);
  }
}

/** decode: one step reads every page of the table: read records (the worse kept), read set, unheld reads, steps, phase; under the owner check, a foreign tag fails it instead. */
function decode(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt, holderAt, dataAt, dataPosAt, tagAt, ownerCheck, flagsAt, stepsAt, observedAt, len, tableAt, readAt, sev, sevAt } = f;
  const { lo, hi } = z;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.handedOff) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    const rec0 = readAt[r]!;
    const sev0 = sevAt[r]!;
    const w = f.observedBytes;
    const o = observedAt + w * r;
    if (hasEmptySlot(s, at, l)) {
      byHash(f, s, 4 * n + r, z, sink);
      continue;
    }
    let x = h1;
    let y = h2;
    let b = 0;
    let was = 0;
    let now = 0;
    let foreign = false;
    if (ownerCheck) {
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        if (s[tagAt + p] !== r + 1) foreign = true;
      }
    }
    if (foreign) {
      b = (phaseAt + r) << 8; was = phase; now = Ph.failed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
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
        if ((old & BYTE_READ) === 0 || sev[row + record]! > sev[row + old]!) { b = (rec0 + i) << 8; was = s[rec0 + i]!; now = (record) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
        if (s[holderAt + p] !== r + 1) unheld = true;
      }
      for (let k = 0; k < w; k++) { b = (o + k) << 8; was = s[o + k]!; now = ((observed >>> (8 * k)) & 0xff) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
      if (unheld) { b = (flagsAt + r) << 8; was = s[flagsAt + r]!; now = (s[flagsAt + r]! | READ_UNHELD) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
      b = (stepsAt + r) << 8; was = s[stepsAt + r]!; now = (s[stepsAt + r]! + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      b = (phaseAt + r) << 8; was = phase; now = Ph.decoded; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    }
    sink(4 * n + r, x, y);
  }
}

/** free: the table's pages are held by nobody (under release-checks-holder, those the request still holds); the request is freed, or under stale-free a finished one released again. */
function free(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt, holderAt, len, tableAt } = f;
  const { lo, hi } = z;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.decoded && phase !== Ph.refused && phase !== Ph.failed && phase !== Ph.freed && phase !== Ph.landed) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!(f.staleFree || (phase !== Ph.freed && phase !== Ph.landed))) continue;
    if (namesPageTwice(s, at, l)) {
      byHash(f, s, 5 * n + r, z, sink);
      continue;
    }
    let x = h1;
    let y = h2;
    let b = 0;
    let was = 0;
    let now = 0;
    for (let i = 0; i < l; i++) {
      const p = s[at + i]!;
      if (p === 0xff) continue;
      if (!f.checksHolder || s[holderAt + p] === r + 1) { b = (holderAt + p) << 8; was = s[holderAt + p]!; now = 0; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
    }
    if (phase === Ph.freed || phase === Ph.landed) {
      if (f.clearOn[Ph.released] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
      b = (phaseAt + r) << 8; was = phase; now = Ph.released; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    } else {
      if (f.clearOn[Ph.freed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
      b = (phaseAt + r) << 8; was = phase; now = Ph.freed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    }
    sink(5 * n + r, x, y);
  }
}

/** Every successor of `s` as its action and fingerprint (`s`'s is `(h1, h2)`), in action order, each quiet one said so. */
export function fingerprints(f: FastFamily, s: State, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt } = f;
  let m0 = n > 31 ? -1 : 0;
  let m1 = n > 31 ? -1 : 0;
  let m2 = n > 31 ? -1 : 0;
  let m3 = n > 31 ? -1 : 0;
  let m4 = n > 31 ? -1 : 0;
  let m5 = n > 31 ? -1 : 0;
  let m6 = n > 31 ? -1 : 0;
  let m7 = n > 31 ? -1 : 0;
  let m8 = n > 31 ? -1 : 0;
  for (let r = 0; r < n && n <= 31; r++) {
    const p = s[phaseAt + r]!;
    m0 |= ((0x1 >>> p) & 1) << r;
    m1 |= ((0x102 >>> p) & 1) << r;
    m2 |= ((0x102 >>> p) & 1) << r;
    m3 |= ((0x4 >>> p) & 1) << r;
    m4 |= ((0x8 >>> p) & 1) << r;
    m5 |= ((0x2f0 >>> p) & 1) << r;
    m6 |= ((0x802 >>> p) & 1) << r;
    m7 |= ((0x1800 >>> p) & 1) << r;
    m8 |= ((0x1800 >>> p) & 1) << r;
  }
  if (m0 !== 0) allocate(f, s, m0, h1, h2, z, sink);
  if (m1 !== 0) prefill(f, s, m1, h1, h2, z, sink);
  if (m2 !== 0) stub(f, s, m2, h1, h2, z, sink);
  if (m3 !== 0) handoff(f, s, m3, h1, h2, z, sink);
  if (m4 !== 0) decode(f, s, m4, h1, h2, z, sink);
  if (m5 !== 0) free(f, s, m5, h1, h2, z, sink);
  if (m6 !== 0) timeout(f, s, m6, h1, h2, z, sink);
  if (m7 !== 0) landData(f, s, m7, h1, h2, z, sink);
  if (m8 !== 0) landTag(f, s, m8, h1, h2, z, sink);
}
