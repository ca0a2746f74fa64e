/**
 * The pool with the host tier of D's prefix cache (config `loadback`, spec/loadback.ts): a
 * prefix that missed D's cache but is still in host memory is loaded back into pages of the
 * request's own, a second writer beside P's transfer (SGLang's `_pre_alloc` fills the gap
 * `[prefix_len, total_prefix_len)` from host memory through `HiRadixCache.init_load_back`),
 * on TypedArrays sized once: a load state per request slot, a host-copy state per prefix.
 *
 * What happens, each time as the spec has it:
 * - `allocate`: a request with a prefix that missed D's cache (no hit) while the prefix's
 *   host copy still holds its KV posts a load; P's write then starts past the prefix's
 *   positions (`firstWritten`), the stub's dummy too.
 * - `loadBack` lands the load whole (`loading_check` on the controller's ack): while the
 *   request holds its table, prefix position `j` gets what the host copy holds now, page `j`
 *   of the prefix's KV or, once the copy was evicted and its slot reused, another user's KV
 *   (the stale label); with a draft model the draft KV beside it; under an owner check the
 *   tag of the prefix's page `j`, whatever the slot held. A request that let go of its pages
 *   lands nothing.
 * - `evictHost` (`evict_host`): the prefix's host copy is evicted and its slot reused, unless
 *   a posted load reads it; fault `host-evict-during-load` evicts it anyway, unless
 *   `hardened`'s `protect-host` holds the copy for the load.
 * - `decode` waits for the request's own load; fault `read-before-load` does not, unless
 *   `hardened`'s `wait-own-load`.
 * Like the spec, the switch is inert without a prefix, or with retraction. Without it the
 * pool is its parent's, `SlotPool` (slot-pool.ts).
 */
import { HIT, isLive } from '../spec/state.ts';
import { faultActs, NO_PAGE, prefixLabelOf, STALE_DATA } from './options.ts';
import type { PagePool } from './pool.ts';
import type { SteppingPoolOptions } from './stepping-pool.ts';
import { SlotPool } from './slot-pool.ts';

/** The slot pool's options, and whether D's prefix cache has a host tier. */
export interface LoadbackPoolOptions extends SteppingPoolOptions {
  /** Config `loadback`: a prefix in host memory is loaded back into the request's pages (actions `loadBack`, `evictHost`); off when left out. */
  readonly loadback?: boolean;
}

/** A request slot's load: none, posted (reading the host copy), landed (spec/loadback.ts's `LOAD`). */
export const POOL_LOAD = { none: 0, posted: 1, landed: 2 } as const;

/** The slot pool with a host tier and its loads. */
export class LoadbackPool extends SlotPool {
  /** Per request slot: its load, a {@link POOL_LOAD} code. */
  readonly load: Uint8Array;
  /** Per prefix group: 1 once its host copy was evicted and its slot reused for another user's KV. */
  readonly hostReused: Uint8Array;
  /** Whether config `loadback` is on and acts: a prefix, and no retraction. */
  private readonly loading: boolean;
  /** Fault `host-evict-during-load` not stopped by `protect-host`: an eviction may take a copy a load reads. */
  private readonly evictsUnderLoad: boolean;
  /** Fault `read-before-load` not stopped by `wait-own-load`: decode does not wait for the load. */
  private readonly readsEarly: boolean;

  constructor(options: LoadbackPoolOptions) {
    super(options);
    this.loading = options.loadback === true && (options.prefixes ?? 0) > 0 && options.retraction !== true;
    this.load = new Uint8Array(options.slots);
    this.hostReused = new Uint8Array(options.prefixes ?? 0);
    this.evictsUnderLoad = faultActs(options, 'host-evict-during-load', 'protect-host');
    this.readsEarly = faultActs(options, 'read-before-load', 'wait-own-load');
  }

  /** Makes this pool's state equal to `other`'s, a pool built with the same options. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof LoadbackPool)) return;
    this.load.set(other.load);
    this.hostReused.set(other.hostReused);
  }

  /** Admits as the slot pool does; a prefix that missed D's cache and is still on the host posts a load. */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    const g = this.groups[slot] ?? -1;
    const hit = ((this.flags[slot] ?? 0) & HIT) !== 0;
    this.load[slot] = this.loading && g >= 0 && !hit && this.hostReused[g] === 0 ? POOL_LOAD.posted : POOL_LOAD.none;
    return true;
  }

  /** P's write starts past the positions the load fills. */
  protected override firstWritten(s: number): number {
    const loaded = this.load[s] === POOL_LOAD.none ? 0 : (this.prefixLengths[this.groups[s] ?? 0] ?? 1);
    return super.firstWritten(s) + loaded;
  }

  /** A decode step waits for the request's own load, unless under `read-before-load` it does not. */
  override decode(slot: number): boolean {
    if (this.load[this.slotIndex(slot)] === POOL_LOAD.posted && !this.readsEarly) return false;
    return super.decode(slot);
  }

  /** Config `loadback`: the slot's load lands, with what the host copy holds now, into its prefix's pages while it holds them. False when no load is posted. */
  loadBack(slot: number): boolean {
    const s = this.slotIndex(slot);
    if (this.load[s] !== POOL_LOAD.posted) return false;
    const g = this.groups[s] ?? 0;
    const base = s * this.options.maxLength;
    // A request that let go of its pages drops its load: SGLang keeps loading nodes locked until the ack, so nobody else holds them meanwhile.
    const lands = isLive(this.phases[s] ?? 0);
    for (let j = 0; lands && j < (this.prefixLengths[g] ?? 1); j++) {
      const p = this.tables[base + j] ?? NO_PAGE;
      if (p === NO_PAGE) continue;
      const own = prefixLabelOf((this.prefixBase[g] ?? 0) + j);
      const label = this.hostReused[g] === 1 ? STALE_DATA : own;
      this.write(p, label, j, this.options.pageSize ?? 1);
      if (this.stepping.draft === true) this.draft[p] = label;
      // D tags what it asked to load, whatever the host slot held.
      if (this.behaviour.ownerCheck) this.tag[p] = own;
    }
    this.load[s] = POOL_LOAD.landed;
    return true;
  }

  /** Config `loadback`: host memory runs short and prefix `prefix`'s host copy is evicted and its slot reused; false when it is gone already, or a load reads it and nothing lets the eviction take it. */
  evictHost(prefix: number | undefined): boolean {
    if (!this.loading || prefix === undefined || prefix < 0 || this.hostReused[prefix] !== 0) return false;
    if (this.copyUnderLoad(prefix) && !this.evictsUnderLoad) return false;
    this.hostReused[prefix] = 1;
    return true;
  }

  /** Whether a posted load of some slot reads prefix `g`'s host copy. */
  private copyUnderLoad(g: number): boolean {
    for (let s = 0; s < this.load.length; s++) if (this.groups[s] === g && this.load[s] === POOL_LOAD.posted) return true;
    return false;
  }
}
