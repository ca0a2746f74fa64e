/**
 * The prefix cache as a radix tree of one-page nodes (config `radix`; spec/radix.ts,
 * spec/nesting.ts), its state and operations written once, for every pool that has one:
 * impl/radix-pool.ts (the model-based test's pool, the spec's decode steps) and
 * impl/serving-radix-pool.ts (a log's grow, retract and resume: the validator's pool,
 * conformance/radix.ts, and `incident --serving --prefixes`) each own a `RadixTree` and
 * delegate to it. Read from SGLang's `mem_cache/radix_cache.py`:
 * - A node is one cached prefix page: cache slot `k` (`prefixSlot(g, j)`, page `j` of prefix
 *   group `g`) is node `j` of `g`'s path, its parent node `j - 1`. A nested prefix
 *   (`sys/doc` extends `sys`) has `sys`'s slots as its first pages, so the same nodes.
 * - Per page the `lock_ref` of the node it is (`nodeLock`, signed: `dec_lock_ref` has no
 *   floor), and per request slot the depth of its last node (`depth`, `req.last_node`); the
 *   shared pages of a request are its first `depth` positions.
 * - `match_prefix` matches as deep as the path is cached; the request locks what it matched.
 * - The insert (`_insert_helper`, and what `cache_unfinished_req` does after it): past the
 *   depth, a node the tree holds replaces the request's own page (a duplicate, freed),
 *   otherwise the page becomes the node; the path is then locked to the prefix's end.
 * - `dec_lock_ref(req.last_node)`: no floor; fault `lock-underflow` walks twice; `hardened`'s
 *   `unlock-once` moves the last node to the root as it unlocks, so a second walk is empty.
 * - `evict` takes one leaf with `lock_ref <= 0` that is not on the allocating request's path:
 *   the lowest such page (the spec's fixed stand-in for least recently used).
 * - Retraction (`release_kv_cache(req, tree_cache, is_insert=False)` →
 *   `cache_finished_req`): no insert; the request's pages past its path are freed (the
 *   pool's release), `dec_lock_ref(req.last_node)` unlocks the path, and the request is
 *   reset, its last node the root. Its resume (`_pre_alloc` with `prefix_len=0`) matches
 *   nothing: new pages for the whole table ({@link RadixTree.forget}).
 * The tree changes no free list itself: what it frees it names, and its pool puts it back.
 * Nothing allocates after construction.
 */
import { hasMechanism } from '../spec/behaviour.ts';
import { INSERTED } from '../spec/state.ts';
import { NO_PAGE, groupOfLabel, prefixLabelOf } from './options.ts';
import type { PoolState } from './pool-state.ts';

/** What the tree reads and writes of its pool's state: the holders, the cache's pages, the tables (all shared arrays), and the cache slot of a prefix page. */
export type TreeHost = Pick<PoolState, 'options' | 'behaviour' | 'holder' | 'tables' | 'flags' | 'groups' | 'serials' | 'prefixPages' | 'prefixLengths' | 'prefixParents' | 'prefixSlot'>;

/** The radix tree's locks and last nodes, and its operations on its pool's state. */
export class RadixTree {
  /** Per page: the `lock_ref` of the node it is (0 while it is no node; kept when a double free or a stale release takes the node away, as in the spec). */
  readonly nodeLock: Int32Array;
  /** Per request slot: the depth of its last node, its leading table positions that are nodes it locked. */
  readonly depth: Int32Array;
  /** Per cache slot: the prefix group whose own page it is, and that page's position. */
  private readonly slotGroup: Int32Array;
  private readonly slotPosition: Int32Array;
  /** `hardened`'s `unlock-once`: the unlock moves the request's last node to the root. */
  private readonly unlockOnce: boolean;

  constructor(private readonly host: TreeHost, parentLength: (g: number) => number) {
    this.nodeLock = new Int32Array(host.holder.length);
    this.depth = new Int32Array(host.options.slots);
    this.slotGroup = new Int32Array(host.prefixPages.length);
    this.slotPosition = new Int32Array(host.prefixPages.length);
    for (let g = 0; g < host.prefixLengths.length; g++) {
      for (let j = parentLength(g); j < (host.prefixLengths[g] ?? 1); j++) {
        this.slotGroup[host.prefixSlot(g, j)] = g;
        this.slotPosition[host.prefixSlot(g, j)] = j;
      }
    }
    this.unlockOnce = hasMechanism(host.options.variant, 'unlock-once');
  }

  /** Makes this tree's state equal to `other`'s, a tree of a pool built with the same options. */
  copyFrom(other: RadixTree): void {
    this.nodeLock.set(other.nodeLock);
    this.depth.set(other.depth);
  }

  /** `match_prefix`: how many nodes of group `g`'s path, from the root, the tree holds. */
  matched(g: number): number {
    const { prefixLengths, prefixPages } = this.host;
    const k = prefixLengths[g] ?? 1;
    let d = 0;
    while (d < k && (prefixPages[this.host.prefixSlot(g, d)] ?? NO_PAGE) !== NO_PAGE) d++;
    return d;
  }

  /**
   * `inc_lock_ref` of group `g`'s first `matched` nodes (`delta` -1 takes it back when the
   * admission then fails). It comes before the admission takes its pages, as in the spec:
   * a double free can hand out a matched node's own page to the same admission, which
   * takes the page out of the tree, and the lock must already be on it by then.
   */
  private lockMatch(g: number, matched: number, delta: 1 | -1): void {
    const { prefixPages } = this.host;
    for (let j = 0; j < matched; j++) {
      const p = prefixPages[this.host.prefixSlot(g, j)] ?? NO_PAGE;
      if (p !== NO_PAGE) this.nodeLock[p] = (this.nodeLock[p] ?? 0) + delta;
    }
  }

  /**
   * An admission into slot `s` with prefix group `g` (-1: none) that matched `matched`
   * nodes: their locks first ({@link lockMatch}), then `take` (the pool's own admission),
   * the locks taken back when it refuses; admitted, the request's last node is the path's
   * end there. Whether it was admitted.
   */
  admit(s: number, g: number, matched: number, take: () => boolean): boolean {
    this.lockMatch(g, matched, +1);
    if (!take()) {
      this.lockMatch(g, matched, -1);
      return false;
    }
    this.depth[s] = matched;
    return true;
  }

  /** `dec_lock_ref(req.last_node)` as a release calls it: no floor; twice under `lock-underflow`; under `unlock-once` the last node becomes the root. */
  unlock(s: number): void {
    const times = this.host.behaviour.lockUnderflow ? 2 : 1;
    for (let k = 0; k < times; k++) {
      this.addLocks(s, 0, this.depth[s] ?? 0, -1);
      if (this.unlockOnce) this.depth[s] = 0;
    }
  }

  /** A retracted request's last node is the root: its resume matches nothing and shares no page. */
  forget(s: number): void {
    this.depth[s] = 0;
  }

  /** Takes one leaf out of the tree: the lowest page that is a leaf of a path other than `own`'s (-1: none protected), with `lock_ref <= 0`; its lock goes with it. The page, for the pool to free, or `NO_PAGE`. */
  evictLeaf(own: number): number {
    const { holder, prefixPages } = this.host;
    for (let p = this.host.behaviour.firstPage; p < holder.length; p++) {
      const h = holder[p] ?? 0;
      if (h >= 0) continue;
      const k = groupOfLabel(h);
      if ((own >= 0 && this.extendsGroup(own, this.slotGroup[k] ?? -1)) || !this.isLeaf(k) || (this.nodeLock[p] ?? 0) > 0) continue;
      holder[p] = 0;
      this.nodeLock[p] = 0;
      prefixPages[k] = NO_PAGE;
      return p;
    }
    return NO_PAGE;
  }

  /** Whether slot `s` can insert: it has a prefix, its path ends before the prefix's end, and it holds its own pages at the rest of the prefix's positions. */
  canInsert(s: number): boolean {
    const { groups, prefixLengths, holder, tables, serials } = this.host;
    const g = groups[s] ?? -1;
    if (g < 0) return false;
    const k = prefixLengths[g] ?? 1;
    const base = s * this.host.options.maxLength;
    if ((this.depth[s] ?? 0) >= k) return false;
    for (let j = this.depth[s] ?? 0; j < k; j++) if (holder[tables[base + j] ?? NO_PAGE] !== serials[s]) return false;
    return true;
  }

  /** The insert: past the depth, a cached node replaces the slot's page (written to `dups`, for the pool to free in one release), else the page becomes the node; the path is locked to the prefix's end. How many duplicates. */
  insert(s: number, dups: Int32Array): number {
    const { groups, prefixLengths, holder, tables, prefixPages, flags } = this.host;
    const g = groups[s] ?? -1;
    const k = prefixLengths[g] ?? 1;
    const from = this.depth[s] ?? 0;
    const base = s * this.host.options.maxLength;
    let n = 0;
    for (let j = from; j < k; j++) {
      const own = tables[base + j] ?? NO_PAGE;
      const slot = this.host.prefixSlot(g, j);
      const node = prefixPages[slot] ?? NO_PAGE;
      // After a double free one page can be at two positions: as in the spec, its last holder wins and the earlier node is gone.
      const h = holder[own] ?? 0;
      if (h < 0) prefixPages[groupOfLabel(h)] = NO_PAGE;
      if (node !== NO_PAGE && node !== own) {
        holder[own] = 0;
        dups[n++] = own;
        tables[base + j] = node;
      } else {
        holder[own] = prefixLabelOf(slot);
        prefixPages[slot] = own;
      }
    }
    this.addLocks(s, from, k, +1);
    this.depth[s] = k;
    flags[s] = (flags[s] ?? 0) | INSERTED;
    return n;
  }

  /** Whether prefix group `g` is group `h` or extends it: `h`'s nodes are on `g`'s path. */
  private extendsGroup(g: number, h: number): boolean {
    for (let k = g; k >= 0; k = this.host.prefixParents[k] ?? -1) if (k === h) return true;
    return false;
  }

  /** Whether cache slot `k`'s node is a leaf: no path through it has its next node cached. */
  private isLeaf(k: number): boolean {
    const { prefixLengths, prefixPages } = this.host;
    const j = this.slotPosition[k] ?? 0;
    for (let h = 0; h < prefixLengths.length; h++) {
      if (j + 1 >= (prefixLengths[h] ?? 1) || this.host.prefixSlot(h, j) !== k) continue;
      if ((prefixPages[this.host.prefixSlot(h, j + 1)] ?? NO_PAGE) !== NO_PAGE) return false;
    }
    return true;
  }

  /** `inc_lock_ref` / `dec_lock_ref` over table positions `[from, to)` of slot `s`: each position whose page is still its node gains `delta`. */
  private addLocks(s: number, from: number, to: number, delta: number): void {
    const { groups, tables, prefixPages } = this.host;
    const g = groups[s] ?? -1;
    if (g < 0) return;
    const base = s * this.host.options.maxLength;
    for (let j = from; j < to; j++) {
      const p = tables[base + j] ?? NO_PAGE;
      if (p === NO_PAGE || prefixPages[this.host.prefixSlot(g, j)] !== p) continue;
      this.nodeLock[p] = (this.nodeLock[p] ?? 0) + delta;
    }
  }
}
