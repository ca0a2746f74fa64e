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
import { ServingPool, type PagePool, type ServingPoolOptions } from '../impl/index.ts';

/** What the validator needs of one state's pool: the serving pool's actions, and the page ids of the next allocation taken from the log when asked. */
export interface LogPool extends ServingPool {
  /** The pages the next `allocate` takes, in table order (after a shared prefix page); the lowest free when unset. */
  wanted: readonly number[] | undefined;
  /** A page the last logged allocation named twice, or -1. */
  twice: number;
  /** A copy of this state. */
  fork(): LogPool;
}

/**
 * The logged allocation, the same in every pool class the validator runs (this file's
 * `LoggedPool`, radix.ts's `LoggedRadixPool`): the log's pages taken into table entries
 * `at .. at+n-1` when it names them, and the page named twice.
 */
export class LogPicks {
  /** Per page, the epoch of the last duplicate scan that met it (`double-free` only). */
  private readonly marks: Int32Array;
  private epoch = 0;

  constructor(private readonly doubleFree: boolean, pages: number) {
    this.marks = new Int32Array(doubleFree ? pages : 0);
  }

  /** A logged pool's `takePages`: the wanted pages when the log names them (`remove` takes one off the free list), else the pool's own order (`own`); the page named twice, or -1 (a multiset free list under `double-free` can hand one page out twice in one allocation). */
  take(wanted: readonly number[] | undefined, tables: Int32Array, at: number, n: number, own: () => void, remove: (p: number) => boolean): number {
    if (wanted !== undefined) return this.takeWanted(wanted, tables, at, n, remove);
    own();
    return this.doubleFree ? this.repeated(tables, at, n) : -1;
  }

  /** The table entries `at .. at+n-1` take the wanted pages, each removed from the free list by `remove` (false when it was not free); the page named twice, or -1. */
  takeWanted(wanted: readonly number[], tables: Int32Array, at: number, n: number, remove: (p: number) => boolean): number {
    let twice = -1;
    for (let i = 0; i < n; i++) {
      const p = wanted[i] ?? 0;
      // Every page was free before: one that is not free now was named twice (more often than the multiset of `double-free` lists it).
      if (!remove(p)) twice = p;
      tables[at + i] = p;
    }
    return twice < 0 && this.doubleFree ? this.repeated(tables, at, n) : twice;
  }

  /** A page that table entries `at .. at+n-1` name twice, or -1: one pass, marking pages with a fresh epoch (nothing allocated). */
  repeated(tables: Int32Array, at: number, n: number): number {
    const marks = this.marks;
    if (++this.epoch === 0x7fffffff) {
      marks.fill(0);
      this.epoch = 1;
    }
    const epoch = this.epoch;
    for (let i = at; i < at + n; i++) {
      const p = tables[i] ?? 0;
      if (marks[p] === epoch) return p;
      marks[p] = epoch;
    }
    return -1;
  }
}

/** The pool, with the page ids of the next allocation taken from the log when asked. */
export class LoggedPool extends ServingPool implements LogPool {
  /** The pages the next `allocate` takes ({@link LogPool}). */
  wanted: readonly number[] | undefined;
  /** A page the last logged allocation named twice, or -1. */
  twice: number;
  private readonly picks: LogPicks;

  constructor(options: ServingPoolOptions) {
    super(options);
    this.wanted = undefined;
    this.twice = -1;
    this.picks = new LogPicks(this.behaviour.doubleFree, this.holder.length);
  }

  /** Takes the logged pages, or the lowest free ones. */
  protected override takePages(at: number, n: number, tokens?: number, decode?: boolean): void {
    const list = this.freeList;
    this.twice = this.picks.take(this.wanted, this.tables, at, n, () => super.takePages(at, n, tokens, decode), (p) => (list === undefined ? this.freeSet.remove(p) : list.remove(p)));
  }

  /** A copy of this state. */
  fork(): LoggedPool {
    const copy = new LoggedPool(this.serving);
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
      // Never reached: P's source pages are not a switch validate-log follows (conformance/coverage.ts).
      return false;
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
