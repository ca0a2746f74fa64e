import { describe, expect, it } from 'vitest';
import {
  NO_PAGE,
  Conservation,
  ExclusiveHold,
  incidentConfig,
  Isolation,
  matrixConfig,
  READ_UNHELD,
  ReadsOwnPages,
  Integrity,
  NoDuplicateFree,
  NoUseAfterFree,
  readRecord,
  setReadRecord,
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
  it('Isolation: a request whose read record names another request', () => {
    const { m, s } = live();
    expect(Isolation.holds(m, s)).toBe(true);
    const bad = s.slice();
    setReadRecord(m, bad, 1, 2, readRecord(1, 0, 2)); // B read, at position 2, A's data (label 1) written for A's position 0
    expect(Isolation.holds(m, bad)).toBe(false);
    expect(Isolation.breach?.(m, bad)).toEqual({ requests: [1], pages: [{ r: 1, i: 2, page: NO_PAGE }] });
    const own = s.slice();
    setReadRecord(m, own, 1, 2, readRecord(2, 2, 2)); // B read its own data, for that position
    expect(Isolation.holds(m, own)).toBe(true);
    expect(Integrity.holds(m, own)).toBe(true);
  });

  it('Isolation: a prefix is readable by its own group only, and only at its position', () => {
    const { m, last } = runLabels(matrixConfig('buggy', []), ['allocate(A)']);
    const prefix = m.n + 1; // label n+1 = prefix sys
    const byC = last.slice();
    setReadRecord(m, byC, 2, 0, readRecord(prefix, 0, 0));
    expect(Isolation.holds(m, byC)).toBe(true);
    const misplaced = last.slice();
    setReadRecord(m, misplaced, 2, 1, readRecord(prefix, 0, 1));
    expect(Isolation.holds(m, misplaced)).toBe(false);
    const byA = last.slice();
    setReadRecord(m, byA, 0, 0, readRecord(prefix, 0, 0));
    expect(Isolation.holds(m, byA)).toBe(false);
  });

  it('Integrity: a page never written, or own content written for another position, is garbage but no leak', () => {
    const { m, s } = live();
    const unwritten = s.slice();
    setReadRecord(m, unwritten, 1, 1, readRecord(0, 0, 1));
    expect([Isolation.holds(m, unwritten), Integrity.holds(m, unwritten)]).toEqual([true, false]);
    const moved = s.slice();
    setReadRecord(m, moved, 1, 1, readRecord(2, 2, 1));
    expect([Isolation.holds(m, moved), Integrity.holds(m, moved)]).toEqual([true, false]);
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

describe('the free-list invariants, each on its own state', () => {
  it('NoUseAfterFree: a page of a live table on the free list; the same page in a timed-out table is no use', () => {
    const { m, s } = live();
    expect(NoUseAfterFree.holds(m, s)).toBe(true);
    const bad = s.slice();
    bad[m.holderAt + 1] = 0; // page 1 is free while A, live, still has it in its table
    expect(NoUseAfterFree.holds(m, bad)).toBe(false);
    // A timed out: its table (kept for the late write) names free pages, and A no longer uses them
    const config = { pages: 2, prefillLimit: 2, variant: 'buggy' as const, faults: ['early-free' as const], requests: [{ name: 'A', length: 2 }] };
    const { m: m2, last } = runLabels(config, ['allocate(A)', 'timeout(A)']);
    expect(NoUseAfterFree.holds(m2, last)).toBe(true);
  });

  it('NoDuplicateFree: a page on the free list twice after a double release, not after one', () => {
    const config = { pages: 4, prefillLimit: 4, variant: 'buggy' as const, faults: ['double-free' as const], requests: [{ name: 'A', length: 2 }] };
    const once = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)']);
    expect([NoDuplicateFree.holds(once.m, once.last), NoUseAfterFree.holds(once.m, once.last)]).toEqual([true, true]);
    const twice = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'free(A)']);
    expect([NoDuplicateFree.holds(twice.m, twice.last), NoUseAfterFree.holds(twice.m, twice.last), ExclusiveHold.holds(twice.m, twice.last)]).toEqual([false, true, true]);
  });
});
