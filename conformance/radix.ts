/**
 * The radix tree in a log (config `radix`): the states' pool is impl/'s `RadixPool`, the
 * pool the model-based test holds against spec/radix.ts, with the log's page ids as
 * `LoggedPool` takes them; and the rule of an `insert` at the handoff.
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
 * Why the pool of the model-based test and not `ServingPool`: the tree is only there
 * (impl/radix-pool.ts, at the end of the pool class chain), and its growth and retraction
 * are the spec's decode steps, not the log's one-line `grow`. So validate-log refuses
 * `radix` with `tableGrowth` or `retraction` (log-model.ts), and with it the decode steps
 * of `SteppingPool` are one step, as `ServingPool`'s.
 */
import { RadixPool, type PagePool, type RadixPoolOptions } from '../impl/index.ts';
import { LogPicks, tableOf, type LogPool } from './pool.ts';
import { OK, pageWords, refused, type EventContext, type StepResult } from './step-context.ts';

/** No handoff yet for the slot's request: its `insert` at the handoff has nothing to check. */
const NOT_HANDED_OFF = -1;

/** `SteppingPool.severity` of a read: content not written for the reader there (garbage), and another user's. */
const GARBAGE = 1;
const ANOTHER_USERS = 2;

/** The radix pool, with the page ids of the next allocation taken from the log when asked, and each handoff's freed duplicates kept. */
export class LoggedRadixPool extends RadixPool implements LogPool {
  /** The pages the next `allocate` takes ({@link LogPool}). */
  wanted: readonly number[] | undefined;
  /** A page the last logged allocation named twice, or -1. */
  twice: number;
  private readonly picks: LogPicks;
  /** Per slot: how many duplicates its handoff's insert freed (`NOT_HANDED_OFF` before it). */
  private readonly dupCount: Int32Array;
  /** Per slot, `dupWidth` entries from `slot * dupWidth`: those duplicates, in table order. */
  private readonly dups: Int32Array;
  /** The longest prefix, in pages: no insert frees more. */
  private readonly dupWidth: number;

  constructor(readonly logged: RadixPoolOptions) {
    super(logged);
    this.wanted = undefined;
    this.twice = -1;
    this.picks = new LogPicks(this.behaviour.doubleFree, this.holder.length);
    this.dupWidth = Math.max(1, ...(logged.prefixLengths ?? []));
    this.dupCount = new Int32Array(logged.slots).fill(NOT_HANDED_OFF);
    this.dups = new Int32Array(logged.slots * this.dupWidth);
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof LoggedRadixPool)) return;
    this.dupCount.set(other.dupCount);
    this.dups.set(other.dups);
  }

  /** Takes the logged pages, or those of the allocation order (as `LoggedPool.takePages`). */
  protected override takePages(at: number, n: number, tokens?: number, decode?: boolean): void {
    const list = this.freeList;
    this.twice = this.picks.take(this.wanted, this.tables, at, n, () => super.takePages(at, n, tokens, decode), (p) => (list === undefined ? this.freeSet.remove(p) : list.remove(p)));
  }

  /** Admits as the radix pool does; the request has not been handed off. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    this.dupCount[slot] = NOT_HANDED_OFF;
    return true;
  }

  /** The handoff and its insert; the request's own pages it replaced by the tree's (the duplicates it freed) are kept for the `insert` line. */
  override handoff(slot: number): boolean {
    const s = this.slotIndex(slot);
    const base = s * this.options.maxLength;
    const width = Math.min(this.dupWidth, this.lengths[s] ?? 0);
    const before = this.tables.slice(base, base + width);
    if (!super.handoff(slot)) return false;
    let n = 0;
    for (let j = 0; j < width; j++) if (this.tables[base + j] !== before[j]) this.dups[s * this.dupWidth + n++] = before[j] ?? 0;
    this.dupCount[s] = n;
    return true;
  }

  /** The duplicates the slot's handoff freed, in table order; `undefined` before its handoff. */
  duplicatesOf(slot: number): number[] | undefined {
    const n = this.dupCount[slot] ?? NOT_HANDED_OFF;
    return n === NOT_HANDED_OFF ? undefined : Array.from(this.dups.subarray(slot * this.dupWidth, slot * this.dupWidth + n));
  }

  /** Pages another request's data was read from by the slot's decode: counted from the worst read kept per position, as `SteppingPool` reads (`PagePool`'s count is not kept there). */
  override foreignReads(slot: number): number {
    return this.readsOf(slot, ANOTHER_USERS);
  }

  /** Pages the slot's decode read that were not written for it there (never written, or misplaced): counted as {@link foreignReads} is. */
  override garbageReads(slot: number): number {
    return this.readsOf(slot, GARBAGE);
  }

  /** How many positions the slot's decode read with this severity (`SteppingPool.severity`). */
  private readsOf(slot: number, severity: number): number {
    const s = this.slotIndex(slot);
    const base = s * this.options.maxLength;
    let n = 0;
    for (let i = 0; i < (this.readCounts[s] ?? 0); i++) if (this.severity(s, i, this.reads[base + i] ?? 0, this.readPositions[base + i] ?? 0) === severity) n++;
    return n;
  }

  /** A copy of this state. */
  fork(): LoggedRadixPool {
    const copy = new LoggedRadixPool(this.logged);
    copy.copyFrom(this);
    return copy;
  }
}

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
