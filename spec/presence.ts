/**
 * Which of the layout's variables (`layout.ts`) a configuration has: the switches the rows'
 * presence reads, derived once from the configuration. A variable a configuration does not
 * need takes no byte of its states.
 */
import { checksOwner } from './behaviour.ts';
import type { Allocator, Config } from './config.ts';

/** What decides whether a variable is present: the configuration's switches. */
export interface Presence {
  /** Decode checks owner tags (`owner-check`, `hardened`). */
  readonly ownerCheck: boolean;
  /** Fault `torn-write`. */
  readonly torn: boolean;
  /** More than one token slot per page. */
  readonly slots: boolean;
  /** A free list stored as per-page copies (`sglang`, or `double-free` outside `lifo`). */
  readonly freeCopies: boolean;
  /** `sglang`'s release list. */
  readonly releaseList: boolean;
  /** `lifo`'s ordered free list. */
  readonly orderedList: boolean;
  /** Eviction with a prefix cache to evict from. */
  readonly eviction: boolean;
  /** Config `retraction`: a retracted request's saved copy (spec/retraction.ts). */
  readonly retraction: boolean;
  /** Config `radix` under eviction: a lock count per tree node, a matched depth per request (spec/radix.ts). */
  readonly radix: boolean;
  /** Config `sourcePages`: P's source pages (spec/source-pages.ts). */
  readonly sourcePages: boolean;
  /** Fault `aux-torn`: D's metadata slot (spec/aux.ts). */
  readonly aux: boolean;
  /** Config `draft`: a draft model's KV per page (spec/draft.ts). */
  readonly draft: boolean;
  /** Config `stateSlots`: D's state slots and metadata rows (spec/state-slots.ts). */
  readonly stateSlots: boolean;
  /** Config `loadback` with a prefix, without radix and retraction: the host copies and loads (spec/loadback.ts). */
  readonly loadback: boolean;
}

/** Which of the layout's variables configuration `config` has (`layout.ts`): the switches its rows' presence reads. */
export function presenceOf(config: Config, allocator: Allocator, multiset: boolean, prefixes: boolean): Presence {
  return {
    ownerCheck: checksOwner(config.variant),
    torn: config.faults.includes('torn-write'),
    slots: (config.pageSize ?? 1) > 1,
    freeCopies: allocator === 'sglang' || (multiset && allocator !== 'lifo'),
    releaseList: allocator === 'sglang',
    orderedList: allocator === 'lifo',
    eviction: config.eviction === true && prefixes,
    retraction: config.retraction === true,
    radix: config.radix === true && config.eviction === true && prefixes,
    sourcePages: config.sourcePages === true,
    aux: config.faults.includes('aux-torn'),
    draft: config.draft === true,
    stateSlots: config.stateSlots === true,
    loadback: config.loadback === true && prefixes && config.radix !== true && config.retraction !== true,
  };
}
