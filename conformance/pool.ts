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
 * steps work with {@link LogPool}: this file's `LoggedPool` (`ServingPool`, whose log says
 * what each later decode step read), or under `radix` radix.ts's `LoggedRadixPool` (impl's
 * `ServingRadixPool`: the same serving pool, its prefix cache the radix tree).
 */
import { HIT, INSERTED, Ph, type ActionKind } from '../spec/index.ts';
import { hasMechanism } from '../spec/behaviour.ts';
import { faultActs, ServingPool, STALE_DATA, type PagePool, type ServingPoolOptions } from '../impl/index.ts';
import { LogPicks } from './log-picks.ts';
import { SlotLedger, type SlotPick } from './slot-ledger.ts';

export { LogPicks } from './log-picks.ts';

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
  /** P frees the source pages of the slot's outstanding write early (fault `source-early-free`); whether the spec enables it. */
  abortSource(slot: number): boolean;
  /** P's prefill of the request with `serial` reused the slot's freed source pages. */
  reuseSource(slot: number, serial: number): void;
  /** A copy of this state. */
  fork(): LogPool;
}

/** The logged pool's options: the serving pool's, and whether D's state slots are modelled (config `stateSlots`). */
export interface LoggedPoolOptions extends ServingPoolOptions {
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

/** The pool, with the page ids of the next allocation taken from the log when asked. */
export class LoggedPool extends ServingPool implements LogPool {
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
  }

  /** Makes this pool's state equal to `other`'s, its slots and P's source pages included. */
  override copyFrom(other: PagePool): void {
    super.copyFrom(other);
    if (!(other instanceof LoggedPool)) return;
    if (other.slots !== undefined) this.slots?.copyFrom(other.slots);
    this.sourceLabel.set(other.sourceLabel);
  }

  /**
   * P frees the source pages of a write it has not finished (fault `source-early-free` under
   * `torn-write`, config `sourcePages`; spec/source-pages.ts): from now on the write carries
   * another user's KV, unless `hardened`'s `hold-source` keeps the pages. False when the
   * fault is off, the write has landed, or P freed them already.
   */
  abortSource(slot: number): boolean {
    const o = this.logged;
    if (o.sourcePages !== true || !faultActs(o, 'source-early-free') || !faultActs(o, 'torn-write')) return false;
    const phase = this.phase(slot);
    if ((phase !== Ph.allocated && phase !== Ph.timedOut) || this.sourceLabel[slot] !== 0) return false;
    if (!hasMechanism(o.variant, 'hold-source')) this.sourceLabel[slot] = STALE_DATA;
    return true;
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
    this.relabel = this.sourceLabel[slot] ?? 0;
    const accepted = super.prefill(slot);
    this.relabel = 0;
    if (accepted) this.sourceLabel[slot] = 0;
    return this.landed(slot, accepted);
  }

  /** P's stub; a silent one lands as a prefill does. */
  override stub(slot: number): boolean {
    this.relabel = this.sourceLabel[slot] ?? 0;
    const accepted = super.stub(slot);
    this.relabel = 0;
    if (accepted) this.sourceLabel[slot] = 0;
    return this.landed(slot, accepted);
  }

  /** A page write, carrying the reused source page's content while a relabelled write lands. */
  protected override write(p: number, label: number, pos: number, slots: number): void {
    super.write(p, this.relabel !== 0 ? this.relabel : label, pos, slots);
  }

  /** The commit reads the metadata row and frees it (under `state-slot-reuse` the state slot too). */
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

  /** After an accepted write: when it landed as the request's own (`written`; a late one's state is dropped, as in the spec), its slots. */
  private landed(slot: number, accepted: boolean): boolean {
    if (accepted && this.phase(slot) === Ph.written) this.slots?.land(slot, this.serial(slot));
    return accepted;
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

/** Takes spec action `kind` for the request in `slot`; whether the spec (through the pool) enabled it. */
export function takeAction(pool: PagePool, kind: ActionKind, slot: number, length: number, group: number, tokens?: number): boolean {
  // A switch, not ts-pattern: this runs once per logged event.
  switch (kind) {
    case 'allocate':
      return pool.allocate(slot, length, group >= 0 ? group : undefined, tokens);
    case 'prefill':
      return pool.prefill(slot);
    case 'stub':
      return pool.stub(slot);
    case 'handoff':
      return pool.handoff(slot);
    case 'decode':
      return pool.decode(slot);
    case 'free':
      return pool.free(slot);
    case 'timeout':
      return pool.timeout(slot);
    case 'insert':
      return pool.insert(slot);
    case 'evict':
      return pool.evict(slot, length, group >= 0 ? group : undefined);
    case 'grow':
      return pool instanceof ServingPool && pool.grow(slot);
    case 'landData':
    case 'landTag':
      // The pool lands every write whole: the part landings of torn-write are the spec's alone.
      return false;
    case 'retract':
      return pool instanceof ServingPool && pool.retract(slot);
    case 'resume':
      return pool instanceof ServingPool && pool.resume(slot);
    case 'abortCommit':
      return pool instanceof ServingPool && pool.abortCommit(slot);
    case 'offload':
      return pool instanceof ServingPool && pool.offload(slot);
    case 'landRoom':
    case 'landPayload':
      // Never reached: the metadata slot is fault aux-torn's, which validate-log does not check.
      return false;
    case 'allocFail':
      // A failed attempt is a refused allocate (step-allocate.ts).
      return false;
    case 'abortSource':
      // Taken by a `sourceFree` line only (step-write.ts), never as a hidden step.
      return (pool as Partial<LogPool>).abortSource?.(slot) === true;
    case 'landDraft':
      // Never reached: the draft model's KV is not a switch validate-log follows (conformance/coverage.ts).
    case 'loadBack':
    case 'evictHost':
      // Never reached: the host cache's load back is not a switch validate-log follows (conformance/coverage.ts).
      return false;
    default:
      return unreachable(kind);
  }
}

// Read once: a namespace re-export is a getter call on every access.
const { freed: FREED, released: RELEASED, landed: LANDED } = Ph;

/** Marks a switch as exhaustive. */
function unreachable(x: never): never {
  throw new Error(`unreachable: ${String(x)}`);
}

/** Whether the slot's first page is a shared prefix page. */
export function sharesFirst(pool: PagePool, slot: number): boolean {
  return ((pool.flags[slot] ?? 0) & (HIT | INSERTED)) !== 0;
}

/** The slot's page table, in order. */
export function tableOf(pool: PagePool, slot: number): number[] {
  const row = pool.pageTable(slot);
  const out: number[] = [];
  for (let i = 0; i < (pool.lengths[slot] ?? 0); i++) out.push(row[i] ?? -1);
  return out;
}

/** Whether no action of the spec can touch the slot's request again (unless a stale second release comes). */
export function finished(pool: PagePool, slot: number): boolean {
  const phase = pool.phase(slot);
  return phase === FREED || phase === RELEASED || phase === LANDED;
}
