import { describe, expect, it } from 'vitest';
import { CONJOINED, conjunctionOf, fastFormOf } from '../../binding/properties.ts';
import { check } from '../../checker/index.ts';
import { compile, configFrom, Conservation, ExclusiveHold, FAULTS, incidentConfig, Integrity, Isolation, matrixConfig, type Config } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { reachable } from '../checker/orbits.ts';

/** Pinned configurations of issue 14, with the number of their reachable states (no symmetry). */
const CONFIGS: readonly (readonly [string, Config, number])[] = [
  ['minimal incident, buggy', incidentConfig('buggy'), 21],
  // Every fault but torn-write includes double-free (lock-underflow needs eviction, off here); auto-truncate, which replaces the stub, has its own row.
  ['matrix, buggy, every fault but torn-write and auto-truncate', matrixConfig('buggy', FAULTS.filter((f) => f !== 'torn-write' && f !== 'auto-truncate')), 64476], // 14,713 before segment-overlap joined the catalogue, 17,942 before aux-torn's metadata slot
  // Token slots: the fill counts and the stale tail (the slot-level finding's configuration, with torn writes and early frees).
  ['2-token pages, owner-check, auto-truncate, early-free, torn-write', configFrom({ pages: 3, pageSize: 2, prefillLimit: 3, requests: [{ length: 3 }, { length: 4 }], variant: 'owner-check', faults: ['auto-truncate', 'early-free', 'torn-write'], decodeSteps: 2 }), 1905],
  // Conservation counts the free list's copies: double-free under the orders that keep a list.
  ['matrix, buggy, double-free, lifo', { ...matrixConfig('buggy', ['double-free']), allocator: 'lifo' }, 1416], // 1,167 before a lifo release was SGLang's group (spec/release.ts: the segment joins in front of the duplicates)
  ['matrix, buggy, double-free and stale-free, sglang', { ...matrixConfig('buggy', ['double-free', 'stale-free']), allocator: 'sglang' }, 1413],
  ['owner-check, early-free and torn-write, requests 1,1', configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free', 'torn-write'] }), 601],
  ['buggy, stale-free, two decode steps, requests 1,1,1', configFrom({ pages: 1, prefillLimit: 1, requests: [{ length: 1 }, { length: 1 }, { length: 1 }], variant: 'buggy', faults: ['stale-free'], decodeSteps: 2 }), 2224],
  // Table growth: live tables with empty positions past the pages grow added, freed again by a stale release.
  ['table growth, buggy, stale-free, sglang, requests 1,1,3', configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }, { length: 3 }], variant: 'buggy', faults: ['silent-stub', 'stale-free'], allocator: 'sglang', decodeSteps: 2, tableGrowth: true }), 1521],
  // hardened in the fast family (binding/family.ts) with both of its mechanisms there off: the conjunction's plain pass on stale releases and torn, late writes.
  ['hardened without revoke-writer and release-checks-holder, early-free, stale-free, torn-write, requests 1,1', configFrom({ pages: 1, prefillLimit: 1, requests: [{ length: 1 }, { length: 1 }], variant: 'hardened', faults: ['early-free', 'stale-free', 'torn-write'], without: ['revoke-writer', 'release-checks-holder'] }), 477],
  ["issue 14's defect under buggy", configFrom({ pages: 4, prefillLimit: 3, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }, { length: 3, prefix: 'sys' }], variant: 'buggy', faults: ['silent-stub', 'early-free'] }), 4651],
];

describe('the fast forms agree with the spec on every reachable state', () => {
  it.each(CONFIGS)('%s', { timeout: 60_000 }, (_name, config, expected) => {
    const m = compile(config);
    const states = reachable(m);
    let brokenHold = 0;
    expect(states.length).toBe(expected);
    for (const p of [Isolation, Integrity, ExclusiveHold, Conservation]) {
      const fast = fastFormOf(m, p)!;
      let broken = 0;
      for (const s of states) {
        expect(fast(s), p.name).toBe(p.holds(m, s));
        if (!fast(s)) broken++;
      }
      // The read invariants break in every configuration here, so their agreement is not vacuous.
      if (p === Isolation || p === Integrity) expect(broken, p.name).toBeGreaterThan(0);
      else brokenHold += broken;
    }
    // ExclusiveHold and Conservation break only where a stale or a double release frees pages again.
    expect(brokenHold > 0, 'ExclusiveHold, Conservation').toBe(config.faults.includes('stale-free') || config.faults.includes('double-free'));
    // The conjunction holds exactly where every invariant it names does, and fails somewhere.
    const together = conjunctionOf(m);
    expect(together.names).toEqual(CONJOINED.map((p) => p.name));
    let failing = 0;
    for (const s of states) {
      const all = CONJOINED.every((p) => p.holds(m, s));
      expect(together.holds(s)).toBe(all);
      if (!all) failing++;
    }
    expect(failing).toBeGreaterThan(0);
  });
});

describe('the conjunction in the search', () => {
  it('finds and names the same first failures as the invariants one by one', { timeout: 60_000 }, () => {
    const m = compile(matrixConfig('buggy', FAULTS.filter((f) => f !== 'torn-write')));
    const summary = (r: ReturnType<typeof check>) => [r.distinctStates, r.violations.map((v) => [v.invariant, v.depth, v.trace.steps.map((x) => x.action)]), r.witnesses];
    const options = { symmetry: false, continueAfterViolation: true } as const;
    const withIt = check(checkedModel(m), options);
    expect(withIt.violations.length).toBeGreaterThan(2);
    const model = checkedModel(m);
    const { conjunction: _unused, ...without } = model.fast!;
    expect(summary(withIt)).toEqual(summary(check({ ...model, fast: without }, options)));
  });
});
