import { describe, expect, it } from 'vitest';
import { agreeOn, coverage, differential, report } from './agreement.ts';
import type { Drawn } from '../support/real-sizes.ts';
import type { Mechanism } from '../../spec/index.ts';

// The sample of the fast tier; test/binding/agreement-heavy.test.ts runs more configurations, and larger parts of their spaces, in the heavy tier.
describe('the fast path, the general successors and step agree on random configurations at real sizes (a sample)', () => {
  it('seed 27: 30 configurations, up to 1,000 states each', { timeout: 120_000 }, () => {
    report('agreement (fast tier, seed 27)', differential(27, 30, 1000));
  });

  // The random draws reach the owner check in the family too rarely to count on (owner-check, sorted, no prefix, at most the silent stub): pinned here at real sizes.
  it('owner-check in the fast family: 5 configurations at real sizes, up to 1,500 states each', { timeout: 120_000 }, () => {
    const owner = (pages: number, prefillLimit: number, lengths: number[], faults: Drawn['faults']): Drawn => ({ pages, prefillLimit, lengths, allocator: 'sorted', variant: 'owner-check', faults, prefix: false, lengthRule: 'gt' });
    const drawn = [
      // Over-long requests stubbed silently: their unwritten pages keep cleared tags, and decode fails them.
      owner(9, 2, [1, 3, 9, 2], ['silent-stub']),
      owner(12, 4, [5, 6, 1, 10], ['silent-stub']),
      // Nine requests taking the pool one or two at a time: tags cleared and stamped on reused pages.
      owner(10, 6, [5, 6, 7, 5, 9, 6, 8, 5, 6], ['silent-stub']),
      // Without the silent stub, over-long requests are refused: the check always passes.
      owner(9, 3, [9, 2, 4], []),
      // Early free: a timed-out request's late write lands by page id, in pages another may hold by then.
      owner(9, 2, [1, 3, 9, 2], ['silent-stub', 'early-free']),
    ];
    const seen = coverage();
    for (const d of drawn) agreeOn(d, 1500, seen);
    expect({ inFamily: seen.inFamily, states: seen.states, complete: seen.complete, failed: seen.familyFailed, landed: seen.familyLanded }).toEqual({ inFamily: 5, states: 6096, complete: 1, failed: 596, landed: 643 });
  });

  // hardened's two mechanisms of the family, each on and off, with stale and torn writes: pinned, as the random draws rarely reach them in the family.
  it('hardened in the fast family, and its removals: 8 configurations, up to 1,500 states each', { timeout: 120_000 }, () => {
    const four: Drawn['faults'] = ['silent-stub', 'early-free', 'stale-free', 'torn-write'];
    const sorted = (variant: Drawn['variant'], pages: number, prefillLimit: number, lengths: number[], faults: Drawn['faults']): Drawn => ({ pages, prefillLimit, lengths, allocator: 'sorted', variant, faults, prefix: false, lengthRule: 'gt' });
    const drawn: [Drawn, Mechanism[]][] = [
      // The benchmark's configuration (bench/handwritten-owner.ts), and one at real sizes.
      [sorted('hardened', 6, 2, [2, 1, 3, 1], four), []],
      [sorted('hardened', 9, 2, [1, 3, 9, 2], four), []],
      // Each mechanism off (spec/removals.ts's rows), then both: the late parts land in a new holder's page, a stale release frees another's.
      [sorted('hardened', 2, 2, [1, 1], ['early-free', 'torn-write']), ['revoke-writer']],
      [sorted('hardened', 2, 2, [1, 1, 1], ['stale-free', 'torn-write']), ['release-checks-holder']],
      [sorted('hardened', 9, 2, [1, 3, 9, 2], four), ['revoke-writer', 'release-checks-holder']],
      // The same faults without any mechanism, with and without the owner check (no landTag without it).
      [sorted('owner-check', 9, 2, [1, 3, 9, 2], four), []],
      [sorted('buggy', 9, 2, [1, 3, 9, 2], ['silent-stub', 'stale-free', 'torn-write']), []],
      [sorted('length-fix', 4, 2, [1, 2, 3], ['torn-write', 'early-free']), []],
    ];
    const seen = coverage();
    for (const [d, without] of drawn) agreeOn(d, 1500, seen, without);
    expect({ inFamily: seen.inFamily, states: seen.states, complete: seen.complete, failed: seen.familyFailed, landed: seen.familyLanded, landing: seen.familyLanding, released: seen.familyReleased }).toEqual({ inFamily: 8, states: 11101, complete: 1, failed: 12, landed: 1356, landing: 2025, released: 1243 });
  });
});
