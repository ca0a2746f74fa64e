/**
 * The prefix cache's own actions. A decoded request's prefix pages enter the cache
 * (`insert`), and under eviction an allocation short of pages evicts an unlocked entry
 * (`evict`). Hitting an entry and locking it are `hold.ts`'s.
 */
import { freeEntries, put } from './allocator.ts';
import { canInsertPath, evictableLeaf, evictLeaf, insertPath, matchDepth } from './radix.ts';
import { bodyLabel, groupOfLabel, NO_PAGE, prefixLabel, prefixLength, type Model } from './model.ts';
import { addFlags, cachedPage, entryCached, entryEmpty, holderOf, INSERTED, phaseOf, Ph, setHolder, sharesFirstPage, tablePage, tableRoom, EVICTED_FOR, lockOf, setLock, type State } from './state.ts';

/**
 * The prefix cache evicts to make room (`RadixCache.evict`): D finds too few free pages
 * for the request's allocation and frees an unlocked cached prefix entry. SGLang evicts
 * whole leaf nodes of its radix tree, page aligned: it pops the evictable leaf of lowest
 * priority (lock count 0, no child), frees all the node's pages in one call (`free(x.value)`)
 * and goes on until it has freed enough, a parent becoming evictable once its last child
 * is gone. In the model every request with a prefix shares the whole prefix, so a
 * prefix's entry is one node of `k` pages and a leaf (the requests' own pages are never
 * inserted); one `evict` frees one entry, whole, and an allocation still short evicts
 * again. The priority (least recently used, by default) is abstracted to a fixed choice.
 * @guard Eviction is on, the request is new and its allocation finds fewer free pages
 * than it needs, and the cache holds pages, with lock count 0, of a prefix other than the
 * request's own (the request's own prefix is matched, and so locked, first). Or the
 * request is retracted and its resume finds fewer free pages than its table's room: its
 * resume matches no prefix (retraction.ts), so any unlocked entry may go, its own too.
 * @effect The entry that holds the lowest such page leaves the cache: all its pages go
 * back to the free list in one release (ascending, as every release), contents
 * untouched; the request is marked as the one evicted for. Under `radix` one leaf goes:
 * the lowest page that is a leaf of another prefix's path with `lock_ref <= 0` (below 0
 * counts as evictable), its parent a leaf once it was the last child (spec/radix.ts).
 */
export function evict(m: Model, s: State, r: number): State | undefined {
  if (!m.eviction) return undefined;
  const phase = phaseOf(m, s, r);
  if (phase !== Ph.new && phase !== Ph.retracted) return undefined;
  // A resume matches nothing: no entry of its own to protect.
  const g = phase === Ph.new ? (m.group[r] ?? -1) : -1;
  const need = phase === Ph.new ? (m.promptPages[r] ?? 0) - matchedPages(m, s, r) : tableRoom(m, s, r);
  if (freeEntries(m, s) >= need) return undefined;
  if (m.radix) return evictRadix(m, s, r, g);
  let victim = -1;
  for (let p = m.firstPage; p < m.pages && victim < 0; p++) {
    const v = groupOfLabel(m, holderOf(m, s, p));
    if (v >= 0 && v !== g && lockOf(m, s, v) === 0) victim = v;
  }
  if (victim < 0) return undefined;
  const t = s.slice();
  const pages: number[] = [];
  for (let j = 0; j < (m.prefixPages[victim] ?? 1); j++) {
    const p = cachedPage(m, s, victim, j);
    if (p < 0) continue;
    setHolder(m, t, p, 0);
    pages.push(p);
  }
  put(m, s, t, pages);
  addFlags(m, t, r, EVICTED_FOR);
  return t;
}

/** The pages a new request `r`'s allocation would share with the cache: its whole prefix on a hit; under `radix` its matched path. */
function matchedPages(m: Model, s: State, r: number): number {
  const g = m.group[r] ?? -1;
  if (g < 0) return 0;
  if (m.radix) return matchDepth(m, s, g);
  return entryCached(m, s, g) ? prefixLength(m, r) : 0;
}

/**
 * Under `radix`: one evictable leaf goes (radix.ts's `evictableLeaf`: a leaf of another
 * prefix than `own`, `lock_ref <= 0`, the lowest page), its page freed; its parent is a
 * leaf once this was its last child, and a later `evict` may take it.
 */
function evictRadix(m: Model, s: State, r: number, own: number): State | undefined {
  const p = evictableLeaf(m, s, own);
  if (p < 0) return undefined;
  const t = s.slice();
  evictLeaf(m, s, t, p);
  addFlags(m, t, r, EVICTED_FOR);
  return t;
}

/**
 * D inserts the request's prefix pages into the prefix cache (`cache_finished_req`), so
 * that a later request with the same prefix reuses them instead of computing them again.
 * @guard The request has a prefix, the cache holds no page of that prefix's entry, the
 * request still holds its own pages at every prefix position, and it decoded. With fault
 * `prefix-poison`, also a request that was refused or failed: those pages were never
 * written for the prefix.
 * @effect The pages at the prefix's positions `0 .. k-1` are held by the prefix cache
 * entry, page `j` as the entry's page `j`, no longer by the request; their content is
 * untouched. Under eviction the request locks the entry until its release. Under `radix`
 * the request's pages past its path's depth become nodes and its path is locked to the
 * prefix's end, as the handoff's insert does; after that insert there is nothing left, so
 * this fires only for a request never handed off (spec/radix.ts).
 */
export function insert(m: Model, s: State, r: number): State | undefined {
  // The guards are conjuncts: the phase, cheapest and most often false, is tested first.
  const phase = phaseOf(m, s, r);
  const poison = m.fault['prefix-poison'] && (phase === Ph.refused || phase === Ph.failed);
  if (phase !== Ph.decoded && !poison) return undefined;
  if (m.radix) return insertRadix(m, s, r);
  const g = m.group[r] ?? -1;
  if (g < 0 || sharesFirstPage(m, s, r) || !entryEmpty(m, s, g)) return undefined;
  const k = prefixLength(m, r);
  for (let j = 0; j < k; j++) {
    const p = tablePage(m, s, r, j);
    if (p === NO_PAGE || holderOf(m, s, p) !== bodyLabel(r)) return undefined;
  }
  const t = s.slice();
  for (let j = 0; j < k; j++) setHolder(m, t, tablePage(m, s, r, j), prefixLabel(m, g, j));
  addFlags(m, t, r, INSERTED);
  // Under eviction the inserting request holds a lock on the entry until its own release.
  if (m.eviction) setLock(m, t, g, lockOf(m, s, g) + 1);
  return t;
}

/**
 * Under `radix`, the insert at finish (`cache_finished_req`): the request's prefix pages
 * past its last node enter the tree, as at the handoff (radix.ts's `insertPath`). After the
 * handoff's insert its path already reaches the prefix's end, and this finds nothing to
 * insert (SGLang's insert returns the whole length as already there): it is enabled only
 * for a request that was never handed off (fault `prefix-poison`).
 */
function insertRadix(m: Model, s: State, r: number): State | undefined {
  if (!canInsertPath(m, s, r)) return undefined;
  const t = s.slice();
  insertPath(m, s, t, r);
  return t;
}
