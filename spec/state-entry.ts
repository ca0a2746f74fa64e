/**
 * The prefix cache's entries in a state: an entry's pages are the pages held by its
 * prefix's labels (`model.ts`), and under eviction an entry has a lock count. Read and set
 * through the accessors below.
 */
import { prefixLabel, type Model } from './model.ts';
import type { State } from './state.ts';
import { absentWrite } from './state-bytes.ts';
import { holderOf } from './state-page.ts';

/** The page cached for page `j` of prefix group `g` (table position `j`), or -1 when the cache holds none. */
export function cachedPage(m: Model, s: State, g: number, j: number): number {
  const label = prefixLabel(m, g, j);
  for (let p = 0; p < m.pages; p++) if (holderOf(m, s, p) === label) return p;
  return -1;
}

/** Whether the cache holds every page of prefix group `g`'s entry: a request with that prefix hits it. */
export function entryCached(m: Model, s: State, g: number): boolean {
  for (let j = 0; j < m.prefixPages[g]!; j++) if (cachedPage(m, s, g, j) < 0) return false;
  return true;
}

/** Whether the cache holds no page of prefix group `g`'s entry: a request with that prefix may insert one. */
export function entryEmpty(m: Model, s: State, g: number): boolean {
  for (let j = 0; j < m.prefixPages[g]!; j++) if (cachedPage(m, s, g, j) >= 0) return false;
  return true;
}

/** Prefix group `g`'s lock count: how many live requests that hit the cache read its pages (0 without eviction). */
export function lockOf(m: Model, s: State, g: number): number {
  return m.lockAt < 0 ? 0 : s[m.lockAt + g]!;
}

/** Prefix group `g`'s lock count becomes `count` (under eviction only). */
export function setLock(m: Model, t: State, g: number, count: number): void {
  if (m.lockAt < 0) return absentWrite('lock', count);
  t[m.lockAt + g] = count;
}

/** Under `radix`: the lock_ref of the tree node that page `p` is (signed; 0 while the page is no node, and 0 without the tree). */
export function nodeLockOf(m: Model, s: State, p: number): number {
  const f = m.layout.fields.nodeLock;
  // A signed byte: SGLang's lock_ref has no floor, and the model keeps its sign.
  return f === undefined ? 0 : (s[f.at + p]! << 24) >> 24;
}

/** Under `radix`: the lock_ref of page `p`'s node becomes `count` (-128 .. 127). */
export function setNodeLock(m: Model, t: State, p: number, count: number): void {
  const f = m.layout.fields.nodeLock;
  if (f === undefined) return absentWrite('nodeLock', count);
  if (count < -128 || count > 127) throw new Error(`state: lock_ref ${count} does not fit a signed byte`);
  t[f.at + p] = count & 0xff;
}

/** Under `radix`: the depth of request `r`'s last node, the leading table positions that are tree nodes it locked (0 without the tree). */
export function depthOf(m: Model, s: State, r: number): number {
  const f = m.layout.fields.depth;
  return f === undefined ? 0 : s[f.at + r]!;
}

/** Under `radix`: request `r`'s last node is at depth `d`. */
export function setDepth(m: Model, t: State, r: number, d: number): void {
  const f = m.layout.fields.depth;
  if (f === undefined) return absentWrite('depth', d);
  t[f.at + r] = d;
}

/** Under `loadback`: whether prefix group `g`'s host slot was reused for another request's KV (its copy evicted); `false` while it holds the prefix's KV, and always without `loadback`. */
export function hostReusedOf(m: Model, s: State, g: number): boolean {
  const f = m.layout.fields.hostCopy;
  return f !== undefined && s[f.at + g] === 1;
}

/** Under `loadback`: prefix group `g`'s host copy is evicted and its slot reused for another request's KV. */
export function setHostReused(m: Model, t: State, g: number): void {
  const f = m.layout.fields.hostCopy;
  if (f === undefined) return absentWrite('hostCopy', 1);
  t[f.at + g] = 1;
}
