import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../incident/event-queue.ts';
import { Prng } from '../../incident/prng.ts';

describe('EventQueue', () => {
  it('pops by time, and equal times in the order they were pushed', () => {
    const q = new EventQueue(8);
    q.push(5, 0);
    q.push(1, 1);
    q.push(5, 2);
    q.push(3, 3);
    q.push(1, 4);
    const order: number[] = [];
    while (q.size > 0) order.push(q.pop());
    expect(order).toEqual([1, 4, 3, 0, 2]);
    expect(q.pop()).toBe(-1);
  });

  it('agrees with a sort on interleaved pushes and pops', () => {
    const prng = new Prng(11);
    const q = new EventQueue(64);
    const reference: { time: number; seq: number; slot: number }[] = [];
    let seq = 0;
    const got: number[] = [];
    const want: number[] = [];
    for (let step = 0; step < 5_000; step++) {
      if (reference.length < 64 && (reference.length === 0 || prng.next() < 0.55)) {
        // Coarse times make ties common.
        const time = prng.int(0, 20);
        const slot = prng.int(0, 1_000);
        q.push(time, slot);
        reference.push({ time, seq: seq++, slot });
      } else {
        reference.sort((a, b) => a.time - b.time || a.seq - b.seq);
        const first = reference.splice(0, 1)[0];
        want.push(first?.slot ?? -1);
        got.push(q.pop());
      }
    }
    expect(got).toEqual(want);
    expect(got.length).toBeGreaterThan(1_000);
  });
});
