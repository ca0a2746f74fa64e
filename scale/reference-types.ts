/**
 * The reference pool's records and options: a page, an admission, the sizes and switches,
 * and its labels (`reference.ts` says why they are what they are).
 */
import type { Fault, Variant } from '../spec/config.ts';
import type { Phase } from '../spec/state.ts';

/** One page: who holds it, whose data it holds, and its owner tag. */
export interface RefPage {
  /** The holder's label; 0 = on the free list. */
  holder: number;
  /** The label of the last write that landed in it; 0 = never written. */
  data: number;
  /** The owner tag (only under `owner-check`); 0 = cleared. */
  tag: number;
  /** The table position the data was written for; 0 while never written. */
  pos: number;
  /** How many of its token slots, from the first, the last write filled; 0 while never written. */
  fill: number;
  /** How many slots its owner tag says were written (only under `owner-check`); 0 while cleared. */
  tagFill: number;
  /** Under `radix`: the `lock_ref` of the tree node this page is or was (no floor; it stays when the page leaves the tree other than by eviction, as SGLang's detached node keeps its count). */
  nodeLock: number;
}

/** The data label of a read of stale P-side data. */
export const STALE = Number.MIN_SAFE_INTEGER;

/** One admission of a request into a slot. */
export interface RefRequest {
  /** Its number, from 0, in order of admission. */
  readonly admission: number;
  /** The slot it was admitted into. */
  readonly slot: number;
  /** Its prompt's length in pages (whole pages: `length * pageSize` tokens); under `tableGrowth` its table grows past it. */
  readonly length: number;
  /** Its prefix group, or -1. */
  readonly group: number;
  /** Where it is in its lifecycle. */
  phase: Phase;
  /** Its first page is the cached prefix page it hit. */
  hit: boolean;
  /** Its first page was inserted into the prefix cache. */
  inserted: boolean;
  /** Its decode read a page it did not hold. */
  readUnheld: boolean;
  /** Its page table: the prompt's pages, then under `tableGrowth` one per page its tokens reached. A retracted request keeps its old table until `resume` replaces it. */
  table: number[];
  /** What its decode steps read at each table position: the worst read there so far (empty before a step read). */
  reads: number[];
  /** The position each of those reads' data was written for. */
  readPositions: number[];
  /** Every label its steps read, each once. */
  readonly seen: Set<number>;
  /** Decode steps taken. */
  steps: number;
  /** Under `retraction`: the copy in host memory, per table position (undefined when there is none). */
  saved: RefPage[] | undefined;
  /** It was resumed at least once. */
  resumed: boolean;
  /** Under eviction: the cache evicted an entry to make room for it (for its admission, or its resume). */
  evictedFor: boolean;
  /** Under `radix`: the depth of its last node, 0 (the root) or 1 (its prefix's node): the leading positions it locked. */
  depth: number;
}

/** The sizes and switches of a reference pool. */
export interface RefOptions {
  /** D's pages, ids `0 .. pages-1`. */
  readonly pages: number;
  /** The longest prompt, in pages, that P computes. */
  readonly prefillLimit: number;
  /** The variant. */
  readonly variant: Variant;
  /** The faults; the variant's own when left out. */
  readonly faults?: readonly Fault[];
  /** Request slots. */
  readonly slots: number;
  /** Whether a finished request's slot takes a new admission (default on). */
  readonly reuseSlots?: boolean;
  /** `sorted` (default), `sglang` or `lifo`. */
  readonly allocator?: 'sorted' | 'sglang' | 'lifo';
  /** Tokens per page (default 1): picks `sglang`'s shortage test. */
  readonly pageSize?: number;
  /** Decode steps per request (default 1). */
  readonly decodeSteps?: number;
  /** Whether a decode step takes a page for a token past its table (`grow`; default off). */
  readonly tableGrowth?: boolean;
  /** Whether D may retract a running request and resume it later (default off). */
  readonly retraction?: boolean;
  /** Whether the prefix cache evicts unlocked entries to make room (`evict`; default off). */
  readonly eviction?: boolean;
  /** Whether the prefix cache is a radix tree (needs `eviction`; default off): `reference-cache.ts`. */
  readonly radix?: boolean;
}

/** The label of admission `k`. */
export const admissionLabel = (k: number): number => k + 1;

/** The label of prefix group `g`. */
export const groupLabel = (g: number): number => -(g + 1);

/** Phases in which a request is running on D: `retract` may take it. */
export const RUNNING: readonly Phase[] = ['handedOff', 'decoding'];

/** Phases after which the request no longer needs its slot. */
export const FINISHED: readonly Phase[] = ['freed', 'released', 'landed'];
