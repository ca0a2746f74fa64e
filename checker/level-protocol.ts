/**
 * The messages of the parallel search's two steps per level (`level.ts` does them,
 * `parallel.ts` asks for them): handles of shared memory and a few numbers, never states.
 */
import type { Frontier } from './arena.ts';

/** Control word: the next block to take, shared by the threads of a step. */
export const NEXT_BLOCK = 0;
/** Control word: table entries claimed in this level so far. */
export const CLAIMS = 1;

/** What the expand step needs. */
export interface ExpandRequest {
  /** The visited set. */
  readonly table: Int32Array;
  /** One bit per key of the level: set when that successor lost to a smaller key. */
  readonly losers: Int32Array;
  /** `NEXT_BLOCK` and `CLAIMS`. */
  readonly control: Int32Array;
  /** The level's states. */
  readonly frontier: Frontier;
  /** How many. */
  readonly count: number;
  /** States per block (a multiple of 32, so that blocks share no word of `losers`). */
  readonly block: number;
  /** The successors' level plus one, as the table tags it. */
  readonly tag: number;
  /** Which of this thread's two arenas the successors go to. */
  readonly parity: number;
  /** Take no new block once `CLAIMS` exceeds this: the table must grow first. */
  readonly room: number;
  /** Continue the level after the table grew, rather than begin it. */
  readonly resume: boolean;
  /** The properties still open at the start of the level: each candidate is flagged where it may settle one of them. */
  readonly open: OpenProperties;
}

/** Properties still open, as bit masks: bit `k` for invariant `k`, or witness `k`. */
export interface OpenProperties {
  /** Invariants not yet violated. */
  readonly invariants: number;
  /** Witnesses that apply and were not yet reached. */
  readonly held: number;
  /** Witnesses that apply and were not yet seen false. */
  readonly failed: number;
}

/** Int32 per block in {@link ExpandReply.blocks}: first parent, end of parents, first candidate, end of candidates (in the thread's arena). */
export const EXPANDED_FIELDS = 4;

/** What the expand step found. */
export interface ExpandReply {
  /** Whether this thread stopped for the table to grow. */
  readonly paused: boolean;
  /** Level index of the first state without successors that is not a legitimate end, or -1. */
  readonly deadlock: number;
  /** {@link EXPANDED_FIELDS} int32 per block this thread expanded in the level so far. */
  readonly blocks: Int32Array;
  /** The chunks of the arena the successors went to. */
  readonly chunks: readonly SharedArrayBuffer[];
}

/** Int32 per block of the level as `level-outcome.ts` orders them (`orderBlocks`): the thread that expanded it, then its {@link EXPANDED_FIELDS}. */
export const BLOCK_FIELDS = 1 + EXPANDED_FIELDS;

/** What the keep step needs. */
export interface KeepRequest {
  /** The bitmap of losers (cleared again by this step, block by block). */
  readonly losers: Int32Array;
  /** The number in the search of the level's first state: parent links are numbers. */
  readonly levelBase: number;
  /** The properties still open, as the expand step was told. */
  readonly open: OpenProperties;
}

/** Int32 per block in {@link KeepReply.kept}: the block's index in the level, states kept, where their links start in this thread's links. */
export const KEPT_FIELDS = 3;
/** Int32 per run in {@link KeepReply.runs}: the block's index in the level, where the run starts in the block's arena, its length. */
export const RUN_FIELDS = 3;

/** What the keep step found. */
export interface KeepReply {
  /** {@link KEPT_FIELDS} int32 per block this thread kept, in ascending order. */
  readonly kept: Int32Array;
  /** {@link RUN_FIELDS} int32 per run of kept states (the candidates between losers), block by block, ascending: the next level's segments. */
  readonly runs: Int32Array;
  /**
   * Per invariant, then per witness twice (held, failed): the block (index in the level)
   * and position in it of the first kept state where it fails (holds, fails), or -1, -1.
   */
  readonly firsts: Int32Array;
  /** The chunks of this thread's links. */
  readonly links: readonly SharedArrayBuffer[];
}
