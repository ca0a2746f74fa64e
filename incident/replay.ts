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
 * refuses it, so `stub` runs), whether the stub is refused, whether decode fails loudly.
 * What each decode read, and so every leak counted, comes from an independent monitor
 * (`monitor.ts`) that works out from the actions what the spec says was read; the pool's
 * own decisions and counts are checked against it, and a disagreement stops the replay.
 */
import { checksOwner, DEFAULT_FAULTS, firstPageOf, hasMechanism, isOverLongPrompt, Ph, stubsSilently } from '../spec/index.ts';
import type { LengthRule, Variant } from '../spec/index.ts';
import { EventQueue } from './event-queue.ts';
import { Prng } from './prng.ts';
import { arrivals, pagesOf } from './arrivals.ts';
import { ReadMonitor } from './monitor.ts';
import type { Workload } from './workload.ts';
import type { PoolAllocator } from '../impl/allocator-order.ts';

/** What the replay needs of a page pool: the protocol's actions, by slot, and what decode read. */
export interface ReplayPool {
  /** `allocate(r)` of `length` pages for a prompt of `tokens` tokens (no prefix): false when too few pages are free. */
  allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean;
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
  /** The page table of the request in `slot` (its first `length` entries are its pages). */
  pageTable(slot: number): Int32Array;
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
  /** Which free pages `allocate` hands out. */
  readonly allocator: PoolAllocator;
  /** Tokens per page. */
  readonly pageSize: number;
  /** When a prompt is too long for P. */
  readonly lengthRule: LengthRule;
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
  /** The pool's allocation order. */
  readonly allocator: PoolAllocator;
  /** The length rule P applies. */
  readonly lengthRule: LengthRule;
  /** The seed of the lengths and the schedule. */
  readonly seed: number;
  /** Per request, in arrival order: its prompt length in tokens. */
  readonly tokens: Int32Array;
  /** Per request: its {@link Outcome}. */
  readonly outcome: Uint8Array;
  /** Per request: pages its decode read whose data another request wrote, as the monitor says. */
  readonly foreign: Int32Array;
  /** Per request: pages its decode read that no one wrote for it there, another user's excepted: "would have answered garbage". */
  readonly garbage: Int32Array;
  /**
   * `owner-check` and `hardened` only: per request, 1 when the pages its decode was about
   * to read held another request's data (the monitor's count): the leak the owner check stopped.
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
  /** Builds the pool. */
  readonly pool: PoolFactory;
  /** The pool's allocation order (default `sorted`). */
  readonly allocator?: PoolAllocator;
  /** When a prompt is too long for P (default `gt`: longer than its memory). */
  readonly lengthRule?: LengthRule;
  /** Called every few thousand finished requests. */
  readonly onProgress?: (done: number, inFlight: number) => void;
  /** Called after every action the pool accepted: `incident --log` writes the events from it. */
  readonly onAction?: (action: ReplayAction) => void;
}

/** An action the replay took: its kind (`write` is `prefill` or `stub`), the slot, the request and the simulated time. */
export interface ReplayAction {
  /** What happened. */
  readonly kind: 'allocate' | 'write' | 'handoff' | 'decode' | 'free';
  /** The pool slot. */
  readonly slot: number;
  /** The request, by arrival index. */
  readonly request: number;
  /** Its prompt length in tokens. */
  readonly tokens: number;
  /** Simulated time, in decode steps. */
  readonly time: number;
}

// What a slot does at its next event.
const WRITE = 1;
const HANDOFF = 2;
const DECODE = 3;
const FREE = 4;

/** Replays the workload through the pool; deterministic from the seed. */
export function replay(options: ReplayOptions): ReplayResult {
  const { workload, variant, seed } = options;
  const allocator = options.allocator ?? 'sorted';
  const lengthRule = options.lengthRule ?? 'gt';
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
    allocator,
    pageSize: pageTokens,
    lengthRule,
  };
  const pool = options.pool(poolOptions);
  // SGLang's orders use ids 1 .. pages: page 0 is the padding page.
  const firstPage = firstPageOf(allocator);
  const monitor = new ReadMonitor(poolOptions.pages + firstPage, allocator === 'sorted' ? 'lowest-first' : 'any', firstPage, pageTokens);
  const overLong = (t: number): boolean => isOverLongPrompt(t, workload.prefillTokens, lengthRule);
  // What the spec says the pool must decide; the pool is checked against it at every step.
  // The pool is given no faults, so it has the variant's own.
  const silentStub = stubsSilently(variant, DEFAULT_FAULTS[variant]);
  // hardened's other mechanisms act on timeouts and stale releases, which the replay never takes.
  const ownerCheck = checksOwner(variant);
  const countsTokens = hasMechanism(variant, 'tag-counts-tokens');

  const outcome = new Uint8Array(n);
  const foreign = new Int32Array(n);
  const garbage = new Int32Array(n);
  const wouldLeak = ownerCheck ? new Uint8Array(n) : undefined;
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
  const agree = (ok: boolean, what: string, slot: number): void => {
    if (!ok) throw new Error(`the pool and the spec disagree for request ${request[slot]} in slot ${slot}: ${what}`);
  };
  const pagesOfSlot = (slot: number): number => pagesOf(tokens[request[slot] ?? 0] ?? 1, pageTokens);

  /** Admits requests in arrival order while a slot and enough pages are free. */
  const admit = (): void => {
    while (idleCount > 0 && admitted < n) {
      const slot = idle[idleCount - 1] ?? 0;
      const length = pagesOf(tokens[admitted] ?? 1, pageTokens);
      if (!pool.allocate(slot, length, undefined, tokens[admitted] ?? 1)) {
        waits++;
        return;
      }
      idleCount--;
      options.onAction?.({ kind: 'allocate', slot, request: admitted, tokens: tokens[admitted] ?? 1, time: now });
      monitor.allocate(admitted, pool.pageTable(slot), length, tokens[admitted] ?? 1);
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
    const told = (kind: ReplayAction['kind']): void => options.onAction?.({ kind, slot, request: r, tokens: tokens[r] ?? 1, time: now });
    switch (next[slot]) {
      case WRITE: {
        // The pool, not the replay, knows P's limit: prefill is not enabled for an over-long prompt.
        const length = pagesOfSlot(slot);
        const prefilled = pool.prefill(slot);
        const t = tokens[r] ?? 1;
        agree(prefilled !== overLong(t), `prefill ${prefilled ? 'accepted' : 'refused'} a prompt of ${t} tokens under the ${lengthRule} rule`, slot);
        if (!prefilled) must(pool.stub(slot), 'stub', slot);
        told('write');
        if (!prefilled) agree((pool.phase(slot) === Ph.refused) !== silentStub, `stub left phase ${pool.phase(slot)}`, slot);
        if (prefilled || silentStub) monitor.write(r, !prefilled);
        if (pool.phase(slot) === Ph.refused) {
          outcome[r] = Outcome.refused;
          next[slot] = FREE;
          agenda.push(now + 2 * clock.next(), slot);
        } else {
          next[slot] = HANDOFF;
          const cost = prefilled ? length : 1;
          agenda.push(now + cost * (0.5 + clock.next()), slot);
        }
        break;
      }
      case HANDOFF:
        must(pool.handoff(slot), 'handoff', slot);
        told('handoff');
        next[slot] = DECODE;
        agenda.push(now + clock.logUniform(16, 4096), slot);
        break;
      case DECODE: {
        must(pool.decode(slot), 'decode', slot);
        told('decode');
        const read = monitor.decode(r);
        const failed = pool.phase(slot) === Ph.failed;
        // hardened's tag-counts-tokens also fails a read past a page's fill.
        agree(failed === (ownerCheck && (!read.allOwn || (countsTokens && read.staleTail))), `decode ${failed ? 'failed' : 'passed'}`, slot);
        if (!failed) agree(pool.foreignReads(slot) === read.foreign, `the pool counted ${pool.foreignReads(slot)} foreign pages, the monitor ${read.foreign}`, slot);
        foreign[r] = failed ? 0 : read.foreign;
        garbage[r] = failed ? 0 : pool.garbageReads(slot);
        outcome[r] = failed ? Outcome.failed : read.foreign > 0 ? Outcome.leaked : Outcome.served;
        if (wouldLeak !== undefined) wouldLeak[r] = read.foreign > 0 ? 1 : 0;
        next[slot] = FREE;
        agenda.push(now + 2 * clock.next(), slot);
        break;
      }
      case FREE:
        must(pool.free(slot), 'free', slot);
        told('free');
        monitor.free(r);
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
    allocator,
    lengthRule,
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
