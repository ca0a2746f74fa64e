/**
 * Successors of the fast family as their actions and fingerprints: each written byte's old numbers out, the new ones in. The kinds only some models have (faults `early-free`, `torn-write`).
 *
 * Emitted by `binding/fast-emit.ts` from `binding/fast-actions.ts`: do not edit; edit the
 * description and run `npm run generate` (a test fails while this file is stale).
 */
import type { FingerprintSink } from '../checker/model.ts';
import type { Zobrist } from '../checker/zobrist.ts';
import { byHash } from './hash-whole.ts';
import { type FastFamily, namesPageTwice, nextIn } from './family.ts';
import { Ph, type State } from '../spec/state.ts';

/** timeout: (fault early-free) D gives up on the transfer and frees the table's pages while P's write is in flight; the request is timed out, its table kept for the late write (posted already: landing, or under revoke-writer landed). */
export function timeout(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt, holderAt, len, tableAt } = f;
  const { lo, hi } = z;
  if (!(f.earlyFree)) return;
  const base = f.base[6]!;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.allocated && phase !== Ph.writing) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (namesPageTwice(s, at, l)) {
      byHash(f, s, base + r, z, sink);
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
    if (phase === Ph.allocated) {
      b = (phaseAt + r) << 8; was = phase; now = Ph.timedOut; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    } else {
      if (f.revokeWriter) {
        if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
        b = (phaseAt + r) << 8; was = phase; now = Ph.landed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      } else {
        b = (phaseAt + r) << 8; was = phase; now = Ph.landing; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      }
    }
    sink(base + r, x, y);
  }
}

/** landData: (fault torn-write) the content part of the write's next page lands, by page id, whoever holds the page now. Quiet but from phase `landing`. */
export function landData(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt, dataAt, dataPosAt, ownerCheck, dataPartsAt, tagPartsAt, len, tableAt, overLong } = f;
  const { lo, hi } = z;
  if (!(f.tornWrite)) return;
  const base = f.base[7]!;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.writing && phase !== Ph.landing) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!(s[dataPartsAt + r]! < (overLong[r] === 1 ? 1 : l))) continue;
    let x = h1;
    let y = h2;
    let b = 0;
    let was = 0;
    let now = 0;
    const k = s[dataPartsAt + r]!;
    const p = s[at + k]!;
    if (p !== 0xff) {
      b = (dataAt + p) << 8; was = s[dataAt + p]!; now = (r + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      b = (dataPosAt + p) << 8; was = s[dataPosAt + p]!; now = (k) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    }
    b = (dataPartsAt + r) << 8; was = s[dataPartsAt + r]!; now = (k + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    if (k + 1 >= (overLong[r] === 1 ? 1 : l) && (!ownerCheck || s[tagPartsAt + r]! >= (overLong[r] === 1 ? 1 : l))) {
      if (phase === Ph.landing) {
        if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
        b = (phaseAt + r) << 8; was = phase; now = Ph.landed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      } else {
        b = (phaseAt + r) << 8; was = phase; now = Ph.written; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      }
    }
    sink(base + r, x, y, phase !== Ph.landing);
  }
}

/** landTag: (fault torn-write, owner check) the tag part of the write's next page lands, by page id, whoever holds the page now. Quiet but from phase `landing`. */
export function landTag(f: FastFamily, s: State, rs: number, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const { n, phaseAt, tagAt, dataPartsAt, tagPartsAt, len, tableAt, overLong } = f;
  const { lo, hi } = z;
  if (!(f.tornWrite && f.ownerCheck)) return;
  const base = f.base[8]!;
  for (let r = nextIn(rs, -1, n); r < n; r = nextIn(rs, r, n)) {
    const phase = s[phaseAt + r]!;
    if (phase !== Ph.writing && phase !== Ph.landing) continue;
    const l = len[r]!;
    const at = tableAt[r]!;
    if (!(s[tagPartsAt + r]! < (overLong[r] === 1 ? 1 : l))) continue;
    let x = h1;
    let y = h2;
    let b = 0;
    let was = 0;
    let now = 0;
    const k = s[tagPartsAt + r]!;
    const p = s[at + k]!;
    if (p !== 0xff) { b = (tagAt + p) << 8; was = s[tagAt + p]!; now = (r + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; }
    b = (tagPartsAt + r) << 8; was = s[tagPartsAt + r]!; now = (k + 1) & 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
    if (k + 1 >= (overLong[r] === 1 ? 1 : l) && s[dataPartsAt + r]! >= (overLong[r] === 1 ? 1 : l)) {
      if (phase === Ph.landing) {
        if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { b = (at + i) << 8; was = s[at + i]!; now = 0xff; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!; } }
        b = (phaseAt + r) << 8; was = phase; now = Ph.landed; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      } else {
        b = (phaseAt + r) << 8; was = phase; now = Ph.written; x ^= lo[b | was]! ^ lo[b | now]!; y ^= hi[b | was]! ^ hi[b | now]!;
      }
    }
    sink(base + r, x, y, phase !== Ph.landing);
  }
}
