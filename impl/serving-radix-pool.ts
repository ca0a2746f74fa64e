/**
 * The serving pool (serving-pool.ts: a log's one-line `grow`, `retract`, `resume`, aborts)
 * whose prefix cache is the radix tree of radix-tree.ts, the same `RadixTree` the
 * model-based test's `RadixPool` delegates to. `incident --serving --prefixes` replays
 * through it, and validate-log's `LoggedRadixPool` (conformance/radix.ts) is it with the
 * log's page ids. Where the pool's actions call the tree, as SGLang does:
 * - `allocate`: `match_prefix`, the matched nodes shared and locked, pages taken past them.
 * - `handoff`: the commit, then `cache_unfinished_req`'s insert; the request's own pages it
 *   replaced by the tree's nodes (the duplicates it freed) are kept for the log's `insert`.
 * - `insert` at finish (`cache_finished_req`): the same insert, for a request never handed off.
 * - Every release unlocks the path (`dec_lock_ref`, no floor). A retraction
 *   (`release_kv_cache(req, tree_cache, is_insert=False)`) frees the pages past the path,
 *   unlocks it, and forgets the match: the resume (`_pre_alloc` with `prefix_len=0`)
 *   takes a whole new table.
 * - `evict` frees one unlocked leaf (`RadixCache.evict`), the page kept as the last evicted.
 * Nothing allocates after construction.
 */
import { HIT, INSERTED } from '../spec/state.ts';
import { NO_PAGE } from './options.ts';
import type { PagePool } from './pool.ts';
import { RadixTree } from './radix-tree.ts';
import { ServingPool, type ServingPoolOptions } from './serving-pool.ts';

/** No handoff yet for the slot's request: its insert at the handoff has freed nothing yet. */
const NOT_HANDED_OFF = -1;

/** The serving pool whose prefix cache is a radix tree of one-page nodes. */
export class ServingRadixPool extends ServingPool {
  /** Per request slot: the depth of its last node (the tree's array). */
  readonly depth: Int32Array;
  /** The page the last `evict` freed, or `NO_PAGE`. */
  lastEvicted: number;
  /** The tree: its locks and last nodes, and its operations on this pool's state. */
  private readonly tree: RadixTree;
  /** Per slot: the shared pages its last release kept (read before the release). */
  private readonly kept: Int32Array;
  /** Per slot: how many duplicates its handoff's insert freed (`NOT_HANDED_OFF` before it). */
  private readonly dupCount: Int32Array;
  /** Per slot, `dupWidth` entries from `slot * dupWidth`: those duplicates, in table order. */
  private readonly dups: Int32Array;
  /** The longest prefix, in pages: no insert frees more. */
  private readonly dupWidth: number;

  constructor(options: ServingPoolOptions) {
    super(options);
    this.tree = new RadixTree(this, (g) => this.parentLength(g));
    this.depth = this.tree.depth;
    this.lastEvicted = NO_PAGE;
    this.kept = new Int32Array(options.slots);
    this.dupWidth = Math.max(1, ...(options.prefixLengths ?? []));
    this.dupCount = new Int32Array(options.slots).fill(NOT_HANDED_OFF);
    this.dups = new Int32Array(options.slots * this.dupWidth);
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof ServingRadixPool)) return;
    this.tree.copyFrom(other.tree);
    this.kept.set(other.kept);
    this.dupCount.set(other.dupCount);
    this.dups.set(other.dups);
    this.lastEvicted = other.lastEvicted;
  }

  /** `match_prefix`: how many nodes of group `g`'s path the tree holds. */
  protected override matchedPages(g: number): number {
    return this.tree.matched(g);
  }

  /** The slot's shared pages: its last node's depth. */
  protected override sharedPages(s: number): number {
    return this.tree.depth[s] ?? 0;
  }

  /** Admits sharing the matched path, every node on it locked; the request has not been handed off. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    const g = prefix === undefined || prefix < 0 || prefix >= this.prefixLengths.length ? -1 : prefix;
    // The matched path is locked before the pages are taken (radix-tree.ts's lockMatch says why).
    if (!this.tree.admit(slot, g, g < 0 ? 0 : this.matchedPages(g), () => super.allocate(slot, length, prefix, tokens))) return false;
    this.dupCount[slot] = NOT_HANDED_OFF;
    return true;
  }

  /** The commit, then `cache_unfinished_req`'s insert; the duplicates it freed are kept. */
  override handoff(slot: number): boolean {
    const s = this.slotIndex(slot);
    const base = s * this.options.maxLength;
    const width = Math.min(this.dupWidth, this.lengths[s] ?? 0);
    const before = this.tables.slice(base, base + width);
    if (!super.handoff(slot)) return false;
    if (this.tree.canInsert(s)) this.putBack(this.tree.insert(s, this.batch));
    let n = 0;
    for (let j = 0; j < width; j++) if (this.tables[base + j] !== before[j]) this.dups[s * this.dupWidth + n++] = before[j] ?? 0;
    this.dupCount[s] = n;
    return true;
  }

  /** `cache_finished_req`'s insert: a decoded request (or, with `prefix-poison`, a refused or failed one) whose prefix pages past its path are still its own. */
  override insert(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (!this.insertsAtFinish(s) || !this.tree.canInsert(s)) return false;
    this.putBack(this.tree.insert(s, this.batch));
    return true;
  }

  /** The serving pool's retraction (the copy, then the release of the pages past the path); then `dec_lock_ref` of its path, and its match forgotten. */
  override retract(slot: number): boolean {
    if (!super.retract(slot)) return false;
    this.tree.unlock(slot);
    this.tree.forget(slot);
    this.flags[slot] = (this.flags[slot] ?? 0) & ~(HIT | INSERTED);
    return true;
  }

  /** The duplicates the slot's handoff freed, in table order; `undefined` before its handoff. */
  duplicatesOf(slot: number): number[] | undefined {
    const n = this.dupCount[slot] ?? NOT_HANDED_OFF;
    return n === NOT_HANDED_OFF ? undefined : Array.from(this.dups.subarray(slot * this.dupWidth, slot * this.dupWidth + n));
  }

  /** The shared pages the slot's last release kept (its table's first entries, the tree's). */
  keptBy(slot: number): number {
    return this.kept[this.slotIndex(slot)] ?? 0;
  }

  /** A release: the pages past the path, the count kept recorded first. */
  protected override release(s: number): void {
    this.kept[s] = this.sharedPages(s);
    super.release(s);
  }

  /** `dec_lock_ref(req.last_node)` as a release calls it (the tree's walk, with no floor). */
  protected override unlock(s: number): void {
    this.tree.unlock(s);
  }

  /** One unlocked leaf not on `own`'s path (-1: none protected) goes, in one release. */
  protected override evictEntry(own: number): boolean {
    const p = this.tree.evictLeaf(own);
    if (p === NO_PAGE) return false;
    this.lastEvicted = p;
    this.batch[0] = p;
    this.putBack(1);
    return true;
  }
}
