import { describe, expect, it } from 'vitest';
import {
  Conservation,
  ExclusiveHold,
  incidentConfig,
  Isolation,
  matrixConfig,
  READ_UNHELD,
  ReadsOwnPages,
  setObserved,
  type Model,
  type State,
} from '../../spec/index.ts';
import { runLabels } from './helpers.ts';

/** A good state to corrupt: A served, B allocated on 2 of the 3 pages... in the matrix config, B and C live. */
function live(): { m: Model; s: State } {
  const { m, last } = runLabels(incidentConfig('buggy'), ['allocate(A)', 'prefill(A)']);
  return { m, s: last };
}

describe('each invariant fails on a hand-made bad state and holds on the good one', () => {
  it('Isolation: a request whose read set names another request', () => {
    const { m, s } = live();
    expect(Isolation.holds(m, s)).toBe(true);
    const bad = s.slice();
    setObserved(m, bad, 1, 1 << 0); // B has read A's data (label 1, bit 0)
    expect(Isolation.holds(m, bad)).toBe(false);
    const own = s.slice();
    setObserved(m, own, 1, 1 << 1); // B has read only its own data
    expect(Isolation.holds(m, own)).toBe(true);
  });

  it('Isolation: a prefix is readable by its own group only', () => {
    const { m, last } = runLabels(matrixConfig('buggy', []), ['allocate(A)']);
    const prefixBit = 1 << (m.n + 1 - 1); // label n+1 = prefix sys
    const byC = last.slice();
    setObserved(m, byC, 2, prefixBit);
    expect(Isolation.holds(m, byC)).toBe(true);
    const byA = last.slice();
    setObserved(m, byA, 0, prefixBit);
    expect(Isolation.holds(m, byA)).toBe(false);
  });

  it('ExclusiveHold: a page in a live table that its request does not hold', () => {
    const { m, s } = live();
    expect(ExclusiveHold.holds(m, s)).toBe(true);
    const bad = s.slice();
    bad[m.holderAt + 1] = 0; // page 1 is on the free list but still in A's table
    expect(ExclusiveHold.holds(m, bad)).toBe(false);
  });

  it('ExclusiveHold: a page held by a request that does not have it in its table', () => {
    const { m, s } = live();
    const bad = s.slice();
    bad[m.holderAt + 2] = 2; // B holds page 2 but is still new
    expect(ExclusiveHold.holds(m, bad)).toBe(false);
  });

  it('Conservation: a page counted both free and held', () => {
    const { m, s } = live();
    expect(Conservation.holds(m, s)).toBe(true);
    const bad = s.slice();
    bad[m.holderAt + 0] = 0;
    expect(Conservation.holds(m, bad)).toBe(false);
  });

  it('ReadsOwnPages: a decode that read a page its request did not hold', () => {
    const { m, s } = live();
    expect(ReadsOwnPages.holds(m, s)).toBe(true);
    const bad = s.slice();
    bad[m.flagsAt + 0] = READ_UNHELD;
    expect(ReadsOwnPages.holds(m, bad)).toBe(false);
  });

  it('a stale second release breaks ExclusiveHold and Conservation in the spec itself', () => {
    const { m, last } = runLabels(matrixConfig('buggy', ['stale-free']), [
      'allocate(B)', 'stub(B)', 'free(B)', 'allocate(A)', 'free(B)',
    ]);
    expect(ExclusiveHold.holds(m, last)).toBe(false);
    expect(Conservation.holds(m, last)).toBe(false);
  });
});
