/**
 * The replay with the steps a serving P/D deployment takes beside the handoff's six
 * (`incident --serving`), so that its log (`--log`) has every event validate-log reads:
 * - decode in steps: after its first step a request decodes its output tokens one step at
 *   a time, and the step whose token falls past its table's last slot first takes a page
 *   (`grow`, SGLang's `alloc_decode` in `prepare_for_decode`);
 * - retraction: a step that finds no free page retracts its request (`retract_decode`:
 *   the copy to host memory, then the release), which waits, holding its slot, until a
 *   release leaves room for its table and one more page; it then resumes on new pages
 *   (`resume_retracted_reqs`) before any new request is admitted, as SGLang's budget counts
 *   retracted requests first. A request alone in flight that finds no page ends its decode
 *   there (SGLang aborts the last request: "Decode out of memory");
 * - aborts: one request in {@link ABORT_EVERY} times out before P's write (D's `timeout`)
 *   and P aborts its transfer; one in {@link COMMIT_ABORT_EVERY} is aborted at commit
 *   (`abortCommit`, a `bootstrap_room` mismatch). Whose fate each is comes from a stream of
 *   its own, so the other draws of the schedule are those of the plain replay.
 * - shared prefixes (`--prefixes`): a request with one of the system prompts shares the
 *   radix tree's nodes of it (`match_prefix`) and allocates past them; when the pages run
 *   short its admission first evicts unlocked leaves, one at a time (`RadixCache.evict` in
 *   `_pre_alloc`); its handoff inserts its prompt's prefix pages (`cache_unfinished_req`).
 *   The monitor follows the tree on its own and checks the pool's tables against it.
 * The releases are those of the plain replay; the log writes each as SGLang's calls
 * (spec/release.ts). The first decode step is the one the monitor checks, as in the plain
 * replay; the later steps read the same table, grown.
 */
import { Ph } from '../spec/index.ts';
import { Lifecycle, Next, type LifecycleSetup } from './lifecycle.ts';
import { Prng } from './prng.ts';
import { Outcome, type RadixReplayPool, type ServingReplayPool } from './replay-types.ts';

/** One request in this many times out before P's write lands, and P aborts it. */
export const ABORT_EVERY = 50;

/** One request in this many is aborted at commit. */
export const COMMIT_ABORT_EVERY = 100;

/** A decode step that takes a page (the code after the plain replay's). */
const GROW = 5;

/** What the serving replay did beyond the plain one. */
export interface ServingCounts {
  /** Pages taken by decode steps. */
  grows: number;
  /** Requests retracted (one may be several times). */
  retractions: number;
  /** Retracted requests resumed. */
  resumes: number;
  /** Transfers timed out and aborted by P. */
  aborts: number;
  /** Requests aborted at commit. */
  commitAborts: number;
}

/** What the radix tree did in a replay with `--prefixes`. */
export interface PrefixCounts {
  /** Admissions that shared at least one node. */
  hits: number;
  /** Handoffs of requests with a prefix (each logs its insert). */
  inserts: number;
  /** Leaves evicted. */
  evictions: number;
}

/** The lifecycle of {@link Lifecycle}, with the steps of a serving deployment. */
export class ServingLifecycle extends Lifecycle {
  /** What it did beyond the plain replay. */
  readonly counts: ServingCounts = { grows: 0, retractions: 0, resumes: 0, aborts: 0, commitAborts: 0 };
  /** With `--prefixes`: what the radix tree did. */
  readonly prefixCounts: PrefixCounts = { hits: 0, inserts: 0, evictions: 0 };
  /** Per slot: the decode steps its request takes in all. */
  private readonly total: Int32Array;
  /** Per slot: the decode steps taken so far. */
  private readonly steps: Int32Array;
  /** Retracted slots, in the order they were retracted. */
  private readonly waiting: number[] = [];
  private readonly fate: Prng;
  private readonly pool: ServingReplayPool;

  constructor(setup: LifecycleSetup & { readonly pool: ServingReplayPool }, seed: number) {
    super(setup);
    this.pool = setup.pool;
    this.total = new Int32Array(setup.slots);
    this.steps = new Int32Array(setup.slots);
    this.fate = new Prng((seed + 0x3c6ef372) >>> 0);
  }

  /** P's write, or for one request in {@link ABORT_EVERY} D's timeout before it, and P's abort. */
  protected override write(slot: number, r: number): void {
    if (this.fate.next() * ABORT_EVERY >= 1) return super.write(slot, r);
    this.must(this.pool.timeout(slot), 'timeout', slot);
    this.must(this.pool.abandon(slot), 'abandon', slot);
    this.told('timeout', slot, r);
    this.counts.aborts++;
    this.outcome[r] = Outcome.aborted;
    this.finish(slot, r);
  }

  /** The handoff, or for one request in {@link COMMIT_ABORT_EVERY} an abort at commit; then the first decode step, at once. */
  protected override handoff(slot: number, r: number): void {
    if (this.fate.next() * COMMIT_ABORT_EVERY < 1) {
      this.must(this.pool.abortCommit(slot), 'abortCommit', slot);
      this.told('abortCommit', slot, r);
      this.counts.commitAborts++;
      this.outcome[r] = Outcome.aborted;
      return this.finish(slot, r);
    }
    this.must(this.pool.handoff(slot), 'handoff', slot);
    this.s.monitor.handoff(r, this.pool.pageTable(slot));
    if (this.s.prefixOf !== undefined && (this.s.prefixOf[r] ?? -1) >= 0) this.prefixCounts.inserts++;
    this.told('handoff', slot, r);
    this.total[slot] = Math.floor(this.s.clock.logUniform(16, 4096));
    this.next[slot] = Next.decode;
    this.s.agenda.push(this.now + 1, slot);
  }

  /** The first decode step (read and checked); then the steps up to the next page, or to the end. */
  protected override decode(slot: number, r: number): void {
    this.read(slot, r);
    this.steps[slot] = 1;
    if (this.pool.phase(slot) === Ph.failed) this.total[slot] = 1;
    this.plan(slot, r);
  }

  /** The slot's next event: the step that needs a page, or the release after the last step. */
  private plan(slot: number, r: number): void {
    const need = (this.pool.lengths[slot] ?? 0) * this.s.pageTokens - (this.s.tokens[r] ?? 0) + 1;
    if (need < (this.total[slot] ?? 0)) {
      this.next[slot] = GROW;
      this.s.agenda.push(this.now + Math.max(0, need - (this.steps[slot] ?? 0)), slot);
      this.steps[slot] = need;
    } else {
      this.next[slot] = Next.free;
      this.s.agenda.push(this.now + Math.max(0, (this.total[slot] ?? 0) - (this.steps[slot] ?? 0)) + 1, slot);
      this.steps[slot] = this.total[slot] ?? 0;
    }
  }

  /** A step whose token needs a page: `grow`, or with none free a retraction (or, alone in flight, the end of its decode). */
  protected override stepMore(slot: number, r: number, code: number): void {
    if (code !== GROW) return super.stepMore(slot, r, code);
    if (this.pool.grow(slot)) {
      const length = this.pool.lengths[slot] ?? 0;
      this.s.monitor.grow(r, this.pool.pageTable(slot)[length - 1] ?? 0);
      this.counts.grows++;
      this.told('grow', slot, r, this.steps[slot]);
      return this.plan(slot, r);
    }
    if (this.inFlight - this.waiting.length <= 1) {
      this.total[slot] = this.steps[slot] ?? 0;
      return this.plan(slot, r);
    }
    this.must(this.pool.retract(slot), 'retract', slot);
    this.s.monitor.retract(r);
    this.told('retract', slot, r);
    this.counts.retractions++;
    this.waiting.push(slot);
  }

  /** The release, telling the log the tokens the request committed (its release's calls depend on them). */
  protected override free(slot: number, r: number): void {
    this.must(this.pool.free(slot), 'free', slot);
    this.told('free', slot, r, this.committed(slot, r));
    this.finish(slot, r);
  }

  /** Room for `length` pages with prefix `g` (-1: none): past the nodes it shares; when short (with prefixes on), unlocked leaves of other paths are evicted, one at a time, while that helps. */
  protected override room(slot: number, length: number, g: number): boolean {
    if (this.s.prefixOf === undefined) return super.room(slot, length, g);
    const pool = this.pool as RadixReplayPool;
    const r = this.admitted;
    const need = (): number => length - (g >= 0 ? pool.matchedCount(g) : 0);
    while (pool.freePages < need() && pool.evict(slot, length, g >= 0 ? g : undefined)) {
      this.s.monitor.evict(pool.lastEvicted);
      this.prefixCounts.evictions++;
      this.s.listeners.onAction?.({ kind: 'evict', slot, request: r, tokens: this.s.tokens[r] ?? 1, time: this.now, detail: pool.lastEvicted, group: g });
    }
    if (pool.freePages < need()) return false;
    if (need() < length) this.prefixCounts.hits++;
    return true;
  }

  /** Resumes the retracted requests that fit, in order; new requests wait while one does not. */
  protected override mayAdmit(): boolean {
    while (this.waiting.length > 0) {
      const slot = this.waiting[0] ?? 0;
      const r = this.request[slot] ?? 0;
      const length = this.pool.lengths[slot] ?? 0;
      if (this.pool.freePages < length + 1) return false;
      const tokens = this.committed(slot, r);
      this.must(this.pool.resume(slot, tokens), 'resume', slot);
      this.s.monitor.resume(r, this.pool.pageTable(slot), length);
      this.told('resume', slot, r, tokens);
      this.counts.resumes++;
      this.waiting.shift();
      // The step that found no page tries again.
      this.next[slot] = GROW;
      this.s.agenda.push(this.now, slot);
    }
    return true;
  }

  /** The tokens whose KV the request's table holds (SGLang's `fill_len`): its prompt and the tokens its steps wrote, within its pages. */
  private committed(slot: number, r: number): number {
    const length = this.pool.lengths[slot] ?? 0;
    const written = (this.s.tokens[r] ?? 0) + Math.max(0, (this.steps[slot] ?? 0) - 1);
    return Math.min(length * this.s.pageTokens, Math.max(written, (length - 1) * this.s.pageTokens + 1));
  }
}
