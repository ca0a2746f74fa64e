/**
 * The serving pool with what a log's `load`, `loaded`, `hostEvict` lines and a draft model
 * add (config `loadback`, `draft`): the host tier of D's prefix cache (spec/loadback.ts,
 * impl/loadback-pool.ts) and the draft model's KV beside every page (spec/draft.ts,
 * impl/draft-pool.ts), on the serving pool whose later decode steps the log tells. impl's
 * `LoadbackPool` and `DraftPool` extend the stepping pool (the spec's own decode steps),
 * which a log does not drive; this is the same state and the same rules on the pool the
 * validator drives.
 *
 * What SGLang does (`python/sglang/srt/`): `DecodePreallocQueue._pre_alloc`
 * (`disaggregation/decode.py`) fills the gap `[prefix_len, total_prefix_len)` of a host hit
 * from host memory (`HiRadixCache.init_load_back` → `load_back`, `mem_cache/hiradix_cache.py`),
 * and P's transfer covers what follows; `loading_check` acknowledges the load;
 * `evict_host` frees a host copy no load protects. `_init_kv_manager` appends the draft
 * worker's KV buffers to the target's, so P's one transfer moves both, into the same page
 * ids.
 *
 * As the spec has it:
 * - `allocate`: a prefix that missed D's cache while its host copy holds its KV posts a
 *   load, and P's write starts past the prefix (`firstWritten`).
 * - `loadBack`: the load lands whole, each prefix page getting what the host copy holds
 *   now (another user's KV once it was evicted and reused), its draft KV with it, and
 *   under an owner check the prefix page's tag; a request that let go of its pages lands
 *   nothing. `evictHost`: a copy no load reads (any, under `host-evict-during-load`
 *   without `protect-host`) is evicted and reused. `decode` waits for the load, unless
 *   under `read-before-load` without `wait-own-load`.
 * - Every write (P's, a grown page's token, a load) writes the draft KV of the pages it
 *   writes; P's write lands its draft part with it (the pool lands each write whole, and
 *   D's commit waits for both), skipping the prefix's positions under `draft-stale`
 *   without `draft-fills-hit` (a stub's one page never).
 */
import { HIT, isLive, LOAD } from '../spec/index.ts';
import { faultActs, NO_PAGE, prefixLabelOf, ServingPool, STALE_DATA, type PagePool, type ServingPoolOptions } from '../impl/index.ts';

/** The serving pool's options, and whether the host tier and the draft model are modelled. */
export interface TierPoolOptions extends ServingPoolOptions {
  /** Config `loadback`: a prefix in host memory is loaded back into the request's pages. */
  readonly loadback?: boolean;
  /** Config `draft`: every page holds a draft model's KV beside the target's. */
  readonly draft?: boolean;
}

/** Whether P's write of slot `writing` (-1: none lands) leaves the draft KV at table position `pos` unwritten: under `draft-stale` without `draft-fills-hit` (`skips`), one of its prefix's `prefixLength` positions, unless the write is a stub. */
export function draftSkipped(skips: boolean, writing: number, stub: boolean, pos: number, prefixLength: number): boolean {
  return writing >= 0 && skips && !stub && pos < prefixLength;
}

/** The serving pool with the host tier's loads and the draft model's KV. */
export class TierPool extends ServingPool {
  /** Per request slot: its load, a code of the spec's {@link LOAD} (none, posted and reading the host copy, landed). */
  readonly load: Uint8Array;
  /** Per prefix group: 1 once its host copy was evicted and its slot reused for another user's KV. */
  readonly hostReused: Uint8Array;
  /** Per page: whose draft KV it holds (0: never written); empty without `draft`. */
  readonly draft: Int32Array;
  private readonly loading: boolean;
  private readonly drafting: boolean;
  /** Fault `host-evict-during-load` not stopped by `protect-host`. */
  private readonly evictsUnderLoad: boolean;
  /** Fault `read-before-load` not stopped by `wait-own-load`. */
  private readonly readsEarly: boolean;
  /** Fault `draft-stale` not stopped by `draft-fills-hit`. */
  private readonly skipsPrefix: boolean;
  /** While P's write of a slot lands: its slot, and whether it is a stub (-1: none lands). */
  private writing = -1;
  private writingStub = false;

  constructor(readonly tier: TierPoolOptions) {
    super(tier);
    this.loading = tier.loadback === true && (tier.prefixes ?? 0) > 0 && tier.retraction !== true;
    this.drafting = tier.draft === true;
    this.load = new Uint8Array(tier.slots);
    this.hostReused = new Uint8Array(tier.prefixes ?? 0);
    this.draft = new Int32Array(this.drafting ? this.holder.length : 0);
    this.evictsUnderLoad = faultActs(tier, 'host-evict-during-load', 'protect-host');
    this.readsEarly = faultActs(tier, 'read-before-load', 'wait-own-load');
    this.skipsPrefix = faultActs(tier, 'draft-stale', 'draft-fills-hit');
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof TierPool)) return;
    this.load.set(other.load);
    this.hostReused.set(other.hostReused);
    this.draft.set(other.draft);
  }

  /** Admits as the serving pool does; a prefix that missed D's cache and is still on the host posts a load. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    const g = this.groups[slot] ?? -1;
    const hit = ((this.flags[slot] ?? 0) & HIT) !== 0;
    this.load[slot] = this.loading && g >= 0 && !hit && this.hostReused[g] === 0 ? LOAD.posted : LOAD.none;
    return true;
  }

  /** How many leading table positions of the slot a load fills (its prefix's, once it posted one), not P. */
  loadedCount(slot: number): number {
    return this.load[slot] === LOAD.none ? 0 : (this.prefixLengths[this.groups[slot] ?? 0] ?? 1);
  }

  /** P's write starts past the positions the load fills. */
  protected override firstWritten(s: number): number {
    return super.firstWritten(s) + this.loadedCount(s);
  }

  /** P's write, its draft part landing with it. */
  override prefill(slot: number): boolean {
    return this.pWrite(slot, false, () => super.prefill(slot));
  }

  /** P's stub; a silent one's draft part covers its one page. */
  override stub(slot: number): boolean {
    return this.pWrite(slot, true, () => super.stub(slot));
  }

  /** Runs P's write `post` of the slot, so that `write` knows whose write lands (its draft part may skip the prefix). */
  private pWrite(slot: number, stub: boolean, post: () => boolean): boolean {
    [this.writing, this.writingStub] = [slot, stub];
    try {
      return post();
    } finally {
      this.writing = -1;
    }
  }

  /** A page write, and its draft KV beside it; P's write skips the prefix's positions under `draft-stale` (P's cache hit them, their draft KV never filled). */
  protected override write(p: number, label: number, pos: number, slots: number): void {
    super.write(p, label, pos, slots);
    if (!this.drafting) return;
    const w = this.writing;
    const k = w >= 0 && (this.groups[w] ?? -1) >= 0 ? (this.prefixLengths[this.groups[w] ?? 0] ?? 1) : 0;
    if (!draftSkipped(this.skipsPrefix, w, this.writingStub, pos, k)) this.draft[p] = label;
  }

  /** A decode step waits for the request's own load, unless under `read-before-load` it does not. */
  override decode(slot: number): boolean {
    if (this.load[this.slotIndex(slot)] === LOAD.posted && !this.readsEarly) return false;
    return super.decode(slot);
  }

  /** The slot's load lands, with what the host copy holds now, into its prefix's pages while it holds them; false when no load is posted. */
  loadBack(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.load[s] !== LOAD.posted) return false;
    const g = this.groups[s] ?? 0;
    const base = s * this.options.maxLength;
    // A request that let go of its pages drops its load: SGLang keeps loading nodes locked until the ack.
    const lands = isLive(this.phases[s] ?? 0);
    for (let j = 0; lands && j < (this.prefixLengths[g] ?? 1); j++) {
      const p = this.tables[base + j] ?? NO_PAGE;
      if (p === NO_PAGE) continue;
      const own = prefixLabelOf((this.prefixBase[g] ?? 0) + j);
      this.write(p, this.hostReused[g] === 1 ? STALE_DATA : own, j, this.options.pageSize ?? 1);
      // D tags what it asked to load, whatever the host slot held.
      if (this.behaviour.ownerCheck) this.tag[p] = own;
    }
    this.load[s] = LOAD.landed;
    return true;
  }

  /** Prefix `prefix`'s host copy is evicted and its slot reused; false when it is gone already, or a load reads it and nothing lets the eviction take it. */
  evictHost(prefix: number | undefined): boolean {
    if (!this.loading || prefix === undefined || prefix < 0 || this.hostReused[prefix] !== 0) return false;
    if (this.loadsReading(prefix).length > 0 && !this.evictsUnderLoad) return false;
    this.hostReused[prefix] = 1;
    return true;
  }

  /** The slots whose posted load reads prefix `g`'s host copy. */
  loadsReading(g: number): number[] {
    const out: number[] = [];
    for (let s = 0; s < this.load.length; s++) if (this.groups[s] === g && this.load[s] === LOAD.posted) out.push(s);
    return out;
  }
}
