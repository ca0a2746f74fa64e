/**
 * P's write set: which table positions of a request P writes, and what it writes there.
 * `prefill` writes every position except the shared prefix pages, page `j` of the
 * prefix's content at position `j` of the prefix's positions and the request's own body
 * elsewhere; a silent `stub` writes one dummy page,
 * the request's body at its first own position. A write is addressed by table position:
 * P got the page ids from D's metadata, and writes them by id, whoever holds them now.
 * Under fault `torn-write` the write lands as parts, numbered `k = 0 .. count-1` in table
 * order, one content and one tag part per position.
 */
import { bodyLabel, isPrefixPosition, prefixLabel, type Model } from './model.ts';
import { sharedPages, type State } from './state.ts';

/** Whether P's write for request `r` is a stub (the request is longer than P's memory). */
export function isStubWrite(m: Model, r: number): boolean {
  return (m.len[r] ?? 0) > m.config.prefillLimit;
}

/** The first table position P writes for `r`: past the shared prefix pages. */
function firstWritten(m: Model, s: State, r: number): number {
  return sharedPages(m, s, r);
}

/** How many pages P's write for `r` covers. */
export function writeCount(m: Model, s: State, r: number): number {
  if (isStubWrite(m, r)) return 1;
  return (m.len[r] ?? 0) - firstWritten(m, s, r);
}

/** The table position of part `k` of P's write for `r`. */
export function writePosition(m: Model, s: State, r: number, k: number): number {
  return firstWritten(m, s, r) + k;
}

/** The label P writes for `r` at table position `i`: page `i` of its prefix's at the prefix's positions (not for a stub), else its own. */
export function writeLabel(m: Model, r: number, i: number): number {
  return isPrefixPosition(m, r, i) && !isStubWrite(m, r) ? prefixLabel(m, m.group[r] ?? -1, i) : bodyLabel(r);
}
