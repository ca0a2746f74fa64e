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
 *
 * This file is the scheduler: the set-up, the agenda and the loop that takes its events
 * in time order. Each event of a request's life is `lifecycle.ts`'s; the types the
 * replay takes and gives are `replay-types.ts`'s, re-exported here.
 */
import { checksOwner, DEFAULT_FAULTS, firstPageOf, hasMechanism, isOverLongPrompt, stubsSilently } from '../spec/index.ts';
import type { LengthRule, Variant } from '../spec/index.ts';
import { EventQueue } from './event-queue.ts';
import { Prng } from './prng.ts';
import { arrivals, pagesOf, prefixesOf, prefixLengthsOf } from './arrivals.ts';
import { Lifecycle, type PoolRules } from './lifecycle.ts';
import { ServingLifecycle } from './serving.ts';
import { ReadMonitor } from './monitor.ts';
import type { Workload } from './workload.ts';
import type { PoolAllocator } from '../impl/allocator-order.ts';
import type { RadixReplayPool, ReplayOptions, ReplayPool, ReplayPoolOptions, ReplayResult, ServingReplayPool } from './replay-types.ts';

export { Outcome } from './replay-types.ts';
export type { OutcomeCode, PoolFactory, ReplayAction, ReplayOptions, ReplayPool, ReplayPoolOptions, ReplayResult } from './replay-types.ts';

/** Replays the workload through the pool; deterministic from the seed. */
export function replay(options: ReplayOptions): ReplayResult {
  const { workload, variant, seed } = options;
  const allocator = options.allocator ?? 'sorted';
  const lengthRule = options.lengthRule ?? 'gt';
  const started = performance.now();
  const tokens = arrivals(workload, seed);
  const serving = options.serving === true;
  // Shared system prompts only with serving's steps (serving.ts evicts and inserts).
  const prefixLengths = serving && (options.prefixes ?? 0) > 0 ? prefixLengthsOf(options.prefixes ?? 0) : [];
  const prefixOf = prefixLengths.length > 0 ? prefixesOf(tokens, prefixLengths, workload.pageTokens, seed) : undefined;
  const poolOptions = { ...poolOptionsOf(workload, tokens, variant, allocator, lengthRule, serving), ...(prefixLengths.length > 0 ? { prefixes: prefixLengths.length, prefixLengths, eviction: true } : {}) };
  const pool = options.pool(poolOptions);
  // SGLang's orders use ids 1 .. pages: page 0 is the padding page.
  const firstPage = firstPageOf(allocator);
  const monitor = new ReadMonitor(poolOptions.pages + firstPage, allocator === 'sorted' ? 'lowest-first' : 'any', firstPage, workload.pageTokens, prefixLengths);
  const agenda = new EventQueue(poolOptions.slots);
  // A stream of its own, so that the lengths do not depend on how the schedule draws.
  const clock = new Prng((seed + 0x6a09e667) >>> 0);
  const rules = rulesOf(variant, workload, lengthRule);
  const setup = { tokens, pageTokens: workload.pageTokens, slots: poolOptions.slots, pool, monitor, rules, agenda, clock, listeners: options, ...(prefixOf === undefined ? {} : { prefixOf }) };
  const life = serving ? new ServingLifecycle({ ...setup, pool: servingPool(pool, prefixOf !== undefined) }, seed) : new Lifecycle(setup);

  life.admit();
  while (agenda.size > 0) {
    life.now = agenda.peekTime();
    life.step(agenda.pop());
  }
  const { admitted, done, inFlight } = life;
  if (admitted < tokens.length) throw new Error(`request ${admitted} (${tokens[admitted]} tokens) can never be allocated: the pool is empty and still too small`);
  options.onProgress?.(done, inFlight);
  return {
    workload,
    variant,
    allocator,
    lengthRule,
    seed,
    tokens,
    outcome: life.outcome,
    foreign: life.foreign,
    garbage: life.garbage,
    wouldLeak: life.wouldLeak,
    peakInFlight: life.peakInFlight,
    waits: life.waits,
    simTime: life.now,
    elapsedMs: performance.now() - started,
    ...(life instanceof ServingLifecycle ? { serving: life.counts } : {}),
    ...(life instanceof ServingLifecycle && prefixOf !== undefined ? { prefixes: life.prefixCounts } : {}),
  };
}

/** The pool the workload needs: its sizes in pages, a slot per request in flight, and room for the longest prompt (and with `serving` its output's pages, and the faults and actions serving.ts takes). */
function poolOptionsOf(workload: Workload, tokens: Int32Array, variant: Variant, allocator: PoolAllocator, lengthRule: LengthRule, serving: boolean): ReplayPoolOptions {
  const pageTokens = workload.pageTokens;
  let maxLength = 1;
  for (let i = 0; i < tokens.length; i++) maxLength = Math.max(maxLength, pagesOf(tokens[i] ?? 1, pageTokens));
  const steps = serving ? { faults: [...DEFAULT_FAULTS[variant], 'early-free' as const], tableGrowth: true, retraction: true } : {};
  if (serving) maxLength = Math.min(workload.poolTokens / pageTokens, maxLength + Math.ceil(4096 / pageTokens) + 1);
  return {
    ...steps,
    pages: workload.poolTokens / pageTokens,
    prefillLimit: workload.prefillTokens / pageTokens,
    variant,
    slots: workload.inFlight,
    maxLength,
    allocator,
    pageSize: pageTokens,
    lengthRule,
  };
}

/** What the spec says the pool must decide under `variant`. */
function rulesOf(variant: Variant, workload: Workload, lengthRule: LengthRule): PoolRules {
  return {
    overLong: (t) => isOverLongPrompt(t, workload.prefillTokens, lengthRule),
    lengthRule,
    // The pool is given no faults, so it has the variant's own.
    silentStub: stubsSilently(variant, DEFAULT_FAULTS[variant]),
    // hardened's other mechanisms act on timeouts and stale releases, which the replay never takes.
    ownerCheck: checksOwner(variant),
    countsTokens: hasMechanism(variant, 'tag-counts-tokens'),
  };
}

/** The pool as a serving pool: `serving` needs one (impl/serving-pool.ts), and `prefixes` one with the radix tree; a factory that builds another is a programming error. */
function servingPool(pool: ReplayPool, radix: boolean): ServingReplayPool {
  const p = pool as Partial<RadixReplayPool>;
  if (typeof p.grow !== 'function' || typeof p.retract !== 'function' || typeof p.resume !== 'function' || typeof p.abortCommit !== 'function') throw new TypeError('replay: serving needs a pool with grow, retract, resume and abortCommit (impl/serving-pool.ts)');
  if (radix && (typeof p.evict !== 'function' || typeof p.matchedCount !== 'function' || p.lastEvicted === undefined)) throw new TypeError('replay: prefixes need a pool with the radix tree (impl/serving-radix-pool.ts)');
  return pool as ServingReplayPool;
}
