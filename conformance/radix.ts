/**
 * The radix tree in a log (config `radix`): the states' pool is `LoggedPool` (the serving
 * pool with a log's `grow`, `retract`, `resume`, releases in several calls and aborts, and
 * the log's page ids) with the tree of impl/radix-tree.ts, the same `RadixTree` the
 * model-based test's `RadixPool` delegates to; and the rule of an `insert` at the handoff.
 *
 * What SGLang does at the handoff (`disaggregation/decode.py` commits the request, then
 * `mem_cache/radix_cache.py`'s `cache_unfinished_req`): `insert` puts the prompt's
 * page-aligned pages into the tree and returns how many of them it already held; the
 * allocator frees the request's own pages at those positions past its protected prefix
 * (`kv_indices[cache_protected_len:new_prefix_len]`, the duplicates); `match_prefix` reads
 * the tree's pages back into `req_to_token`; `dec_lock_ref` of the old last node, then
 * `inc_lock_ref` of the new one. The spec's `handoff` does the same on its prefix's pages
 * (the pages a later request can match), so the `insert` line changes nothing: it checks
 * that the tree and the table hold the pages it names, and that the duplicates it freed
 * are those the spec freed.
 *
 * What retraction does to the tree (`retract_decode` → `release_req` →
 * `release_kv_cache(req, tree_cache, is_insert=False)` → `cache_finished_req`): nothing is
 * inserted; the request's pages past its path are freed (the serving pool's release, the
 * tree's nodes left in the tree), `dec_lock_ref(req.last_node)` unlocks its path, and the
 * request forgets its match (`reset_for_retract`). Its resume (`resume_retracted_reqs` →
 * `_pre_alloc`, with `prefix_len=0`) matches nothing: new pages for its whole table, none
 * of them the tree's. A grown page is the request's own and never a node.
 */
import { HIT, INSERTED, Ph } from '../spec/index.ts';
import { NO_PAGE, type PagePool, type ServingPoolOptions } from '../impl/index.ts';
import { RadixTree } from '../impl/radix-tree.ts';
import { LoggedPool, tableOf, type LogPool } from './pool.ts';
import { OK, pageWords, refused, type EventContext, type StepResult } from './step-context.ts';

/** No handoff yet for the slot's request: its `insert` at the handoff has nothing to check. */
const NOT_HANDED_OFF = -1;

/** The logged serving pool whose prefix cache is the radix tree, each handoff's freed duplicates kept. */
export class LoggedRadixPool extends LoggedPool implements LogPool {
  /** The tree: its locks and last nodes, and its operations on this pool's state. */
  private readonly tree: RadixTree;
  /** Per request slot: the depth of its last node (the tree's array). */
  readonly depth: Int32Array;
  /** Per slot: how many duplicates its handoff's insert freed (`NOT_HANDED_OFF` before it). */
  private readonly dupCount: Int32Array;
  /** Per slot, `dupWidth` entries from `slot * dupWidth`: those duplicates, in table order. */
  private readonly dups: Int32Array;
  /** The longest prefix, in pages: no insert frees more. */
  private readonly dupWidth: number;

  constructor(readonly logged: ServingPoolOptions) {
    super(logged);
    this.tree = new RadixTree(this, (g) => this.parentLength(g));
    this.depth = this.tree.depth;
    this.dupWidth = Math.max(1, ...(logged.prefixLengths ?? []));
    this.dupCount = new Int32Array(logged.slots).fill(NOT_HANDED_OFF);
    this.dups = new Int32Array(logged.slots * this.dupWidth);
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof LoggedRadixPool)) return;
    this.tree.copyFrom(other.tree);
    this.dupCount.set(other.dupCount);
    this.dups.set(other.dups);
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
    const matched = prefix === undefined || prefix < 0 || prefix >= this.prefixLengths.length ? 0 : this.matchedPages(prefix);
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    this.tree.admitted(slot, matched);
    this.dupCount[slot] = NOT_HANDED_OFF;
    return true;
  }

  /** The commit, then `cache_unfinished_req`'s insert; the request's own pages it replaced by the tree's (the duplicates it freed) are kept for the `insert` line. */
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
    const phase = this.phase(s);
    const poison = this.behaviour.prefixPoison && (phase === REFUSED || phase === FAILED);
    if ((phase !== DECODED && !poison) || !this.tree.canInsert(s)) return false;
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

  /** The duplicates the slot's handoff freed, in table order; `undefined` before its handoff. */
  duplicatesOf(slot: number): number[] | undefined {
    const n = this.dupCount[slot] ?? NOT_HANDED_OFF;
    return n === NOT_HANDED_OFF ? undefined : Array.from(this.dups.subarray(slot * this.dupWidth, slot * this.dupWidth + n));
  }

  /** A copy of this state. */
  override fork(): LoggedRadixPool {
    const copy = new LoggedRadixPool(this.logged);
    copy.copyFrom(this);
    return copy;
  }
}

// Read once: a namespace re-export is a getter call on every access.
const { decoded: DECODED, refused: REFUSED, failed: FAILED } = Ph;

/**
 * An `insert` at the handoff under `radix` (`cache_unfinished_req`): after the request's
 * handoff, its `pages` are its table's first entries (the tree's pages at the positions the
 * tree holds, `req_to_token` after `match_prefix`), at least as many as the spec's path; its
 * `freed` are the duplicates the spec's insert freed.
 */
export function insertedAtHandoff(ctx: EventContext, pool: LogPool): StepResult {
  const { slot, pages, freed, info } = ctx;
  const dups = pool instanceof LoggedRadixPool ? pool.duplicatesOf(slot) : undefined;
  if (!(pool instanceof LoggedRadixPool) || dups === undefined) return refused(`insert(${info.id}) at the handoff comes before ${info.id}'s handoff: cache_unfinished_req runs once the request is committed`);
  const table = tableOf(pool, slot);
  const depth = pool.depth[slot] ?? 0;
  if (pages !== undefined && (pages.count < depth || pages.count > table.length || !pages.equalsRow(pool.pageTable(slot), 0, pages.count))) {
    return refused(`insert(${info.id}) at the handoff: the tree holds ${info.id}'s first ${depth === 1 ? 'page' : `${depth} pages`} and its table is ${pageWords(table)}; the log says ${pages.words()}`);
  }
  if (freed !== undefined && (freed.count !== dups.length || !freed.equalsRow(dups, 0, dups.length))) {
    return refused(`insert(${info.id}) at the handoff frees the duplicates ${pageWords(dups)} (its own pages where the tree already held one); the log says ${freed.words()}`);
  }
  return OK;
}
