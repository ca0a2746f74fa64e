/**
 * What a read means. A decode step reads every page of its table; what it read at table
 * position `i` is one of three things, and the two invariants about reads are defined by
 * them:
 * - `ok`: content written for this request at position `i` (its own body), or page `i`
 *   of its prefix at position `i`, one of the prefix's positions;
 * - `integrity`: not another user's data, but not content written for this position
 *   either: a page never written (a stub over pages nobody wrote), or the request's own
 *   content written for another position. The answer is garbage; nothing leaked;
 * - `isolation`: another request's data, or a page of its prefix at a position that is
 *   not that page's (past the prefix, or page `j` of it at position `i != j`: a
 *   misplaced prefix page is as wrong as another user's page, and was written by another
 *   request). This is a leak, and also garbage: it breaks `Integrity` too.
 *
 * "During its current hold": every request is allocated once, so the request's own
 * content in a page of its table was written during its one hold; page `j` of a prefix's
 * content at position `j` is the same KV whoever computed it, and when.
 */
import { bodyLabel, isPrefixPosition, mayReadAt, type Model } from './model.ts';
import { MISPLACED, READ, READ_LABEL } from './state.ts';

/** What a read was, from best to worst. */
export type ReadVerdict = 'ok' | 'integrity' | 'isolation';

/** The record of reading content `label`, written for position `pos`, at table position `i`. */
export function readRecord(label: number, pos: number, i: number): number {
  return READ | (label & READ_LABEL) | (label !== 0 && pos !== i ? MISPLACED : 0);
}

/** What a read record of request `r` at position `i` says (an unread position is `ok`). */
export function verdictOf(m: Model, r: number, i: number, record: number): ReadVerdict {
  if ((record & READ) === 0) return 'ok';
  const label = record & READ_LABEL;
  if (label === 0) return 'integrity';
  if (!mayReadAt(m, r, i, label)) return 'isolation';
  if ((record & MISPLACED) !== 0) return 'integrity';
  return label === bodyLabel(r) || isPrefixPosition(m, r, i) ? 'ok' : 'integrity';
}

/** A verdict's rank: a worse read is a greater number. */
export function severity(v: ReadVerdict): number {
  return v === 'ok' ? 0 : v === 'integrity' ? 1 : 2;
}

/** The record to keep after reading `next` where `old` was recorded: the worse, the first of equals. */
export function keptRecord(m: Model, r: number, i: number, old: number, next: number): number {
  if ((old & READ) === 0) return next;
  return severity(verdictOf(m, r, i, next)) > severity(verdictOf(m, r, i, old)) ? next : old;
}
