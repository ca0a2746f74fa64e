/**
 * The radix tree in a log (config `radix`): the states' pool is impl/'s `ServingRadixPool`
 * (the serving pool with a log's `grow`, `retract`, `resume`, releases in several calls and
 * aborts, and the tree of impl/radix-tree.ts, the same `RadixTree` the model-based test's
 * `RadixPool` delegates to), with the log's page ids as `LoggedPool` takes them and D's
 * state slots as `LoggedPool` keeps them (config `stateSlots`, slot-ledger.ts: taken at the
 * allocation, written by P's write, read by the commit and each decode step, returned at
 * the release) and P's source pages (config `sourcePages`: a write landing after P freed
 * them early carries what they hold then); and the rule of an `insert` at the handoff. An
 * early commit is `LoggedPool`'s only (log-model.ts refuses it with `radix`).
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
import { Ph } from '../spec/index.ts';
import { faultActs, type PagePool } from '../impl/index.ts';
import { ServingRadixPool } from '../impl/serving-radix-pool.ts';
import { freeSourcesEarly, ledgerFor, LogPicks, tableOf, type LoggedPoolOptions, type LogPool } from './pool.ts';
import type { SlotLedger, SlotPick } from './slot-ledger.ts';
import { draftSkipped } from './tier-pool.ts';
import { OK, pageWords, refused, type EventContext, type StepResult } from './step-context.ts';

/** The serving pool with the radix tree, with the page ids of the next allocation taken from the log when asked. */
export class LoggedRadixPool extends ServingRadixPool implements LogPool {
  /** The pages the next `allocate` takes ({@link LogPool}). */
  wanted: readonly number[] | undefined;
  /** A page the last logged allocation named twice, or -1. */
  twice: number;
  /** D's state slots and metadata rows (config `stateSlots`, slot-ledger.ts), as `LoggedPool` keeps them; `undefined` without them. */
  readonly slots: SlotLedger | undefined;
  /** The ids the next `allocate` takes ({@link LogPool}). */
  slotPick: SlotPick = {};

  /** Per request slot: 0, or the label the rest of its write carries after P freed its source pages early (as `LoggedPool`'s). */
  readonly sourceLabel: Int32Array;
  /** The label the write landing now carries instead of its own, or 0. */
  private relabel = 0;
  /** Per page: whose draft KV it holds (config `draft`, as `TierPool`'s); empty without it. */
  readonly draft: Int32Array;
  /** Fault `draft-stale` not stopped by `draft-fills-hit`. */
  private readonly skipsPrefix: boolean;
  /** While P's write of a slot lands: its slot (-1: none), and whether it is a stub. */
  private writing = -1;
  private writingStub = false;
  private readonly picks: LogPicks;

  /** P frees the source pages of the slot's outstanding write early (fault `source-early-free`, as `LoggedPool.abortSource`); whether the spec enables it. */
  abortSource(slot: number): boolean {
    return freeSourcesEarly(this.logged, this.phase(slot), this.sourceLabel, slot);
  }

  /** P's next prefill, of the request with `serial`, reused the freed source pages of the slot's write. */
  reuseSource(slot: number, serial: number): void {
    if (this.sourceLabel[slot] !== 0) this.sourceLabel[slot] = serial;
  }

  constructor(readonly logged: LoggedPoolOptions) {
    super(logged);
    this.wanted = undefined;
    this.twice = -1;
    this.picks = new LogPicks(this.behaviour.doubleFree, this.holder.length);
    this.slots = ledgerFor(logged);
    this.sourceLabel = new Int32Array(logged.slots);
    this.draft = new Int32Array(logged.draft === true ? this.holder.length : 0);
    this.skipsPrefix = faultActs(logged, 'draft-stale', 'draft-fills-hit');
  }

  /** Makes this pool's state equal to `other`'s, its slots included. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof LoggedRadixPool)) return;
    if (other.slots !== undefined) this.slots?.copyFrom(other.slots);
    this.sourceLabel.set(other.sourceLabel);
    this.draft.set(other.draft);
  }

  /** Admits as the tree does, and takes a state slot and a metadata row (spec/state-slots.ts `takeSlots`). */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    this.slots?.take(slot, this.serial(slot), this.slotPick);
    return true;
  }

  /** P's write; landed as the request's own, its state and first token land in its slot and row; after an early free of its source pages it carries what they hold then. */
  override prefill(slot: number): boolean {
    return this.landWrite(slot, false, () => super.prefill(slot));
  }

  /** P's stub; a silent one lands as a prefill does. */
  override stub(slot: number): boolean {
    return this.landWrite(slot, true, () => super.stub(slot));
  }

  /** The write `post` lands, relabelled after an early free of its source pages, its draft part with it (config `draft`). */
  private landWrite(slot: number, stub: boolean, post: () => boolean): boolean {
    this.relabel = this.sourceLabel[slot] ?? 0;
    [this.writing, this.writingStub] = [slot, stub];
    const accepted = post();
    this.relabel = 0;
    this.writing = -1;
    if (!accepted) return false;
    this.sourceLabel[slot] = 0;
    if (this.phase(slot) === Ph.written) this.slots?.land(slot, this.serial(slot));
    return true;
  }

  /** A page write, carrying the reused source page's content while a relabelled write lands, and its draft KV beside it (as `TierPool.write`). */
  protected override write(p: number, label: number, pos: number, slots: number): void {
    const written = this.relabel !== 0 ? this.relabel : label;
    super.write(p, written, pos, slots);
    if (this.draft.length === 0) return;
    const w = this.writing;
    const k = w >= 0 && (this.groups[w] ?? -1) >= 0 ? (this.prefixLengths[this.groups[w] ?? 0] ?? 1) : 0;
    if (!draftSkipped(this.skipsPrefix, w, this.writingStub, pos, k)) this.draft[p] = written;
  }

  /** The commit (and the tree's insert) reads the metadata row and frees it; under `state-slot-reuse` the state slot too. */
  override handoff(slot: number): boolean {
    if (!super.handoff(slot)) return false;
    this.slots?.commit(slot, this.serial(slot));
    return true;
  }

  /** The release frees the state slot too. */
  override free(slot: number): boolean {
    if (!super.free(slot)) return false;
    this.slots?.release(slot, this.serial(slot), true);
    return true;
  }

  /** A timeout frees the state slot and the metadata row. */
  override timeout(slot: number): boolean {
    if (!super.timeout(slot)) return false;
    this.slots?.release(slot, this.serial(slot), true);
    return true;
  }

  /** Takes the logged pages, or those of the allocation order (as `LoggedPool.takePages`). */
  protected override takePages(at: number, n: number, tokens?: number, decode?: boolean): void {
    const list = this.freeList;
    this.twice = this.picks.take(this.wanted, this.tables, at, n, () => super.takePages(at, n, tokens, decode), (p) => (list === undefined ? this.freeSet.remove(p) : list.remove(p)));
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
