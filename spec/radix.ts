/**
 * The prefix cache as a radix tree (config `radix`, under eviction). Read from
 * `sgl-project/sglang`, `python/sglang/srt/mem_cache/radix_cache.py`:
 * - `TreeNode`: a node has a parent, children, a value (its pages) and a `lock_ref`; the
 *   root's `lock_ref` is 1 and never changes.
 * - `match_prefix` (`_match_prefix_helper`): walks from the root down the children whose
 *   key matches the next page of the request's tokens, page aligned, and returns the
 *   matched pages and the last node reached: a partial match shares the pages it matched.
 * - `insert` (`_insert_helper`): walks the same path, and hangs the rest of the key under
 *   the last node it reached as a new node; it returns the length that was already there.
 * - `cache_unfinished_req`: inserts every page-aligned page of the request's tokens, frees
 *   the request's own pages that the tree already held (`kv_indices[cache_protected_len:
 *   new_prefix_len]`), points the request's row at the tree's pages, then
 *   `dec_lock_ref(req.last_node)` and `inc_lock_ref(new_last_node)`. On D, the prebuilt
 *   batch's `process_prebuilt` (the decode side's `ScheduleBatch` mixin, `disaggregation/`)
 *   calls it through `maybe_cache_unfinished_req(req, self.tree_cache)` at the handoff,
 *   before the first decode; `disaggregation/decode.py` counts the tree's evictable size
 *   as free under `disaggregation_decode_enable_radix_cache` (`_allocatable_token_budgets`).
 * - `cache_finished_req`: inserts prompt and output at the end, frees the duplicates and the
 *   unaligned tail, then `dec_lock_ref(req.last_node)`.
 * - `inc_lock_ref` / `dec_lock_ref`: walk from the node to the root, adding or taking 1 at
 *   every node on the way. `dec_lock_ref` has no floor: a node may go below 0.
 * - `evict`: pops the evictable leaves in the eviction policy's order (least recently used
 *   by default), frees each one's pages (`free(x.value)`), deletes it, and pushes its
 *   parent once the parent has no child and `lock_ref == 0`. `_update_leaf_status` counts a
 *   node as an evictable leaf unless it is evicted or `lock_ref > 0`: a node at
 *   `lock_ref < 0` is evictable (SGLang #27666 logs `protected=-12`).
 *
 * In the model. A node is one cached prefix page: the page held by label `prefixLabel(g,
 * j)` is node `j` of prefix `g`'s path, its parent node `j - 1` (node 0's parent is the
 * root). Requests with the same prefix name share the path; a prefix that extends another
 * (`sys/doc` extends `sys`, spec/nesting.ts) shares the other's nodes as its first pages
 * and has nodes of its own past them, children of the other's last node; requests whose
 * prefixes neither extends the other share no node. A node's `lock_ref` is kept at its page (`nodeLock`, a signed byte, 0 while the
 * page is no node), and a request's `last_node` as the depth of its path (`depth`). The
 * tree holds only prefix pages: a request's pages past its prefix would be a branch that
 * no other request of the model matches (no two requests share a body), which the model
 * frees with the request instead of leaving to eviction.
 *
 * Fault `lock-underflow` under the tree: a release walks `dec_lock_ref` from its last node
 * twice (the request is unlocked by two paths of its release, as in #27666), so it cancels
 * another request's lock on the same nodes, and with no floor a node can go below 0.
 */
import { put } from './allocator.ts';
import { bodyLabel, groupExtends, groupOfLabel, NO_PAGE, prefixLabel, prefixLength, prefixPageOfLabel, type Model } from './model.ts';
import { addFlags, cachedPage, depthOf, holderOf, INSERTED, nodeLockOf, setDepth, setHolder, setNodeLock, setTablePage, tablePage, type State } from './state.ts';

/** How many nodes of prefix group `g`'s path, from the root, the tree holds: `match_prefix`'s matched length, in pages (at most the prefix's length). */
export function matchDepth(m: Model, s: State, g: number): number {
  const k = m.prefixPages[g] ?? 0;
  let d = 0;
  while (d < k && cachedPage(m, s, g, d) >= 0) d++;
  return d;
}

/** Whether node `j` of prefix group `g`'s path is a leaf of the tree: cached, and no path through it (`g`'s own, or a prefix's that extends `g`, spec/nesting.ts) has its child `j + 1` cached. */
export function isLeaf(m: Model, s: State, g: number, j: number): boolean {
  if (cachedPage(m, s, g, j) < 0) return false;
  const label = prefixLabel(m, g, j);
  for (let h = 0; h < m.groups; h++) {
    if (j + 1 >= (m.prefixPages[h] ?? 0) || prefixLabel(m, h, j) !== label) continue;
    if (cachedPage(m, s, h, j + 1) >= 0) return false;
  }
  return true;
}

/**
 * Adds `delta` to the `lock_ref` of every node on request `r`'s path at positions
 * `[from, to)` (read in `t`): `inc_lock_ref` / `dec_lock_ref` walking to the root. A position
 * whose page is no longer that node (evicted while `r` read it) is a node the tree no
 * longer has: SGLang's walk changes a detached node, which nothing reads again.
 */
export function addLocks(m: Model, t: State, r: number, from: number, to: number, delta: number): void {
  const g = m.group[r] ?? -1;
  if (g < 0) return;
  for (let j = from; j < to; j++) {
    const p = tablePage(m, t, r, j);
    if (p === NO_PAGE || cachedPage(m, t, g, j) !== p) continue;
    setNodeLock(m, t, p, nodeLockOf(m, t, p) + delta);
  }
}

/**
 * Request `r`'s release unlocks its path (`dec_lock_ref(req.last_node)`), no floor; with
 * fault `lock-underflow`, twice. Under `hardened`'s `unlock-once` the unlock moves the
 * request's last node to the root, so the second walks nothing.
 */
export function unlockPath(m: Model, s: State, t: State, r: number): void {
  const times = m.fault['lock-underflow'] ? 2 : 1;
  for (let k = 0; k < times; k++) {
    addLocks(m, t, r, 0, depthOf(m, t, r), -1);
    if (m.mechanism['unlock-once']) setDepth(m, t, r, 0);
  }
}

/**
 * Request `r` inserts its prompt's prefix pages into the tree (`cache_unfinished_req` at the
 * handoff, or `cache_finished_req`), in `t`: at each position `j` from its last node's depth
 * to its prefix's end, a node the tree already holds replaces `r`'s own page (which goes
 * back to the free list, a duplicate), and otherwise `r`'s page becomes node `j`. Then its
 * last node is the prefix's last page: the nodes past its old depth are locked once more
 * (`dec_lock_ref` of the old last node, `inc_lock_ref` of the new one).
 */
export function insertPath(m: Model, s: State, t: State, r: number): void {
  const g = m.group[r] ?? -1;
  const k = prefixLength(m, r);
  const from = depthOf(m, s, r);
  const duplicates: number[] = [];
  for (let j = from; j < k; j++) {
    const own = tablePage(m, s, r, j);
    const node = cachedPage(m, t, g, j);
    if (node >= 0 && node !== own) {
      setHolder(m, t, own, 0);
      duplicates.push(own);
      setTablePage(m, t, r, j, node);
    } else setHolder(m, t, own, prefixLabel(m, g, j));
  }
  put(m, t, t, duplicates);
  addLocks(m, t, r, from, k, +1);
  setDepth(m, t, r, k);
  addFlags(m, t, r, INSERTED);
}

/** Whether request `r` can insert: it has a prefix, its path ends before the prefix's end, and it holds its own pages at the rest of the prefix's positions. */
export function canInsertPath(m: Model, s: State, r: number): boolean {
  const g = m.group[r] ?? -1;
  if (g < 0) return false;
  const k = prefixLength(m, r);
  const from = depthOf(m, s, r);
  if (from >= k) return false;
  for (let j = from; j < k; j++) {
    const p = tablePage(m, s, r, j);
    if (p === NO_PAGE || holderOf(m, s, p) !== bodyLabel(r)) return false;
  }
  return true;
}

/**
 * The leaf that an eviction for a request of prefix group `own` (-1: none to protect)
 * frees: the node on the lowest page that is a leaf, not on `own`'s path (a nested
 * prefix's path goes through its parent's nodes), with `lock_ref <= 0` (`lock_ref > 0`
 * protects; below 0 does not). SGLang pops the least recently used; the model abstracts
 * the policy to this fixed choice. Returns the page, or -1.
 */
export function evictableLeaf(m: Model, s: State, own: number): number {
  for (let p = m.firstPage; p < m.pages; p++) {
    const label = holderOf(m, s, p);
    if (label <= m.n) continue;
    const g = groupOfLabel(m, label);
    const j = prefixPageOfLabel(m, label);
    if (g < 0 || j >= (m.prefixPages[g] ?? 0)) continue;
    if (own >= 0 && groupExtends(m, own, g)) continue;
    if (isLeaf(m, s, g, j) && nodeLockOf(m, s, p) <= 0) return p;
  }
  return -1;
}

/** Frees leaf page `p` into `t` (`free(x.value)`, `_delete_leaf`): its node is gone, its lock_ref with it; its parent is a leaf if `p` was its last child. */
export function evictLeaf(m: Model, s: State, t: State, p: number): void {
  setHolder(m, t, p, 0);
  setNodeLock(m, t, p, 0);
  put(m, s, t, [p]);
}
