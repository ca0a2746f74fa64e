/**
 * P's write set: which table positions of a request P writes, and what it writes there.
 * `prefill` writes every position except the shared prefix pages, page `j` of the
 * prefix's content at position `j` of the prefix's positions and the request's own body
 * elsewhere; a silent `stub` writes one dummy page,
 * the request's body at its first own position. With token slots (`slots.ts`) a write
 * also says how many slots of each page it fills: a whole page but for the prompt's last
 * one, whose tail is P's stale data; a stub's dummy is one token. Under fault
 * `auto-truncate` an over-long prompt is prefilled cut to the prefill limit: only the
 * pages, and the slots, of its first `prefillLimit` tokens. A write is addressed by table position:
 * P got the page ids from D's metadata, and writes them by id, whoever holds them now.
 * Under fault `torn-write` the write lands as parts, numbered `k = 0 .. count-1` in table
 * order, one content and one tag part per position.
 */
import { bodyLabel, isOverLong, isPrefixPosition, prefixLabel, type Model } from './model.ts';
import { flagsOf, HIT, sharedPages, type State } from './state.ts';
import { loadedPages } from './loadback.ts';

/** Whether P's write for request `r` is a stub (the request is too long for P's memory, and P does not truncate it). */
export function isStubWrite(m: Model, r: number): boolean {
  return isOverLong(m, r) && !m.fault['auto-truncate'];
}

/** How many of the prompt's tokens P's prefill writes: all of them, or under `auto-truncate` an over-long prompt cut to the limit. */
export function prefilledTokens(m: Model, r: number): number {
  const tokens = m.tokens[r] ?? 0;
  return isOverLong(m, r) && m.fault['auto-truncate'] ? Math.min(tokens, m.config.prefillLimit) : tokens;
}

/**
 * The first table position P writes for `r`: past the shared prefix pages. Under
 * `premature-success` a request can insert its prefix while parts of its write are still
 * landing, and the insert must move none of them: there, past a hit's prefix pages only
 * (the write's pages were fixed when D sent them). Elsewhere the first rule stands, the
 * one the proof, the pool and the scale reference follow: an insert mostly comes after the
 * write has landed; the exception, a timed-out request's poisoned insert before its late
 * write (prefix-poison with early-free), skips the cached pages, a simplification kept.
 */
function firstWritten(m: Model, s: State, r: number): number {
  // With `loadback`, a prefix loaded from host memory is not P's to write (loadback.ts).
  if (m.fault['premature-success']) return (flagsOf(m, s, r) & HIT) !== 0 ? sharedPages(m, s, r) : loadedPages(m, s, r);
  return sharedPages(m, s, r) + loadedPages(m, s, r);
}

/** How many pages P's write for `r` covers. */
export function writeCount(m: Model, s: State, r: number): number {
  if (isStubWrite(m, r)) return 1;
  return Math.max(0, Math.ceil(prefilledTokens(m, r) / m.pageSize) - firstWritten(m, s, r));
}

/** How many slots, from the first, P's write for `r` fills in the page at table position `i`: the stub's one token, else the prompt's tokens there. */
export function writeSlots(m: Model, r: number, i: number): number {
  if (isStubWrite(m, r)) return 1;
  return Math.min(m.pageSize, prefilledTokens(m, r) - i * m.pageSize);
}

/** The table position of part `k` of P's write for `r`. */
export function writePosition(m: Model, s: State, r: number, k: number): number {
  return firstWritten(m, s, r) + k;
}

/** The label P writes for `r` at table position `i`: page `i` of its prefix's at the prefix's positions (not for a stub), else its own. */
export function writeLabel(m: Model, r: number, i: number): number {
  return isPrefixPosition(m, r, i) && !isStubWrite(m, r) ? prefixLabel(m, m.group[r] ?? -1, i) : bodyLabel(r);
}
