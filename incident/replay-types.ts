/**
 * What the replay (`replay.ts`) is given and gives back: the page pool it drives, how that
 * pool is built, its options, each action it reports, and what it observed.
 */
import type { Fault, LengthRule, Variant } from '../spec/index.ts';
import type { Workload } from './workload.ts';
import type { PoolAllocator } from '../impl/allocator-order.ts';
import type { PrefixCounts, ServingCounts } from './serving.ts';

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
  /** With `serving`: the faults (`early-free`, for the aborted transfers) and the actions the pool must take (serving.ts). */
  readonly faults?: readonly Fault[];
  /** With `serving`: decode steps take pages. */
  readonly tableGrowth?: boolean;
  /** With `serving`: requests are retracted and resumed. */
  readonly retraction?: boolean;
  /** With `prefixes`: how many shared system prompts (the pool's prefix cache is the radix tree). */
  readonly prefixes?: number;
  /** With `prefixes`: each one's length in pages. */
  readonly prefixLengths?: readonly number[];
  /** With `prefixes`: the prefix cache evicts unlocked leaves. */
  readonly eviction?: boolean;
}

/** What the replay needs besides with `serving`: the actions of a serving deployment around the handoff (impl/serving-pool.ts). */
export interface ServingReplayPool extends ReplayPool {
  /** `grow(r)`: a page for the next token; false when none is free. */
  grow(slot: number): boolean;
  /** `retract(r)`. */
  retract(slot: number): boolean;
  /** `resume(r)`, its allocation asking for `tokens`. */
  resume(slot: number, tokens?: number): boolean;
  /** `timeout(r)` (fault `early-free`). */
  timeout(slot: number): boolean;
  /** `abortCommit(r)`. */
  abortCommit(slot: number): boolean;
  /** P gave up a timed-out request's write: it is finished. */
  abandon(slot: number): boolean;
  /** Per slot: its table's length in pages. */
  readonly lengths: Int32Array;
}

/** What the replay needs besides with `prefixes`: the radix tree's match and eviction (impl/serving-radix-pool.ts). */
export interface RadixReplayPool extends ServingReplayPool {
  /** How many of prefix `g`'s pages an allocation would share now. */
  matchedCount(g: number): number;
  /** `evict`: one unlocked leaf for the allocation of `length` pages with `prefix`; false when none can go or the pages suffice. */
  evict(slot: number, length: number, prefix?: number): boolean;
  /** The page the last `evict` freed. */
  readonly lastEvicted: number;
  /** Per slot: the prefix of its request (-1: none). */
  readonly groups: Int32Array;
}

/** Builds a pool; the command passes `impl/pool.ts`, which keeps the replay testable on its own. */
export type PoolFactory = (options: ReplayPoolOptions) => ReplayPool;

/** What became of a request. */
export const Outcome = { pending: 0, served: 1, leaked: 2, refused: 3, failed: 4, aborted: 5 } as const;

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
  /** With `serving`: what it did beyond the plain replay. */
  readonly serving?: ServingCounts;
  /** With `prefixes`: the radix tree's hits, inserts and evictions. */
  readonly prefixes?: PrefixCounts;
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
  /** Whether the replay takes a serving deployment's steps too (serving.ts): its pool must then be a {@link ServingReplayPool}. */
  readonly serving?: boolean;
  /** With `serving`: how many shared system prompts (arrivals.ts's `prefixLengthsOf`); the pool must then be a {@link RadixReplayPool}. */
  readonly prefixes?: number;
}

/** An action the replay took: its kind (`write` is `prefill` or `stub`), the slot, the request and the simulated time. */
export interface ReplayAction {
  /** What happened; the kinds after `free` only with `serving` (serving.ts). */
  readonly kind: 'allocate' | 'write' | 'handoff' | 'decode' | 'free' | 'grow' | 'retract' | 'resume' | 'timeout' | 'abortCommit' | 'evict';
  /** The pool slot. */
  readonly slot: number;
  /** The request, by arrival index. */
  readonly request: number;
  /** Its prompt length in tokens. */
  readonly tokens: number;
  /** Simulated time, in decode steps. */
  readonly time: number;
  /** For a `grow`: the decode step it took its page for; for a `resume`: the tokens its allocation asked for (`fill_len`); for an `evict`: the page the tree freed. */
  readonly detail?: number;
  /** For an `evict`: the prefix of the request it makes room for. */
  readonly group?: number;
}
