/**
 * What a level of the parallel search comes to, from the few numbers each thread
 * returns: the blocks in the level's order, numbered by prefix sums, and where the
 * one-worker search (`bfs.ts`) would have stopped in the level. That search stores the
 * new states in order, expands parents in groups of eight (`STOP_GROUP`, `options.ts`), and stops (unless told to
 * keep going) at the first deadlocked parent, at the state budget, or just after the
 * first state that breaks an invariant, whichever it meets first; here each of those is
 * a position in the level, and the earliest wins with the same tie rules.
 */
import { BLOCK_FIELDS, EXPANDED_FIELDS, KEPT_FIELDS, RUN_FIELDS } from './level-protocol.ts';

/** A block of a level: parents `from .. to`, its kept states in its thread's arena and its links in its keeper's. */
export interface Block {
  /** The thread whose arena holds its states (0 the main thread, k worker k). */
  readonly thread: number;
  /** The first parent's index in the level. */
  readonly from: number;
  /** The end of its parents. */
  readonly to: number;
  /** Where its kept states start in the thread's arena. */
  readonly start: number;
  /** New states kept. */
  readonly kept: number;
  /** The thread that kept them and holds their links. */
  readonly keeper: number;
  /** Where their links start in the keeper's links. */
  readonly firstLink: number;
  /** The index in the level's new states of the first one. */
  readonly position: number;
}

/** Every thread's expanded blocks in the level's order, as the keep step takes them: the thread, then the block's own fields. */
export function orderBlocks(replies: readonly { readonly thread: number; readonly blocks: Int32Array }[]): Int32Array {
  const all: number[][] = [];
  for (const { thread, blocks } of replies) {
    for (let b = 0; b < blocks.length; b += EXPANDED_FIELDS) all.push([thread, ...blocks.subarray(b, b + EXPANDED_FIELDS)]);
  }
  all.sort((x, y) => x[1]! - y[1]!);
  return Int32Array.from(all.flat());
}

/** The blocks numbered by prefix sums of what the threads kept of each: `blocks` as {@link orderBlocks} gave them, `kept` per keeper. */
export function numberBlocks(blocks: Int32Array, kept: readonly { readonly thread: number; readonly kept: Int32Array }[]): { blocks: Block[]; total: number } {
  const n = blocks.length / BLOCK_FIELDS;
  const count = new Int32Array(n);
  const keeper = new Int32Array(n);
  const firstLink = new Int32Array(n);
  for (const r of kept) {
    for (let k = 0; k < r.kept.length; k += KEPT_FIELDS) {
      const b = r.kept[k]!;
      count[b] = r.kept[k + 1]!;
      keeper[b] = r.thread;
      firstLink[b] = r.kept[k + 2]!;
    }
  }
  const out: Block[] = [];
  let total = 0;
  for (let b = 0; b < n; b++) {
    const at = BLOCK_FIELDS * b;
    out.push({ thread: blocks[at]!, from: blocks[at + 1]!, to: blocks[at + 2]!, start: blocks[at + 3]!, kept: count[b]!, keeper: keeper[b]!, firstLink: firstLink[b]!, position: total });
    total += count[b]!;
  }
  return { blocks: out, total };
}

/**
 * The next level's segments (thread, start, count): every block's runs of kept states, in
 * the level's order, in the arena of the thread that expanded it. A block's runs all come
 * from one reply, in order, so counting them per block places each run at once: a level
 * with a million runs (two threads' losers cut many) takes milliseconds, not the tenth of
 * a second that a list per block took.
 */
export function frontierSegments(blocks: readonly Block[], replies: readonly { readonly runs: Int32Array }[]): Int32Array {
  const n = blocks.length;
  // next[b]: where block b's next run goes, counted in runs; first each block's count, then their prefix sums.
  const next = new Int32Array(n + 1);
  for (const { runs } of replies) for (let k = 0; k < runs.length; k += RUN_FIELDS) next[runs[k]! + 1]!++;
  for (let b = 0; b < n; b++) next[b + 1]! += next[b]!;
  // Three int32 per segment, as `Frontier.segments`.
  const out = new Int32Array(3 * next[n]!);
  for (const { runs } of replies) {
    for (let k = 0; k < runs.length; k += RUN_FIELDS) {
      const b = runs[k]!;
      const at = 3 * next[b]!++;
      out[at] = blocks[b]!.thread;
      out[at + 1] = runs[k + 1]!;
      out[at + 2] = runs[k + 2]!;
    }
  }
  return out;
}

/** How the one-worker search ends a level. */
export interface Cut {
  /** New states stored: the level's first `stored`. */
  readonly stored: number;
  /** Whether the deadlock found in the level is reported. */
  readonly deadlock: boolean;
  /** Whether the state budget ran out. */
  readonly incomplete: boolean;
  /** Whether the search stops here. */
  readonly stop: boolean;
}

/**
 * Where the one-worker search ends a level of `total` new states: `deadlockAt` is the
 * number of them whose parents come before the deadlocked parent's batch (or infinity),
 * `room` how many more the budget allows, `failAt` the first that breaks an invariant.
 */
export function cutLevel(total: number, deadlockAt: number, room: number, failAt: number, keepGoing: boolean): Cut {
  // At position g the search first expands a batch (deadlock at g = deadlockAt), then checks the budget, then stores and evaluates.
  const deadlock = deadlockAt <= total && deadlockAt <= room && (keepGoing || deadlockAt <= failAt);
  if (!keepGoing && deadlock) return { stored: deadlockAt, deadlock, incomplete: false, stop: true };
  if (room < total && (keepGoing || room <= failAt)) return { stored: room, deadlock, incomplete: true, stop: true };
  if (!keepGoing && failAt < total) return { stored: failAt + 1, deadlock, incomplete: false, stop: true };
  return { stored: total, deadlock, incomplete: false, stop: false };
}

/**
 * The number of new states of the level whose parent's index is below `bound`: whole
 * blocks below it, then a binary search among the parents of the block it falls in.
 */
export function keptBefore(blocks: readonly Block[], bound: number, levelBase: number, parentOf: (thread: number, link: number) => number): number {
  let n = 0;
  for (const b of blocks) {
    if (b.to <= bound) {
      n += b.kept;
      continue;
    }
    if (b.from >= bound) break;
    let lo = 0;
    let hi = b.kept;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (parentOf(b.keeper, b.firstLink + mid) < levelBase + bound) lo = mid + 1;
      else hi = mid;
    }
    return n + lo;
  }
  return n;
}
