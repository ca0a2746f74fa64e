/**
 * Actions of the fast family applied: their changes written into a copy of the state. The kinds only some models have (faults `early-free`, `torn-write`).
 *
 * Emitted by `binding/fast-emit.ts` from `binding/fast-actions.ts`: do not edit; edit the
 * description and run `npm run generate` (a test fails while this file is stale).
 */
import { type FastFamily, notEnabled } from './family.ts';
import { Ph, type State } from '../spec/state.ts';

/** timeout: (fault early-free) D gives up on the transfer and frees the table's pages while P's write is in flight; the request is timed out, its table kept for the late write (posted already: landing, or under revoke-writer landed). */
export function timeout(f: FastFamily, s: State, r: number, t: State): void {
  const { phaseAt, holderAt, len, tableAt } = f;
  const base = f.base[6]!;
  const phase = s[phaseAt + r]!;
  if (phase !== Ph.allocated && phase !== Ph.writing) throw notEnabled(base + r);
  const l = len[r]!;
  const at = tableAt[r]!;
  if (!(f.earlyFree)) throw notEnabled(base + r);
  for (let i = 0; i < l; i++) {
    const p = s[at + i]!;
    if (p === 0xff) continue;
    if (!f.checksHolder || s[holderAt + p] === r + 1) { t[holderAt + p] = 0; }
  }
  if (phase === Ph.allocated) {
    t[phaseAt + r] = Ph.timedOut;
  } else {
    if (f.revokeWriter) {
      if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
      t[phaseAt + r] = Ph.landed;
    } else {
      t[phaseAt + r] = Ph.landing;
    }
  }
}

/** landData: (fault torn-write) the content part of the write's next page lands, by page id, whoever holds the page now. */
export function landData(f: FastFamily, s: State, r: number, t: State): void {
  const { phaseAt, dataAt, dataPosAt, ownerCheck, dataPartsAt, tagPartsAt, len, tableAt, overLong } = f;
  const base = f.base[7]!;
  const phase = s[phaseAt + r]!;
  if (phase !== Ph.writing && phase !== Ph.landing) throw notEnabled(base + r);
  const l = len[r]!;
  const at = tableAt[r]!;
  if (!(f.tornWrite)) throw notEnabled(base + r);
  if (!(s[dataPartsAt + r]! < (overLong[r] === 1 ? 1 : l))) throw notEnabled(base + r);
  const k = s[dataPartsAt + r]!;
  const p = s[at + k]!;
  if (p !== 0xff) {
    t[dataAt + p] = r + 1;
    t[dataPosAt + p] = k;
  }
  t[dataPartsAt + r] = k + 1;
  if (k + 1 >= (overLong[r] === 1 ? 1 : l) && (!ownerCheck || s[tagPartsAt + r]! >= (overLong[r] === 1 ? 1 : l))) {
    if (phase === Ph.landing) {
      if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
      t[phaseAt + r] = Ph.landed;
    } else {
      t[phaseAt + r] = Ph.written;
    }
  }
}

/** landTag: (fault torn-write, owner check) the tag part of the write's next page lands, by page id, whoever holds the page now. */
export function landTag(f: FastFamily, s: State, r: number, t: State): void {
  const { phaseAt, tagAt, dataPartsAt, tagPartsAt, len, tableAt, overLong } = f;
  const base = f.base[8]!;
  const phase = s[phaseAt + r]!;
  if (phase !== Ph.writing && phase !== Ph.landing) throw notEnabled(base + r);
  const l = len[r]!;
  const at = tableAt[r]!;
  if (!(f.tornWrite && f.ownerCheck)) throw notEnabled(base + r);
  if (!(s[tagPartsAt + r]! < (overLong[r] === 1 ? 1 : l))) throw notEnabled(base + r);
  const k = s[tagPartsAt + r]!;
  const p = s[at + k]!;
  if (p !== 0xff) { t[tagAt + p] = r + 1; }
  t[tagPartsAt + r] = k + 1;
  if (k + 1 >= (overLong[r] === 1 ? 1 : l) && s[dataPartsAt + r]! >= (overLong[r] === 1 ? 1 : l)) {
    if (phase === Ph.landing) {
      if (f.clearOn[Ph.landed] === 1) { for (let i = 0; i < l; i++) { t[at + i] = 0xff; } }
      t[phaseAt + r] = Ph.landed;
    } else {
      t[phaseAt + r] = Ph.written;
    }
  }
}
