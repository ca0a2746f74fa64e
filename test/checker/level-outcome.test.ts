import { describe, expect, it } from 'vitest';
import { cutLevel, frontierSegments, keptBefore, numberBlocks, orderBlocks } from '../../checker/level-outcome.ts';

const INF = Number.POSITIVE_INFINITY;

describe('where the parallel search cuts a level, as the one-worker search would', () => {
  it('stores the whole level when nothing stops it', () => {
    expect(cutLevel(10, INF, INF, INF, false)).toEqual({ stored: 10, deadlock: false, incomplete: false, stop: false });
  });

  it('a deadlocked batch stops it before that batch is stored, also when the failing state is the batch\'s first', () => {
    expect(cutLevel(10, 4, INF, INF, false)).toEqual({ stored: 4, deadlock: true, incomplete: false, stop: true });
    expect(cutLevel(10, 4, INF, 4, false)).toEqual({ stored: 4, deadlock: true, incomplete: false, stop: true });
    // A deadlock after every new state of the level is still met, at the level's end.
    expect(cutLevel(10, 10, INF, INF, false)).toEqual({ stored: 10, deadlock: true, incomplete: false, stop: true });
  });

  it('a failing state before the deadlocked batch is stored, and the deadlock is never met', () => {
    expect(cutLevel(10, 4, INF, 3, false)).toEqual({ stored: 4, deadlock: false, incomplete: false, stop: true });
    expect(cutLevel(10, 8, INF, 2, false)).toEqual({ stored: 3, deadlock: false, incomplete: false, stop: true });
  });

  it('the budget: checked before a state is stored, after the batch that holds it was expanded', () => {
    expect(cutLevel(10, INF, 5, INF, false)).toEqual({ stored: 5, deadlock: false, incomplete: true, stop: true });
    // The failing state is the last the budget allows: it is stored and the failure stops the search.
    expect(cutLevel(10, INF, 5, 4, false)).toEqual({ stored: 5, deadlock: false, incomplete: false, stop: true });
    expect(cutLevel(10, INF, 5, 5, false)).toEqual({ stored: 5, deadlock: false, incomplete: true, stop: true });
    // A deadlocked batch right where the budget ends is expanded (and met) before the budget is checked.
    expect(cutLevel(10, 5, 5, INF, false)).toEqual({ stored: 5, deadlock: true, incomplete: false, stop: true });
    expect(cutLevel(5, INF, 5, INF, false)).toEqual({ stored: 5, deadlock: false, incomplete: false, stop: false });
  });

  it('keep going: a deadlock is recorded and the level stored, unless the budget ends first', () => {
    expect(cutLevel(10, 4, INF, 2, true)).toEqual({ stored: 10, deadlock: true, incomplete: false, stop: false });
    expect(cutLevel(10, 4, 6, 2, true)).toEqual({ stored: 6, deadlock: true, incomplete: true, stop: true });
    expect(cutLevel(10, 7, 6, INF, true)).toEqual({ stored: 6, deadlock: false, incomplete: true, stop: true });
  });
});

describe('blocks in the level\'s order, numbered by prefix sums', () => {
  // Thread 1 expanded parents 0..32 and 64..96, thread 2 parents 32..64; each block's candidates in its thread's arena.
  const ordered = orderBlocks([
    { thread: 1, blocks: Int32Array.of(0, 32, 0, 5, 64, 96, 5, 9) },
    { thread: 2, blocks: Int32Array.of(32, 64, 0, 7) },
  ]);

  it('orders them by their first parent, with their thread', () => {
    expect([...ordered]).toEqual([1, 0, 32, 0, 5, 2, 32, 64, 0, 7, 1, 64, 96, 5, 9]);
  });

  it('numbers the kept states across threads, whoever kept each block', () => {
    const { blocks, total } = numberBlocks(ordered, [
      { thread: 2, kept: Int32Array.of(0, 3, 0, 2, 4, 3) },
      { thread: 1, kept: Int32Array.of(1, 6, 10) },
    ]);
    expect(total).toBe(13);
    expect(blocks.map((b) => [b.thread, b.start, b.kept, b.keeper, b.firstLink, b.position])).toEqual([
      [1, 0, 3, 2, 0, 0],
      [2, 0, 6, 1, 10, 3],
      [1, 5, 4, 2, 3, 9],
    ]);
    // Parents (as search numbers, level base 100) of the kept states, block by block, ascending.
    const parents: Record<string, number[]> = { '2': [100, 101, 120, 164, 170, 171, 190] };
    parents['1'] = Array.from({ length: 16 }, (_, i) => (i < 10 ? 0 : [132, 133, 140, 150, 151, 163][i - 10]!));
    const parentOf = (thread: number, link: number): number => parents[`${thread}`]![link]!;
    expect(keptBefore(blocks, 0, 100, parentOf)).toBe(0);
    expect(keptBefore(blocks, 21, 100, parentOf)).toBe(3);
    expect(keptBefore(blocks, 32, 100, parentOf)).toBe(3);
    expect(keptBefore(blocks, 40, 100, parentOf)).toBe(5);
    expect(keptBefore(blocks, 64, 100, parentOf)).toBe(9);
    expect(keptBefore(blocks, 71, 100, parentOf)).toBe(11);
    expect(keptBefore(blocks, 96, 100, parentOf)).toBe(13);
  });

  it('reads the next level as the runs between losers, block by block, in the arena of the thread that expanded each', () => {
    const { blocks } = numberBlocks(ordered, [
      { thread: 2, kept: Int32Array.of(0, 3, 0, 2, 4, 3) },
      { thread: 1, kept: Int32Array.of(1, 6, 10) },
    ]);
    // Block 0 (thread 1, candidates 0..5) lost candidates 1 and 4; block 1 (thread 2, 0..7) lost 2; block 2 (thread 1, 5..9) none.
    const segments = frontierSegments(blocks, [
      { runs: Int32Array.of(0, 0, 1, 0, 2, 2, 2, 5, 4) },
      { runs: Int32Array.of(1, 0, 2, 1, 3, 4) },
    ]);
    expect([...segments]).toEqual([1, 0, 1, 1, 2, 2, 2, 0, 2, 2, 3, 4, 1, 5, 4]);
    // Each block's runs add up to what it kept.
    expect(blocks.map((b) => b.kept)).toEqual([3, 6, 4]);
  });
});
