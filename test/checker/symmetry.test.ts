import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, incidentConfig, type State } from '../../spec/index.ts';
import { checkedModel, createCanonicalizer, symmetryClasses } from '../../binding/index.ts';
import { keyOf, orbitCount, reachable, rename, renamings } from './orbits.ts';

/**
 * Small configurations with interchangeable requests, and what the search must find in each.
 * Provenance: `raw` is re-derived in the test itself by a brute-force enumeration
 * (`reachable` in orbits.ts) and `reduced` by counting orbits of those states under every
 * renaming (`orbitCount`); both follow the live-state encoding (spec/liveness.ts).
 */
const CASES = [
  { name: 'requests 2,2,3 on 4 pages', input: { pages: 4, prefillLimit: 2, requests: [{ length: 2 }, { length: 2 }, { length: 3 }] }, raw: 186, reduced: 96, depth: 15 },
  { name: 'requests 2,2,2 on 5 pages', input: { pages: 5, prefillLimit: 2, requests: [{ length: 2 }, { length: 2 }, { length: 2 }] }, raw: 418, reduced: 75, depth: 15 },
  {
    name: 'owner-check, requests 1,2,2,1 on 4 pages',
    input: { pages: 4, prefillLimit: 1, requests: [{ length: 1 }, { length: 2 }, { length: 2 }, { length: 1 }], variant: 'owner-check' },
    raw: 7887,
    reduced: 2070,
    depth: 20,
  },
  {
    name: 'shared prefix and two faults, requests 2:s,2:s,3 on 4 pages',
    input: { pages: 4, prefillLimit: 2, requests: [{ length: 2, prefix: 's' }, { length: 2, prefix: 's' }, { length: 3 }], faults: ['silent-stub', 'stale-free', 'prefix-poison'] },
    raw: 3753,
    reduced: 1880,
    depth: 20,
  },
  {
    name: 'early-free and stale-free, requests 2,2,2 on 4 pages',
    input: { pages: 4, prefillLimit: 1, requests: [{ length: 2 }, { length: 2 }, { length: 2 }], faults: ['early-free', 'stale-free'] },
    raw: 880,
    reduced: 173,
    depth: 12,
  },
  {
    name: 'torn writes under owner-check, requests 1,1 on 2 pages',
    input: { pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free', 'torn-write'] },
    raw: 601,
    reduced: 302,
    depth: 14,
  },
  {
    name: 'hardened, torn writes and two decode steps, requests 1,1,1 on 2 pages',
    input: { pages: 2, prefillLimit: 1, requests: [{ length: 1 }, { length: 1 }, { length: 1 }], variant: 'hardened', faults: ['early-free', 'stale-free', 'torn-write'], decodeSteps: 2 },
    raw: 30385,
    reduced: 5185,
    depth: 27,
  },
] as const;

describe('symmetry reduction', () => {
  for (const c of CASES) {
    describe(c.name, () => {
      const m = compile(configFrom(c.input));
      const states = reachable(m);

      it('explores the raw space without it, and exactly one state per orbit with it', () => {
        const raw = check(checkedModel(m), { symmetry: false, continueAfterViolation: true });
        const reduced = check(checkedModel(m), { continueAfterViolation: true });
        expect([raw.distinctStates, raw.depth, raw.symmetry]).toEqual([c.raw, c.depth, false]);
        expect([reduced.distinctStates, reduced.depth, reduced.symmetry]).toEqual([c.reduced, c.depth, true]);
        expect(states.length).toBe(c.raw);
        expect(orbitCount(m, states)).toBe(c.reduced);
        // Same violations at the same depths: the properties are symmetric.
        expect(reduced.violations.map((v) => `${v.invariant}@${v.depth}`)).toEqual(raw.violations.map((v) => `${v.invariant}@${v.depth}`));
        expect(reduced.witnesses).toEqual(raw.witnesses);
      });

      it('gives every renaming of a state the same canonical form, itself a renaming of the state', () => {
        const canon = createCanonicalizer(m)!;
        const perms = renamings(m);
        const sample: State[] = states.filter((_, i) => i % 7 === 0);
        let mismatches = 0;
        let outsideOrbit = 0;
        for (const s of sample) {
          const k = keyOf(canon.canonical(s));
          const orbit = new Set(perms.map((p) => keyOf(rename(m, s, p))));
          if (!orbit.has(k)) outsideOrbit++;
          for (const p of perms) if (keyOf(canon.canonical(rename(m, s, p))) !== k) mismatches++;
        }
        expect([mismatches, outsideOrbit]).toEqual([0, 0]);
      });
    });
  }

  it('canonical forms agree on random reachable states of a 4-request class under random renamings (fast-check)', () => {
    const m = compile(configFrom({ pages: 6, prefillLimit: 1, requests: [{ length: 2 }, { length: 2 }, { length: 2 }, { length: 2 }], faults: ['early-free', 'stale-free'] }));
    const canon = createCanonicalizer(m)!;
    const perms = renamings(m);
    const states = reachable(m);
    expect(perms.length).toBe(24);
    fc.assert(
      fc.property(fc.nat(states.length - 1), fc.nat(23), (i, p) => {
        const s = states[i]!;
        return keyOf(canon.canonical(rename(m, s, perms[p]!))) === keyOf(canon.canonical(s));
      }),
      { numRuns: 300, seed: 20261019 },
    );
  });

  it('finds only the classes of equal length and equal prefix', () => {
    const m = compile(configFrom({ pages: 8, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }, { length: 2, prefix: 'p' }, { length: 2 }, { length: 2, prefix: 'p' }, { length: 3, prefix: 'p' }] }));
    expect(symmetryClasses(m)).toEqual([
      [0, 3],
      [2, 4],
    ]);
    expect(createCanonicalizer(compile(incidentConfig('buggy')))).toBeUndefined();
  });

  it('a counterexample found under symmetry is a real execution of the unreduced model, as short as without it', () => {
    const m = compile(configFrom(CASES[0].input));
    const reduced = check(checkedModel(m));
    const raw = check(checkedModel(m), { symmetry: false });
    const trace = reduced.violations[0]!.trace;
    expect(trace.steps.map((s) => actionLabel(m, s.action))).toEqual([
      'allocate(A)',
      'prefill(A)',
      'handoff(A)',
      'decode(A)',
      'free(A)',
      'allocate(C)',
      'stub(C)',
      'handoff(C)',
      'decode(C)',
    ]);
    expect(trace.steps.length).toBe(raw.violations[0]!.trace.steps.length);
  });
});
