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
