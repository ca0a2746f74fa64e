/**
 * The replay: a small discrete-event scheduler that drives the TypedArray page pool
 * through the protocol's actions for every request of a workload, many at once.
 *
 * Requests are admitted in arrival order, each into a free slot, as soon as `allocate`
 * succeeds; when the pool has too few free pages the head of the queue waits (and so does
 * everyone behind it: D's scheduler admits in order) until a `free` makes room. Each
 * admitted request then acts at simulated times drawn from the seed, in time units of one
 * decode step: P starts writing within one unit of the allocation; the write takes 0.5 to
 * 1.5 units per page it writes (one page for a stub) and ends with the handoff; decode
 * takes one unit per output token (log-uniform, 16 to 4,096); the release follows within
 * two units. So short chats start and finish while a long document is still in prefill,
 * and a freed page goes, by the sorted free list, to whoever allocates next, with its old
 * contents. The times never depend on what decode read, so `buggy` and `owner-check` run
 * the same schedule, request for request.
 *
 * The pool decides everything the spec decides: whether a prompt is over-long (`prefill`
 * refuses it, so `stub` runs), whether the stub is refused, whether decode fails loudly,
 * and what decode read. The replay only records what it is told.
 */
import { Ph } from '../spec/index.ts';
import type { Variant } from '../spec/index.ts';
import { EventQueue } from './event-queue.ts';
import { Prng } from './prng.ts';
import { arrivals, pagesOf } from './arrivals.ts';
import type { Workload } from './workload.ts';

/** What the replay needs of a page pool: the protocol's actions, by slot, and what decode read. */
export interface ReplayPool {
  /** `allocate(r)`: false when too few pages are free. */
  allocate(slot: number, length: number): boolean;
  /** `prefill(r)`: false when not enabled (the prompt is longer than P's memory). */
  prefill(slot: number): boolean;
  /** `stub(r)`. */
  stub(slot: number): boolean;
  /** `handoff(r)`. */
  handoff(slot: number): boolean;
  /** `decode(r)`. */
  decode(slot: number): boolean;
  /** `free(r)`. */
  free(slot: number): boolean;
  /** The spec's phase code of the request in `slot`. */
  phase(slot: number): number;
  /** Pages read by the last decode in `slot` whose data another request wrote. */
  foreignReads(slot: number): number;
  /** Pages read by the last decode in `slot` that hold no other request's data but were not written for it there (`Integrity`). */
  garbageReads(slot: number): number;
  /** Pages on the free list. */
  readonly freePages: number;
}

/** How to build a pool: the pool's own constructor options. */
export interface ReplayPoolOptions {
  /** D's pages. */
  readonly pages: number;
  /** P's limit, in pages. */
  readonly prefillLimit: number;
  /** The variant the pool implements. */
  readonly variant: Variant;
  /** Most requests in flight. */
  readonly slots: number;
  /** Longest request, in pages. */
  readonly maxLength: number;
}

/** Builds a pool; the command passes `impl/pool.ts`, which keeps the replay testable on its own. */
export type PoolFactory = (options: ReplayPoolOptions) => ReplayPool;

/** What became of a request. */
export const Outcome = { pending: 0, served: 1, leaked: 2, refused: 3, failed: 4 } as const;

/** One of the {@link Outcome} codes. */
export type OutcomeCode = (typeof Outcome)[keyof typeof Outcome];

/** Everything a replay observed, per request and overall. */
export interface ReplayResult {
  /** The workload replayed. */
  readonly workload: Workload;
  /** The variant of the pool. */
  readonly variant: Variant;
  /** The seed of the lengths and the schedule. */
  readonly seed: number;
  /** Per request, in arrival order: its prompt length in tokens. */
  readonly tokens: Int32Array;
  /** Per request: its {@link Outcome}. */
  readonly outcome: Uint8Array;
  /** Per request: pages its decode read whose data another request wrote. */
  readonly foreign: Int32Array;
  /** Per request: pages its decode read that no one wrote for it there, another user's excepted: "would have answered garbage". */
  readonly garbage: Int32Array;
  /**
   * `owner-check` and `hardened` only: per request, 1 when a buggy twin pool, driven by the same actions,
   * read another request's data in its decode: the leak the owner check stopped.
   */
  readonly wouldLeak: Uint8Array | undefined;
  /** The most requests in flight at once. */
  readonly peakInFlight: number;
  /** How many times the head of the queue found too few free pages and waited. */
  readonly waits: number;
  /** Simulated time at the end, in decode steps. */
  readonly simTime: number;
  /** Wall-clock time of the replay, in milliseconds. */
  readonly elapsedMs: number;
}

/** Options of {@link replay}. */
export interface ReplayOptions {
  /** The workload (sizes, lengths, concurrency). */
  readonly workload: Workload;
  /** The variant of the pool. */
  readonly variant: Variant;
  /** Drives the lengths and the schedule. */
  readonly seed: number;
  /** Builds the pool (and the buggy twin, under `owner-check`). */
  readonly pool: PoolFactory;
  /** Called every few thousand finished requests. */
  readonly onProgress?: (done: number, inFlight: number) => void;
}

// What a slot does at its next event.
const WRITE = 1;
const HANDOFF = 2;
const DECODE = 3;
const FREE = 4;

/** Replays the workload through the pool; deterministic from the seed. */
export function replay(options: ReplayOptions): ReplayResult {
  const { workload, variant, seed } = options;
  const started = performance.now();
  const tokens = arrivals(workload, seed);
  const n = tokens.length;
  const pageTokens = workload.pageTokens;
  let maxLength = 1;
  for (let i = 0; i < n; i++) maxLength = Math.max(maxLength, pagesOf(tokens[i] ?? 1, pageTokens));
  const slots = workload.inFlight;
  const poolOptions: ReplayPoolOptions = {
    pages: workload.poolTokens / pageTokens,
    prefillLimit: workload.prefillTokens / pageTokens,
    variant,
    slots,
    maxLength,
  };
  const pool = options.pool(poolOptions);
  // The twin sees every action the pool sees; only the owner check's verdict differs.
  const twin = variant === 'owner-check' || variant === 'hardened' ? options.pool({ ...poolOptions, variant: 'buggy' }) : undefined;

  const outcome = new Uint8Array(n);
  const foreign = new Int32Array(n);
  const garbage = new Int32Array(n);
  const wouldLeak = twin === undefined ? undefined : new Uint8Array(n);
  const request = new Int32Array(slots).fill(-1);
  const next = new Uint8Array(slots);
  const idle = new Int32Array(slots);
  let idleCount = 0;
  for (let s = slots - 1; s >= 0; s--) idle[idleCount++] = s;
  const agenda = new EventQueue(slots);
  // A stream of its own, so that the lengths do not depend on how the schedule draws.
  const clock = new Prng((seed + 0x6a09e667) >>> 0);

  let admitted = 0;
  let done = 0;
  let inFlight = 0;
  let peakInFlight = 0;
  let waits = 0;
  let now = 0;

  const must = (ok: boolean, what: string, slot: number): void => {
    if (!ok) throw new Error(`pool refused ${what} for request ${request[slot]} in slot ${slot} (phase ${pool.phase(slot)})`);
  };

  /** Admits requests in arrival order while a slot and enough pages are free. */
  const admit = (): void => {
    while (idleCount > 0 && admitted < n) {
      const slot = idle[idleCount - 1] ?? 0;
      const length = pagesOf(tokens[admitted] ?? 1, pageTokens);
      if (!pool.allocate(slot, length)) {
        waits++;
        return;
      }
      if (twin !== undefined) must(twin.allocate(slot, length), 'allocate in the twin', slot);
      idleCount--;
      request[slot] = admitted++;
      next[slot] = WRITE;
      agenda.push(now + clock.next(), slot);
      if (++inFlight > peakInFlight) peakInFlight = inFlight;
    }
  };

  admit();
  while (agenda.size > 0) {
    now = agenda.peekTime();
    const slot = agenda.pop();
    const r = request[slot] ?? -1;
    switch (next[slot]) {
      case WRITE: {
        // The pool, not the replay, knows P's limit: prefill is not enabled for an over-long prompt.
        const prefilled = pool.prefill(slot);
        if (!prefilled) must(pool.stub(slot), 'stub', slot);
        if (twin !== undefined) must(prefilled ? twin.prefill(slot) : twin.stub(slot), 'the write in the twin', slot);
        if (pool.phase(slot) === Ph.refused) {
          outcome[r] = Outcome.refused;
          next[slot] = FREE;
          agenda.push(now + 2 * clock.next(), slot);
        } else {
          next[slot] = HANDOFF;
          const cost = prefilled ? pagesOf(tokens[r] ?? 1, pageTokens) : 1;
          agenda.push(now + cost * (0.5 + clock.next()), slot);
        }
        break;
      }
      case HANDOFF:
        must(pool.handoff(slot), 'handoff', slot);
        if (twin !== undefined) must(twin.handoff(slot), 'handoff in the twin', slot);
        next[slot] = DECODE;
        agenda.push(now + clock.logUniform(16, 4096), slot);
        break;
      case DECODE: {
        must(pool.decode(slot), 'decode', slot);
        const read = pool.foreignReads(slot);
        foreign[r] = read;
        garbage[r] = pool.phase(slot) === Ph.failed ? 0 : pool.garbageReads(slot);
        outcome[r] = pool.phase(slot) === Ph.failed ? Outcome.failed : read > 0 ? Outcome.leaked : Outcome.served;
        if (twin !== undefined && wouldLeak !== undefined) {
          must(twin.decode(slot), 'decode in the twin', slot);
          wouldLeak[r] = twin.foreignReads(slot) > 0 ? 1 : 0;
        }
        next[slot] = FREE;
        agenda.push(now + 2 * clock.next(), slot);
        break;
      }
      case FREE:
        must(pool.free(slot), 'free', slot);
        if (twin !== undefined) must(twin.free(slot), 'free in the twin', slot);
        request[slot] = -1;
        next[slot] = 0;
        idle[idleCount++] = slot;
        inFlight--;
        if (++done % 4096 === 0) options.onProgress?.(done, inFlight);
        admit();
        break;
      default:
        throw new Error(`slot ${slot} has no pending action`);
    }
  }
  if (admitted < n) throw new Error(`request ${admitted} (${tokens[admitted]} tokens) can never be allocated: the pool is empty and still too small`);
  options.onProgress?.(done, inFlight);
  return {
    workload,
    variant,
    seed,
    tokens,
    outcome,
    foreign,
    garbage,
    wouldLeak,
    peakInFlight,
    waits,
    simTime: now,
    elapsedMs: performance.now() - started,
  };
}
