/**
 * The parallel search's frontier reader on a frontier of several segments, in the fast tier.
 * Only the worker threads build such frontiers in a real search (heavy tier), so without
 * this test a reader that kept its first segment for every index passed the fast tier
 * (issue 27: `npm run mutation`'s survivors at checker/arena.ts's segment test).
 */
import { describe, expect, it } from 'vitest';
import { ARENA_CHUNK, FrontierReader, StateArena, type Frontier } from '../../checker/arena.ts';

const WIDTH = 3;

/** The words a state is given: its thread, its position in that thread's arena, and a check word. */
const wordsOf = (thread: number, at: number): number[] => [thread, at, (thread * 7919 + at * 31) | 0];

/**
 * Two threads' arenas, each written at positions 0 .. `filled`, and a frontier of segments
 * (thread, start, count) over them, in the level's order; each segment starts a few states
 * before a chunk's end, so runs cross chunks too.
 */
function frontierOf(segments: readonly [number, number, number][], filled: number): Frontier {
  const arenas = [new StateArena(WIDTH), new StateArena(WIDTH)];
  arenas.forEach((arena, thread) => {
    for (let at = 0; at < filled; at++) {
      const views = arena.chunkFor(at);
      views.words.set(wordsOf(thread, at), (at % ARENA_CHUNK) * WIDTH);
    }
  });
  return { segments: Int32Array.from(segments.flat()), chunks: arenas.map((a) => a.chunks) };
}

/** The expected words of every level index of the frontier, segment after segment. */
function expected(segments: readonly [number, number, number][]): number[][] {
  return segments.flatMap(([thread, start, count]) => Array.from({ length: count }, (_, k) => wordsOf(thread, start + k)));
}

/** Reads level indices `order` through one reader. */
function read(frontier: Frontier, order: readonly number[]): number[][] {
  const reader = new FrontierReader(frontier, WIDTH);
  const out = new Int32Array(WIDTH);
  return order.map((p) => {
    reader.copy(p, out);
    return Array.from(out);
  });
}

describe('FrontierReader over several segments', () => {
  // Thread 1, then 0, then 1 again, then 0: each boundary changes thread and arena position.
  const segments: [number, number, number][] = [
    [1, ARENA_CHUNK - 3, 5],
    [0, 10, 4],
    [1, 2, 3],
    [0, ARENA_CHUNK - 2, 6],
  ];
  const frontier = frontierOf(segments, ARENA_CHUNK + 8);
  const all = expected(segments);
  const n = all.length;

  it('reads every index in ascending order (the next segment each time one ends)', () => {
    expect(n).toBe(18);
    expect(read(frontier, Array.from({ length: n }, (_, p) => p))).toEqual(all);
  });

  it('reads every index in descending order (an earlier segment: the binary search)', () => {
    const order = Array.from({ length: n }, (_, p) => n - 1 - p);
    expect(read(frontier, order)).toEqual(order.map((p) => all[p]));
  });

  it('reads jumps over whole segments, both ways', () => {
    const order = [0, 17, 5, 9, 4, 12, 1, 16, 8, 13];
    expect(read(frontier, order)).toEqual(order.map((p) => all[p]));
  });

  it('skips a segment with no states', () => {
    const withEmpty: [number, number, number][] = [[0, 0, 2], [1, 5, 0], [1, 7, 2]];
    expect(read(frontierOf(withEmpty, 16), [0, 1, 2, 3, 1, 3, 0])).toEqual([0, 1, 2, 3, 1, 3, 0].map((p) => expected(withEmpty)[p]));
  });
});
