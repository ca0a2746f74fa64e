/**
 * The prefix cache's locks, its eviction and, under `radix`, its tree, in the reference
 * pool, written from the documentation of the actions (the `@guard` and `@effect` of
 * `evict`, `insert` and `handoff` in docs/SPEC.md) and from SGLang's
 * `mem_cache/radix_cache.py`, not from the spec's or the pool's tree.
 *
 * Eviction without the tree. Each prefix group's entry has a lock count: a hit locks it
 * (not with fault `lock-underflow`, whose hit locks another node), an insert locks it, and
 * a request that hit or inserted unlocks it when it lets go of its table (`free` of a
 * finished request, `timeout`, `retract`), never below 0. An allocation short of free pages
 * evicts the entry, of another prefix than its own, with lock 0 that holds the lowest page.
 *
 * The tree (`radix`). Prefixes are one page here (the reference refuses `prefixPages`), so
 * a node is a cached prefix page, a child of the root, and a leaf: the tree is the cache's
 * map from group to page, and each page keeps the `lock_ref` of the node it is. SGLang's
 * operations, as they read:
 * - `match_prefix`: a request of a cached prefix shares its node; `inc_lock_ref` adds 1.
 *   Its last node is then that node (depth 1), else the root (depth 0).
 * - `cache_unfinished_req` at the handoff (`disaggregation/decode.py`'s prebuilt batch), and
 *   `cache_finished_req` at finish for a request never handed off: a request at the root
 *   that still holds its own first page inserts it. When the tree already has the node (a
 *   request inserted it meanwhile), the own page is a duplicate, freed in one call, and
 *   the node takes its place in the table; otherwise the page becomes the node. The
 *   request's last node is then the node, locked once more.
 * - `dec_lock_ref(req.last_node)` on every release: 1 off the node's `lock_ref` (only
 *   while the page still is that node), no floor; with `lock-underflow` twice.
 * - `evict`: a leaf whose `lock_ref` is 0 or below (`_update_leaf_status` counts only
 *   `lock_ref > 0` as protected), not the allocating request's own node: the lowest such
 *   page (the spec's fixed stand-in for least recently used). Its page goes back in one
 *   call and its `lock_ref` with it.
 * A retracted request's resume matches nothing, so its eviction may take any entry.
 */
import { type RefRequest, admissionLabel, groupLabel } from './reference-types.ts';
import { ReferenceState } from './reference-state.ts';

/** The reference pool's prefix cache: locks, eviction, the radix tree. */
export class ReferenceCache extends ReferenceState {
  /** Inserts into the cache (at the handoff under `radix`, and at finish). */
  inserts = 0;
  /** Under `radix`: unlocks that took a node's `lock_ref` below 0 (lock-underflow reached). */
  underflows = 0;
  /** Under `radix`: evictions of a node whose `lock_ref` was below 0 (SGLang #27666's `protected=-12`). */
  negativeEvictions = 0;

  /** A new admission `r` that hit its prefix's cached page locks it (under eviction; the tree's node, or the entry unless `lock-underflow`); its last node is the match's end. */
  protected lockHit(r: RefRequest): void {
    if (!this.eviction || !r.hit) return;
    if (this.radix) {
      r.depth = 1;
      this.page(r.table[0]!).nodeLock++;
    } else if (!this.faults.has('lock-underflow')) this.locks.set(r.group, (this.locks.get(r.group) ?? 0) + 1);
  }

  /** Request `r` lets go of its table: it unlocks what it locked (see the file's comment). */
  protected unlock(r: RefRequest): void {
    if (!this.eviction || r.group < 0) return;
    if (!this.radix) {
      const lock = this.locks.get(r.group) ?? 0;
      if ((r.hit || r.inserted) && lock > 0) this.locks.set(r.group, lock - 1);
      return;
    }
    const walks = this.faults.has('lock-underflow') ? 2 : 1;
    for (let k = 0; k < walks && r.depth > 0; k++) {
      // A node the tree no longer has (its page evicted, freed or taken) is detached: nothing reads its count again.
      const node = this.cache.get(r.group);
      if (node === undefined || node !== r.table[0]) continue;
      if (--this.page(node).nodeLock < 0) this.underflows++;
    }
  }

  /** Under `radix`: whether `r` can insert its prefix: it has one, its last node is the root, and it still holds its own first page. */
  protected canInsertTree(r: RefRequest): boolean {
    const first = r.table[0];
    return r.group >= 0 && r.depth === 0 && first !== undefined && this.page(first).holder === admissionLabel(r.admission);
  }

  /** Under `radix`: `r` inserts its first page (a duplicate of a node already there is freed and replaced by it) and locks the node. */
  protected insertTree(r: RefRequest): void {
    const own = r.table[0]!;
    const node = this.cache.get(r.group);
    if (node !== undefined && node !== own) {
      this.page(own).holder = 0;
      this.touched.add(own);
      this.giveBack([own]);
      r.table[0] = node;
    } else {
      this.page(own).holder = groupLabel(r.group);
      this.touched.add(own);
      this.cache.set(r.group, own);
    }
    this.page(r.table[0]!).nodeLock++;
    r.depth = 1;
    r.inserted = true;
    this.inserts++;
  }

  /**
   * evict: the admission into `slot` of `length` pages with prefix `group` (or the resume of
   * the retracted request there, which matches nothing) finds too few free pages, and the
   * cache frees one entry it may free; the request is marked as evicted for.
   */
  evict(slot: number, length: number, group = -1): boolean {
    if (!this.eviction) return false;
    const r = this.slots[slot];
    const resume = r?.phase === 'retracted';
    if (!resume && !this.slotOpen(slot)) return false;
    const need = resume ? r.table.length : this.need(length, group);
    if (this.freePages >= need) return false;
    const victim = this.victim(resume ? -1 : group);
    if (victim === undefined) return false;
    const page = this.page(victim);
    this.cache.delete(-page.holder - 1);
    if (page.nodeLock < 0) this.negativeEvictions++;
    page.holder = 0;
    page.nodeLock = 0;
    this.touched.add(victim);
    this.giveBack([victim]);
    if (resume) r.evictedFor = true;
    // A reused slot's next admission is a new request: only a first admission keeps the mark (as the pool does).
    else if (r === undefined) this.slotEvicted[slot] = true;
    return true;
  }

  /** The lowest cached page of another group than `own` that is unlocked: lock 0, or under `radix` a `lock_ref` of 0 or below. */
  private victim(own: number): number | undefined {
    let best: number | undefined;
    for (const [g, p] of this.cache) {
      if (g === own) continue;
      const free = this.radix ? this.page(p).nodeLock <= 0 : (this.locks.get(g) ?? 0) === 0;
      if (free && (best === undefined || p < best)) best = p;
    }
    return best;
  }
}
