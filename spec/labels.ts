/**
 * The content labels: one alphabet for a page's data, its owner tag and its holder (see
 * `model.ts`): `0` is nobody, `1..n` request `r = label - 1`, and above `n` one label per
 * page of each prompt prefix, which also says the position that page is valid at. These
 * are the label's readers: whose it is, which page of a prefix, and what a request may read
 * where. The owner check, `Isolation` and `Integrity` all ask them.
 */
import type { Model } from './model.ts';

/** The label of request `r`'s own data (and of `r` as a holder). */
export function bodyLabel(r: number): number {
  return r + 1;
}

/** The label of page `j` of prefix group `g`'s data (and of that page's slot in its prefix-cache entry, as a holder); page 0 when `j` is left out. A nested prefix's first pages are its parent's: the parent's labels (spec/nesting.ts). */
export function prefixLabel(m: Model, g: number, j = 0): number {
  const base = m.prefixBase[g];
  if (base === undefined) throw new Error(`model: no prefix group ${g}`);
  const from = m.prefixFrom[g]!;
  if (j < from) return prefixLabel(m, m.prefixParent[g]!, j);
  return m.n + 1 + base + j - from;
}

/** Whether prefix group `g` is group `h` or extends it (`sys/doc` extends `sys`): `h`'s pages are `g`'s first pages. */
export function groupExtends(m: Model, g: number, h: number): boolean {
  for (let k = g; k >= 0; k = m.prefixParent[k]!) if (k === h) return true;
  return false;
}

/** The prefix group of a prefix label (one above `n`), or -1 for a request's label or nobody; for a nested prefix's first pages, the parent that owns the label. */
export function groupOfLabel(m: Model, label: number): number {
  if (label <= m.n) return -1;
  for (let g = m.groups - 1; g >= 0; g--) if (label - m.n - 1 >= m.prefixBase[g]!) return g;
  return -1;
}

/** Which page of its prefix a prefix label names (its position), or -1 for a request's label or nobody. */
export function prefixPageOfLabel(m: Model, label: number): number {
  const g = groupOfLabel(m, label);
  return g < 0 ? -1 : label - m.n - 1 - m.prefixBase[g]! + m.prefixFrom[g]!;
}

/** How many pages request `r`'s prefix has: the table positions it covers (0 without a prefix). */
export function prefixLength(m: Model, r: number): number {
  const g = m.group[r]!;
  return g < 0 ? 0 : m.prefixPages[g]!;
}

/** The labels request `r` may legitimately read somewhere in its table: its own data and its prefix's pages (a nested prefix's first pages are its parent's labels). */
export function mayRead(m: Model, r: number, label: number): boolean {
  if (label === bodyLabel(r)) return true;
  const g = m.group[r]!;
  const h = groupOfLabel(m, label);
  return g >= 0 && h >= 0 && groupExtends(m, g, h);
}

/** Whether table position `i` of request `r` is one of its prefix's positions (`0 .. k-1` for a prefix of `k` pages). */
export function isPrefixPosition(m: Model, r: number, i: number): boolean {
  return i >= 0 && i < prefixLength(m, r);
}

/**
 * The labels request `r` may read at table position `i`: its own data anywhere, page `i`
 * of its prefix only at position `i`, the prefix's position for that page. The owner
 * check and `Isolation` both ask this.
 */
export function mayReadAt(m: Model, r: number, i: number, label: number): boolean {
  if (label === bodyLabel(r)) return true;
  return isPrefixPosition(m, r, i) && label === prefixLabel(m, m.group[r]!, i);
}

/** Whether a label names a request's body (not a prefix, not nobody). */
export function isBodyLabel(m: Model, label: number): boolean {
  return label >= 1 && label <= m.n;
}

/** A label in words: `A`, `prefix sys` (a one-page prefix), `prefix sys[1]` (page 1 of a longer one), or `nobody`. */
export function labelName(m: Model, label: number): string {
  if (label === 0) return 'nobody';
  if (label === m.staleLabel) return 'stale P-side data';
  if (label <= m.n) return m.config.requests[label - 1]?.name ?? `?${label}`;
  const g = groupOfLabel(m, label);
  const name = m.groupNames[g] ?? '?';
  return m.prefixPages[g]! > 1 ? `prefix ${name}[${prefixPageOfLabel(m, label)}]` : `prefix ${name}`;
}
