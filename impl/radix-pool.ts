/**
 * The pool with the prefix cache as a radix tree (config `radix`, under eviction;
 * spec/radix.ts, spec/nesting.ts), on TypedArrays sized once, at the end of the class chain
 * the model-based test drives (the spec's decode steps, growth and retraction). The tree's
 * state and operations are radix-tree.ts's `RadixTree` (nodes, `lock_ref` with no floor,
 * the insert, leaf eviction), which conformance/radix.ts's pool delegates to as well; this
 * file says where the pool's actions call it, as SGLang's `mem_cache/radix_cache.py` does:
 * - `allocate` matches as deep as the path is cached (`match_prefix`), shares those pages
 *   and locks them (`inc_lock_ref`), taking pages only past them.
 * - `handoff` inserts (`cache_unfinished_req`); `insert` (at finish, `cache_finished_req`)
 *   is the same insert, left only to a request never handed off. The duplicates an insert
 *   frees go back in one release.
 * - Every release (`free`, `timeout`, `retract`) unlocks the path (`dec_lock_ref`); a
 *   retracted request's last node is then the root.
 * - `evict` frees one unlocked leaf, in one release.
 * The lock counts per prefix of `PagePool` are not used here: the tree's locks are per node.
 */
import { NO_PAGE } from './options.ts';
import type { PagePool } from './pool.ts';
import { LoadbackPool, type LoadbackPoolOptions } from './loadback-pool.ts';
import { RadixTree } from './radix-tree.ts';

/** The pool's options (the host tier's too, which the spec never turns on with the tree), and whether the prefix cache is a radix tree. */
export interface RadixPoolOptions extends LoadbackPoolOptions {
  /** Config `radix`: the prefix cache is a tree of one-page nodes (needs `eviction`). */
  readonly radix?: boolean;
}

/** The pool whose prefix cache is a radix tree of one-page nodes. */
export class RadixPool extends LoadbackPool {
  /** The tree: its locks and last nodes, and its operations on this pool's state. */
  protected readonly tree: RadixTree;
  /** Per page: the `lock_ref` of the node it is (the tree's array). */
  readonly nodeLock: Int32Array;
  /** Per request slot: the depth of its last node (the tree's array). */
  readonly depth: Int32Array;

  constructor(options: RadixPoolOptions) {
    super(options);
    this.tree = new RadixTree(this, (g) => this.parentLength(g));
    this.nodeLock = this.tree.nodeLock;
    this.depth = this.tree.depth;
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (other instanceof RadixPool) this.tree.copyFrom(other.tree);
  }

  /** `match_prefix`: how many nodes of group `g`'s path, from the root, the tree holds. */
  protected override matchedPages(g: number): number {
    return this.tree.matched(g);
  }

  /** The slot's shared pages: its last node's depth. */
  protected override sharedPages(s: number): number {
    return this.tree.depth[s] ?? 0;
  }

  /** Admits as the stepping pool does, sharing the matched path; the request's last node is the path's end, and every node on it is locked. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    const g = prefix === undefined || prefix < 0 || prefix >= this.prefixLengths.length ? -1 : prefix;
    // The matched path is locked before the pages are taken (radix-tree.ts's lockMatch says why).
    if (!this.tree.admit(slot, g, g < 0 ? 0 : this.matchedPages(g), () => super.allocate(slot, length, prefix, tokens))) return false;
    return true;
  }

  /** The commit, then `cache_unfinished_req`: the prompt's prefix pages past the matched path enter the tree. */
  override handoff(slot: number): boolean {
    if (!super.handoff(slot)) return false;
    if (this.tree.canInsert(slot)) this.putBack(this.tree.insert(slot, this.batch));
    return true;
  }

  /** `cache_finished_req`'s insert: a decoded request (or, with `prefix-poison`, a refused or failed one) whose prefix pages past its path are still its own. */
  override insert(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (!this.insertsAtFinish(s) || !this.tree.canInsert(s)) return false;
    this.putBack(this.tree.insert(s, this.batch));
    return true;
  }

  /** Retracts as the stepping pool does (its release unlocks the path); the request's last node is then the root. */
  override retract(slot: number): boolean {
    if (!super.retract(slot)) return false;
    this.tree.forget(slot);
    return true;
  }

  /** `dec_lock_ref(req.last_node)` as a release calls it (the tree's walk, with no floor). */
  protected override unlock(s: number): void {
    this.tree.unlock(s);
  }

  /** One unlocked leaf not on `own`'s path (-1: none protected) goes, in one release. */
  protected override evictEntry(own: number): boolean {
    const p = this.tree.evictLeaf(own);
    if (p === NO_PAGE) return false;
    this.batch[0] = p;
    this.putBack(1);
    return true;
  }
}
