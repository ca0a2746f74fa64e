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
}

/** The data label of a read of stale P-side data. */
export const STALE = Number.MIN_SAFE_INTEGER;

/** One admission of a request into a slot. */
export interface RefRequest {
  /** Its number, from 0, in order of admission. */
  readonly admission: number;
  /** The slot it was admitted into. */
  readonly slot: number;
  /** Its length in pages. */
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
  /** Its page table. */
  readonly table: number[];
  /** What its decode read: the data label of each table page, in order (empty before a successful decode). */
  reads: number[];
  /** The position each of those reads' data was written for. */
  readPositions: number[];
  /** Decode steps taken: 1 after a successful decode (the model has one step). */
  steps: number;
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
}

/** The label of admission `k`. */
export const admissionLabel = (k: number): number => k + 1;

/** The label of prefix group `g`. */
export const groupLabel = (g: number): number => -(g + 1);

/** Phases after which the request no longer needs its slot. */
export const FINISHED: readonly Phase[] = ['freed', 'released', 'landed'];
