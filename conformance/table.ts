/**
 * The one table from log events to the spec's actions. Each event kind is either a spec
 * action that the system took and logged (with the phase the request must reach, where
 * one action has several outcomes), an observation that checks the state without changing
 * it, or a boundary of a hidden step. A new action of the spec gets its event here, and
 * nowhere else.
 *
 * Hidden steps. Some actions are never logged where they happen: P's RDMA write lands in
 * D's pages without D's CPU seeing it. An event may open a hidden step (a set of action
 * kinds, exactly one of which the spec takes unobserved, later) and another may close it
 * (by then it must have happened). Between the two, the validator lets it happen at any
 * point the log does not rule out. A write that lands part by part (fault `torn-write`) is
 * one hidden step per part, opened by the same event and closed by the same `done`: more
 * entries here, not new machinery.
 */
import { ACTION_KINDS, lacking, type ActionKind, type Phase } from '../spec/index.ts';
import { VALIDATOR_COVERAGE } from './coverage.ts';
import type { EventKind } from './events.ts';

/** What an event means to the validator. */
export type EventRule =
  /** The model's configuration. */
  | { readonly role: 'config' }
  /** A request arrives: it gets a slot, and its length and prefix. */
  | { readonly role: 'arrival' }
  /**
   * The spec action `action` was taken; with `outcomes`, it must leave the request in one
   * of those phases; `opens` the hidden steps it starts; `releases` when it releases the
   * table, whose allocator calls may follow as `free` lines (step-release.ts).
   */
  | { readonly role: 'action'; readonly action: ActionKind; readonly outcomes?: readonly Phase[]; readonly opens?: readonly ActionKind[]; readonly releases?: true }
  /** A hidden step of the request, opened earlier, must have happened by now. */
  | { readonly role: 'close' }
  /** A hidden step of the request, opened earlier, will never happen: P gave it up. */
  | { readonly role: 'drop' }
  /** Checks the state (the pages the request is about to be written, or read again, the radix tree's insert at its handoff, or its state slot released) and changes nothing. */
  | { readonly role: 'observe'; readonly needs: 'write-pending' | 'decoded' | 'inserted' | 'state-released' | 'load-posted' }
  /** An event the spec has no action for yet. */
  | { readonly role: 'unmodelled'; readonly why: string };

/** The write of a request: `prefill`, or `stub` for a prompt longer than P's memory; the spec enables exactly one. */
export const WRITE_KINDS: readonly ActionKind[] = ['prefill', 'stub'];

/**
 * The part landings of a torn write (fault `torn-write`): hidden steps of the write, opened
 * by the same `allocate`. The pool lands every write whole, so they are never taken; the
 * validator reads `torn-write` logs only where that loses no verdict (events.ts).
 */
export const PART_KINDS: readonly ActionKind[] = ['landData', 'landTag'];

/**
 * The draft model's part of a write (config `draft`): a hidden step of the write, opened by
 * the same `allocate`, never taken: the pool lands it with the write's target part (one
 * transfer carries both, `_init_kv_manager`, and D's commit waits for both), and only a
 * request that still holds its pages can be written either way (tier-pool.ts).
 */
export const DRAFT_KINDS: readonly ActionKind[] = ['landDraft'];

/** Every event kind and what it is. */
export const EVENT_TABLE: Readonly<Record<EventKind, EventRule>> = {
  config: { role: 'config' },
  arrive: { role: 'arrival' },
  // The allocator refused the request's pages; under sglang the attempt merged its release list.
  allocFail: { role: 'action', action: 'allocFail' },
  // D's allocation opens P's write: it may land any time after D sent the page ids.
  allocate: { role: 'action', action: 'allocate', opens: [...WRITE_KINDS, ...PART_KINDS, ...DRAFT_KINDS] },
  // P posted (a part of) its write: the pages it names must be pages the write will land in.
  posted: { role: 'observe', needs: 'write-pending' },
  // D posted the load from host memory the allocation started (config loadback): the spec's allocate posted it; the pages it names must be the prefix's.
  load: { role: 'observe', needs: 'load-posted' },
  // P's completion: the write (its draft part with it, config draft) has landed by now.
  done: { role: 'close' },
  // The load from host memory was acknowledged (loading_check): the spec's loadBack, taken here unless a decode that waited for it took it earlier.
  loaded: { role: 'action', action: 'loadBack' },
  // P aborted the transfer: nothing more of the write will land.
  abort: { role: 'drop' },
  // P refused the over-long request and told D: `stub` without the silent stub (which ends a timed-out request).
  refuse: { role: 'action', action: 'stub', outcomes: ['refused', 'freed'] },
  // D aborted a written request at commit (bootstrap_room mismatch) and released it.
  abortCommit: { role: 'action', action: 'abortCommit', releases: true },
  handoff: { role: 'action', action: 'handoff' },
  // A decode step's page (alloc_decode, config tableGrowth).
  grow: { role: 'action', action: 'grow' },
  // The first decode step is the spec's `decode`; later steps read the same table again.
  decode: { role: 'action', action: 'decode', outcomes: ['decoded'] },
  // The owner check failed the request: the spec's `decode` ending in `failed`.
  fail: { role: 'action', action: 'decode', outcomes: ['failed'] },
  // D retracted a running request (config retraction): the copy, then the release.
  retract: { role: 'action', action: 'retract', releases: true },
  // With fault offload-after-free: the copy to host memory of a retracted request finished, reading its old pages at this line.
  offload: { role: 'action', action: 'offload' },
  // D resumed a retracted request on new pages.
  resume: { role: 'action', action: 'resume' },
  timeout: { role: 'action', action: 'timeout', releases: true },
  free: { role: 'action', action: 'free', releases: true },
  // D returned the request's state slot (config stateSlots): the spec's handoff (under state-slot-reuse), free or timeout released it by now.
  slotFree: { role: 'observe', needs: 'state-released' },
  // P released the request's source pages (config sourcePages): before its write landed, with fault source-early-free, the spec's abortSource; after, nothing (step-write.ts).
  sourceFree: { role: 'action', action: 'abortSource' },
  insert: { role: 'action', action: 'insert' },
  // The prefix cache made room for the request's allocation (config `eviction`).
  evict: { role: 'action', action: 'evict' },
  // Host memory evicted a prefix's host copy (config loadback, evict_host): validate.ts applies it to every state, about a prefix, not a request (step-load.ts).
  hostEvict: { role: 'action', action: 'evictHost' },
};

/**
 * The spec's actions that no log event stands for yet, each with the reason: those
 * validate-log's coverage does not name (conformance/coverage.ts), so it refuses every
 * configuration that enables them and never has to match them. One leaves this list when
 * its event is added to {@link EVENT_TABLE} and the coverage names it.
 */
export const UNLOGGED_KINDS: Readonly<Partial<Record<ActionKind, string>>> = Object.fromEntries(
  ACTION_KINDS.filter((k) => !VALIDATOR_COVERAGE.covers(`action:${k}`)).map((k) => [k, `${VALIDATOR_COVERAGE.consumer} ${lacking(VALIDATOR_COVERAGE, `action:${k}`)}`]),
);

/** The rule of an `insert` at the handoff (`at: "handoff"`, SGLang's `cache_unfinished_req`) without `radix`: a prefix cache of one entry per prefix inserts after decode only. */
export const INSERT_AT_HANDOFF: EventRule = {
  role: 'unmodelled',
  why: 'an insert at the handoff (cache_unfinished_req) is the radix tree\'s: give radix: true (with eviction: true) in the config event; without it the prefix cache holds one entry per prefix, inserted after decode',
};

/** The rule of an `insert` at the handoff under `radix`: the spec's `handoff` took it; the line's pages and freed duplicates are checked against it (radix.ts). */
export const INSERT_AT_HANDOFF_RADIX: EventRule = { role: 'observe', needs: 'inserted' };

/** The rule of a later decode step (`step` > 0): the request decoded, and reads its table again. */
export const DECODE_AGAIN: EventRule = { role: 'observe', needs: 'decoded' };
