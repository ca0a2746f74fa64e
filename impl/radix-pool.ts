/**
 * The pool with the prefix cache as a radix tree (config `radix`, under eviction;
 * spec/radix.ts, spec/nesting.ts), on TypedArrays sized once. Read from SGLang's
 * `mem_cache/radix_cache.py` (`match_prefix`, `insert`, `cache_unfinished_req` at the
 * handoff, `cache_finished_req`, `inc_lock_ref` / `dec_lock_ref` with no floor, `evict` of
 * unlocked leaves), as the spec has it:
 * - A node is one cached prefix page: cache slot `k` (`prefixSlot(g, j)`, page `j` of prefix
 *   group `g`) is node `j` of `g`'s path, its parent node `j - 1`. A nested prefix
 *   (`sys/doc` extends `sys`) has `sys`'s slots as its first pages, so the same nodes.
 * - Per page the `lock_ref` of the node it is (`nodeLock`, signed: no floor), and per
 *   request slot the depth of its last node (`depth`); the shared pages of a request are
 *   its first `depth` positions.
 * - `allocate` matches as deep as the path is cached, shares those pages and locks them
 *   (`inc_lock_ref`), taking pages only past them.
 * - `handoff` inserts the prompt's prefix pages past the matched depth: a node the tree
 *   holds replaces the request's own page (freed in one release, a duplicate), otherwise the
 *   page becomes the node; the path is then locked to the prefix's end. `insert` (at finish)
 *   is the same insert, left only to a request never handed off.
 * - Every release (`free`, `timeout`, `retract`) unlocks the path, with no floor; fault
 *   `lock-underflow` unlocks it twice. `hardened`'s `unlock-once` moves the last node to the
 *   root as it unlocks, so the second walk is empty.
 * - `evict` frees one leaf with `lock_ref <= 0`, not on the allocating request's path, the
 *   lowest such page (the spec's fixed stand-in for least recently used); its lock goes with it.
 * Nothing allocates after construction. The lock counts per prefix of `PagePool` are not
 * used here: the tree's locks are per node.
 */
import { hasMechanism } from '../spec/behaviour.ts';
import { INSERTED, Ph } from '../spec/state.ts';
import { NO_PAGE, groupOfLabel, prefixLabelOf } from './options.ts';
import type { PagePool } from './pool.ts';
import { LoadbackPool, type LoadbackPoolOptions } from './loadback-pool.ts';

/** The pool's options (the host tier's too, which the spec never turns on with the tree), and whether the prefix cache is a radix tree. */
export interface RadixPoolOptions extends LoadbackPoolOptions {
  /** Config `radix`: the prefix cache is a tree of one-page nodes (needs `eviction`). */
  readonly radix?: boolean;
}

/** The pool whose prefix cache is a radix tree of one-page nodes. */
export class RadixPool extends LoadbackPool {
  /** Per page: the `lock_ref` of the node it is (0 while it is no node; kept when a double free or a stale release takes the node away, as in the spec). */
  readonly nodeLock: Int32Array;
  /** Per request slot: the depth of its last node, its leading table positions that are nodes it locked. */
  readonly depth: Int32Array;
  /** Per cache slot: the prefix group whose own page it is, and that page's position. */
  private readonly slotGroup: Int32Array;
  private readonly slotPosition: Int32Array;
  /** `hardened`'s `unlock-once`: the unlock moves the request's last node to the root. */
  private readonly unlockOnce: boolean;

  constructor(options: RadixPoolOptions) {
    super(options);
    this.nodeLock = new Int32Array(this.holder.length);
    this.depth = new Int32Array(options.slots);
    this.slotGroup = new Int32Array(this.prefixPages.length);
    this.slotPosition = new Int32Array(this.prefixPages.length);
    for (let g = 0; g < this.prefixLengths.length; g++) {
      for (let j = this.parentLength(g); j < (this.prefixLengths[g] ?? 1); j++) {
        this.slotGroup[this.prefixSlot(g, j)] = g;
        this.slotPosition[this.prefixSlot(g, j)] = j;
      }
    }
    this.unlockOnce = hasMechanism(options.variant, 'unlock-once');
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof RadixPool)) return;
    this.nodeLock.set(other.nodeLock);
    this.depth.set(other.depth);
  }

  /** `match_prefix`: how many nodes of group `g`'s path, from the root, the tree holds. */
  protected override matchedPages(g: number): number {
    const k = this.prefixLengths[g] ?? 1;
    let d = 0;
    while (d < k && (this.prefixPages[this.prefixSlot(g, d)] ?? NO_PAGE) !== NO_PAGE) d++;
    return d;
  }

  /** The slot's shared pages: its last node's depth. */
  protected override sharedPages(s: number): number {
    return this.depth[s] ?? 0;
  }

  /** Admits as the stepping pool does, sharing the matched path; the request's last node is the path's end, and every node on it is locked. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    const matched = prefix === undefined || prefix < 0 || prefix >= this.prefixLengths.length ? 0 : this.matchedPages(prefix);
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    this.depth[slot] = matched;
    this.addLocks(slot, 0, matched, +1);
    return true;
  }

  /** The commit, then `cache_unfinished_req`: the prompt's prefix pages past the matched path enter the tree. */
  override handoff(slot: number): boolean {
    if (!super.handoff(slot)) return false;
    if (this.canInsertPath(slot)) this.insertPath(slot);
    return true;
  }

  /** `cache_finished_req`'s insert: a decoded request (or, with `prefix-poison`, a refused or failed one) whose prefix pages past its path are still its own. */
  override insert(slot: number): boolean {
    const s = this.slotIndex(slot);
    const phase = this.phases[s];
    const poison = this.behaviour.prefixPoison && (phase === Ph.refused || phase === Ph.failed);
    if ((phase !== Ph.decoded && !poison) || !this.canInsertPath(s)) return false;
    this.insertPath(s);
    return true;
  }

  /** Retracts as the stepping pool does (its release unlocks the path); the request's last node is then the root. */
  override retract(slot: number): boolean {
    if (!super.retract(slot)) return false;
    this.depth[slot] = 0;
    return true;
  }

  /** `dec_lock_ref(req.last_node)` as a release calls it: no floor; twice under `lock-underflow`; under `unlock-once` the last node becomes the root. */
  protected override unlock(s: number): void {
    const times = this.behaviour.lockUnderflow ? 2 : 1;
    for (let k = 0; k < times; k++) {
      this.addLocks(s, 0, this.depth[s] ?? 0, -1);
      if (this.unlockOnce) this.depth[s] = 0;
    }
  }

  /** One leaf goes: the lowest page that is a leaf of a path other than `own`'s (-1: none protected), with `lock_ref <= 0`; its lock goes with it. */
  protected override evictEntry(own: number): boolean {
    for (let p = this.behaviour.firstPage; p < this.holder.length; p++) {
      const h = this.holder[p] ?? 0;
      if (h >= 0) continue;
      const k = groupOfLabel(h);
      if ((own >= 0 && this.extendsGroup(own, this.slotGroup[k] ?? -1)) || !this.isLeaf(k) || (this.nodeLock[p] ?? 0) > 0) continue;
      this.holder[p] = 0;
      this.nodeLock[p] = 0;
      this.prefixPages[k] = NO_PAGE;
      this.batch[0] = p;
      this.putBack(1);
      return true;
    }
    return false;
  }

  /** Whether prefix group `g` is group `h` or extends it: `h`'s nodes are on `g`'s path. */
  private extendsGroup(g: number, h: number): boolean {
    for (let k = g; k >= 0; k = this.prefixParents[k] ?? -1) if (k === h) return true;
    return false;
  }

  /** Whether cache slot `k`'s node is a leaf: no path through it has its next node cached. */
  private isLeaf(k: number): boolean {
    const j = this.slotPosition[k] ?? 0;
    for (let h = 0; h < this.prefixLengths.length; h++) {
      if (j + 1 >= (this.prefixLengths[h] ?? 1) || this.prefixSlot(h, j) !== k) continue;
      if ((this.prefixPages[this.prefixSlot(h, j + 1)] ?? NO_PAGE) !== NO_PAGE) return false;
    }
    return true;
  }

  /** `inc_lock_ref` / `dec_lock_ref` over table positions `[from, to)` of slot `s`: each position whose page is still its node gains `delta`. */
  private addLocks(s: number, from: number, to: number, delta: number): void {
    const g = this.groups[s] ?? -1;
    if (g < 0) return;
    const base = s * this.options.maxLength;
    for (let j = from; j < to; j++) {
      const p = this.tables[base + j] ?? NO_PAGE;
      if (p === NO_PAGE || this.prefixPages[this.prefixSlot(g, j)] !== p) continue;
      this.nodeLock[p] = (this.nodeLock[p] ?? 0) + delta;
    }
  }

  /** Whether slot `s` can insert: it has a prefix, its path ends before the prefix's end, and it holds its own pages at the rest of the prefix's positions. */
  private canInsertPath(s: number): boolean {
    const g = this.groups[s] ?? -1;
    if (g < 0) return false;
    const k = this.prefixLengths[g] ?? 1;
    const base = s * this.options.maxLength;
    if ((this.depth[s] ?? 0) >= k) return false;
    for (let j = this.depth[s] ?? 0; j < k; j++) if (this.holder[this.tables[base + j] ?? NO_PAGE] !== this.serials[s]) return false;
    return true;
  }

  /** The insert (`_insert_helper` and what `cache_unfinished_req` does after it): past the depth, a cached node replaces the slot's page (freed in one release), else the page becomes the node; the path is locked to the prefix's end. */
  private insertPath(s: number): void {
    const g = this.groups[s] ?? -1;
    const k = this.prefixLengths[g] ?? 1;
    const from = this.depth[s] ?? 0;
    const base = s * this.options.maxLength;
    let n = 0;
    for (let j = from; j < k; j++) {
      const own = this.tables[base + j] ?? NO_PAGE;
      const slot = this.prefixSlot(g, j);
      const node = this.prefixPages[slot] ?? NO_PAGE;
      // After a double free one page can be at two positions: as in the spec, its last holder wins and the earlier node is gone.
      const h = this.holder[own] ?? 0;
      if (h < 0) this.prefixPages[groupOfLabel(h)] = NO_PAGE;
      if (node !== NO_PAGE && node !== own) {
        this.holder[own] = 0;
        this.batch[n++] = own;
        this.tables[base + j] = node;
      } else {
        this.holder[own] = prefixLabelOf(slot);
        this.prefixPages[slot] = own;
      }
    }
    this.putBack(n);
    this.addLocks(s, from, k, +1);
    this.depth[s] = k;
    this.flags[s] = (this.flags[s] ?? 0) | INSERTED;
  }
}
