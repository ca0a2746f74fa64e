/**
 * One state the system may be in, at real scale. The spec's own state is a byte string
 * sized for a handful of requests and at most 254 pages; a log of a real deployment has
 * 16,384 pages and 100,000 requests. So the validator runs the spec's actions on the
 * TypedArray pool of impl/, the implementation that the model-based test holds against the
 * spec after every step (refinement plus enabledness), with request slots reused as the
 * pool reuses them: a slot stands for one request from its arrival until its pages are
 * released and no action of the spec can touch it again, then for the next one. Memory is
 * bounded by the slots (the requests in flight), never by the log's length.
 *
 * The only thing added to the pool is where page ids come from: the log says which pages
 * an allocation took, and under the `any` allocator the pool takes exactly those. The
 * steps work with {@link LogPool}: this file's `LoggedPool` (`ServingPool` with the host
 * tier and the draft model, tier-pool.ts, whose log says
 * what each later decode step read), or under `radix` radix.ts's `LoggedRadixPool` (impl's
 * `ServingRadixPool`: the same serving pool, its prefix cache the radix tree).
 */
import { Ph } from '../spec/index.ts';
import { hasMechanism } from '../spec/behaviour.ts';
import { faultActs, STALE_DATA, type PagePool, type ServingPool } from '../impl/index.ts';
import { LogPicks } from './log-picks.ts';
import { SlotLedger, type SlotPick } from './slot-ledger.ts';
import { TierPool, type TierPoolOptions } from './tier-pool.ts';

export { LogPicks } from './log-picks.ts';
export { finished, tableOf, takeAction } from './pool-actions.ts';

/** What the validator needs of one state's pool: the serving pool's actions, and the page ids of the next allocation taken from the log when asked. */
export interface LogPool extends ServingPool {
  /** The pages the next `allocate` takes, in table order (after a shared prefix page); the lowest free when unset. */
  wanted: readonly number[] | undefined;
  /** A page the last logged allocation named twice, or -1. */
  twice: number;
  /** D's state slots and metadata rows (config `stateSlots`, slot-ledger.ts); `undefined` without them. */
  readonly slots: SlotLedger | undefined;
  /** The state slot and metadata row the next `allocate` takes, as the log names them. */
  slotPick: SlotPick;
  /** Per request slot: 0, or the label the rest of its write carries after P freed its source pages early. */
  readonly sourceLabel: Int32Array;
  /** P frees the source pages of the slot's outstanding write early (fault `source-early-free`); whether the spec enables it. */
  abortSource(slot: number): boolean;
  /** P's prefill of the request with `serial` reused the slot's freed source pages. */
  reuseSource(slot: number, serial: number): void;
  /** Per request slot: its load from host memory (a code of the spec's `LOAD`; config `loadback`); absent under `radix`. */
  readonly load?: Uint8Array;
  /** Per prefix group: 1 once its host copy was evicted and reused (config `loadback`). */
  readonly hostReused?: Uint8Array;
  /** Per page: whose draft KV it holds (config `draft`; empty without it). */
  readonly draft?: Int32Array;
  /** How many leading table positions of the slot a load fills, not P (config `loadback`). */
  loadedCount?(slot: number): number;
  /** The slot's load lands (the spec's `loadBack`); whether one was posted. */
  loadBack?(slot: number): boolean;
  /** Prefix `prefix`'s host copy is evicted and reused (the spec's `evictHost`); whether the spec enables it. */
  evictHost?(prefix: number | undefined): boolean;
  /** The slots whose posted load reads prefix `g`'s host copy. */
  loadsReading?(g: number): number[];
  /** A copy of this state. */
  fork(): LogPool;
}

/** The logged pool's options: the serving pool's with the host tier and the draft model (tier-pool.ts), and whether D's state slots are modelled (config `stateSlots`). */
export interface LoggedPoolOptions extends TierPoolOptions {
  /** Config `stateSlots`: a state slot and a metadata row per request (slot-ledger.ts). */
  readonly stateSlots?: boolean;
  /** Config `sourcePages`: P's source pages, which P may free early under fault `source-early-free`. */
  readonly sourcePages?: boolean;
}

/** The ledger of D's slots for a logged pool with these options, or `undefined` without `stateSlots`. */
export function ledgerFor(options: LoggedPoolOptions): SlotLedger | undefined {
  if (options.stateSlots !== true) return undefined;
  return new SlotLedger(options.slots, faultActs(options, 'metadata-collision', 'metadata-alloc-checks-holder'), faultActs(options, 'state-slot-reuse', 'slot-freed-with-request'));
}

/** P frees the source pages of the slot's outstanding write early ({@link LogPool.abortSource}) in a pool whose request is in `phase`, marking `labels` (its `sourceLabel`): whether the spec enables it. */
export function freeSourcesEarly(o: LoggedPoolOptions, phase: number, labels: Int32Array, slot: number): boolean {
  if (o.sourcePages !== true || !faultActs(o, 'source-early-free') || !faultActs(o, 'torn-write')) return false;
  if ((phase !== Ph.allocated && phase !== Ph.timedOut) || labels[slot] !== 0) return false;
  if (!hasMechanism(o.variant, 'hold-source')) labels[slot] = STALE_DATA;
  return true;
}

/** The pool, with the page ids of the next allocation taken from the log when asked. */
export class LoggedPool extends TierPool implements LogPool {
  /** The pages the next `allocate` takes ({@link LogPool}). */
  wanted: readonly number[] | undefined;
  /** A page the last logged allocation named twice, or -1. */
  twice: number;
  /** D's state slots and metadata rows ({@link LogPool}). */
  readonly slots: SlotLedger | undefined;
  /** The ids the next `allocate` takes ({@link LogPool}). */
  slotPick: SlotPick = {};
  /** Per request slot: 0 while P's source pages hold its own KV; after P freed them early (`abortSource`), the label its write lands instead (the reusing request's serial, or another user's KV). */
  readonly sourceLabel: Int32Array;
  /** Per request slot: 1 while D has committed it before its write landed (fault `premature-success`). */
  readonly early: Uint8Array;
  /** Fault `premature-success` under `torn-write`, not stopped by `commit-counts-landed`: the commit may come before the write has landed. */
  private readonly commitsEarly: boolean;
  /** The label the write landing now carries instead of its own, or 0. */
  private relabel = 0;
  private readonly picks: LogPicks;

  constructor(readonly logged: LoggedPoolOptions) {
    super(logged);
    this.wanted = undefined;
    this.twice = -1;
    this.picks = new LogPicks(this.behaviour.doubleFree, this.holder.length);
    this.slots = ledgerFor(logged);
    this.sourceLabel = new Int32Array(logged.slots);
    this.early = new Uint8Array(logged.slots);
    this.commitsEarly = faultActs(logged, 'premature-success', 'commit-counts-landed') && faultActs(logged, 'torn-write');
  }

  /** Makes this pool's state equal to `other`'s, its slots and P's source pages included. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof LoggedPool)) return;
    if (other.slots !== undefined) this.slots?.copyFrom(other.slots);
    this.sourceLabel.set(other.sourceLabel);
    this.early.set(other.early);
  }

  /**
   * P frees the source pages of a write it has not finished (fault `source-early-free` under
   * `torn-write`, config `sourcePages`; spec/source-pages.ts): from now on the write carries
   * another user's KV, unless `hardened`'s `hold-source` keeps the pages. False when the
   * fault is off, the write has landed, or P freed them already.
   */
  abortSource(slot: number): boolean {
    return freeSourcesEarly(this.logged, this.phase(slot), this.sourceLabel, slot);
  }

  /** P's next prefill, of the request with `serial`, reused the freed source pages of the slot's write: what is left of the write carries its KV. */
  reuseSource(slot: number, serial: number): void {
    if (this.sourceLabel[slot] !== 0) this.sourceLabel[slot] = serial;
  }

  /** Admits as the serving pool does, and takes a state slot and a metadata row (spec/state-slots.ts `takeSlots`). */
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    this.slots?.take(slot, this.serial(slot), this.slotPick);
    return true;
  }

  /** P's write; landed as the request's own, its state and first token land in its slot and row; after an early free of its source pages, it carries what they hold then. */
  override prefill(slot: number): boolean {
    return this.landWrite(slot, () => super.prefill(slot));
  }

  /** P's stub; a silent one lands as a prefill does. */
  override stub(slot: number): boolean {
    return this.landWrite(slot, () => super.stub(slot));
  }

  /** The write `post` lands: relabelled after an early free of its source pages, and after an early commit into the committed request, whose phase stays. */
  private landWrite(slot: number, post: () => boolean): boolean {
    const early = this.early[slot] === 1;
    const committed = this.phases[slot] ?? Ph.allocated;
    if (early) this.phases[slot] = Ph.allocated;
    this.relabel = this.sourceLabel[slot] ?? 0;
    const accepted = post();
    this.relabel = 0;
    if (early) this.phases[slot] = committed;
    if (!accepted) return false;
    this.sourceLabel[slot] = 0;
    this.early[slot] = 0;
    // Landed as the request's own (`written`, or committed early; a late one's state is dropped, as in the spec): its slots too.
    if (early || this.phase(slot) === Ph.written) this.slots?.land(slot, this.serial(slot));
    return true;
  }

  /** A page write, carrying the reused source page's content while a relabelled write lands. */
  protected override write(p: number, label: number, pos: number, slots: number): void {
    super.write(p, this.relabel !== 0 ? this.relabel : label, pos, slots);
  }

  /** The commit reads the metadata row and frees it (under `state-slot-reuse` the state slot too); under `premature-success` it may come before the write, which P posts (not a refusal), has landed. */
  override handoff(slot: number): boolean {
    const early = this.commitsEarly && this.phase(slot) === Ph.allocated && (!this.overLong(slot) || this.behaviour.silentStub);
    if (early) this.phases[slot] = Ph.written;
    if (!super.handoff(slot)) {
      if (early) this.phases[slot] = Ph.allocated;
      return false;
    }
    if (early) this.early[slot] = 1;
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

  /** Takes the logged pages, or the lowest free ones. */
  protected override takePages(at: number, n: number, tokens?: number, decode?: boolean): void {
    const list = this.freeList;
    this.twice = this.picks.take(this.wanted, this.tables, at, n, () => super.takePages(at, n, tokens, decode), (p) => (list === undefined ? this.freeSet.remove(p) : list.remove(p)));
  }

  /** A copy of this state. */
  fork(): LoggedPool {
    const copy = new LoggedPool(this.logged);
    copy.copyFrom(this);
    return copy;
  }
}
