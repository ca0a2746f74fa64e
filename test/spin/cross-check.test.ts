/**
 * The independent cross-check of issue 3, item 5: pagecheck's checker and SPIN, on the
 * Promela model generated from the same configuration, agree on the number of distinct
 * states (no symmetry reduction, every state explored) and on the shortest
 * counterexample: its length, its invariant and its actions. Runs wherever `spin` and
 * `gcc` are installed (CI installs spin); the counts are pinned as well, so that a change
 * of the spec that both sides follow still shows up. Provenance of the pins: SPIN 6.5.2's
 * "states, stored" on the exported model (this test, `pan -A`), which resets dead tables
 * as the spec does (spec/liveness.ts).
 */
import { describe, expect, it } from 'vitest';
import { check, type CheckResult } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, incidentConfig, INVARIANTS, matrixConfig, type Action, type Config } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { buildPan, runPan, spinAvailable } from '../../spin/run.ts';

/** One configuration with the figures both tools must report. */
interface Case {
  readonly name: string;
  readonly config: Config;
  /** Distinct states of the whole reachable space. */
  readonly states: number;
  /** The greatest breadth-first depth. */
  readonly depth: number;
  /** The shortest counterexample: its invariant and its number of actions, or null when every invariant holds. */
  readonly violation: { readonly invariant: string; readonly length: number } | null;
}

const fourPages = (variant: Config['variant']): Config =>
  configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }, { length: 1 }], variant });

/** A:3, B:4 and C:3, B and C with the 2-page prefix sys; prefill limit 3. */
const twoPagePrefix = (variant: Config['variant'], faults: Config['faults'], pages: number): Config =>
  configFrom({ pages, prefillLimit: 3, requests: [{ length: 3 }, { length: 4, prefix: 'sys' }, { length: 3, prefix: 'sys' }], variant, faults: [...faults], prefixPages: { sys: 2 } });
/** The slot-level finding's configuration: 2-token pages, prefill limit 3 tokens, requests of 3 and 4 tokens. */
const truncating = (variant: Config['variant'], faults: Config['faults'], decodeSteps = 1): Config =>
  configFrom({ pages: 3, pageSize: 2, prefillLimit: 3, requests: [{ length: 3 }, { length: 4 }], variant, faults: [...faults], decodeSteps });

const CASES: readonly Case[] = [
  { name: 'minimal incident, buggy', config: incidentConfig('buggy'), states: 21, depth: 10, violation: { invariant: 'Isolation', length: 9 } },
  { name: 'minimal incident, length-fix', config: incidentConfig('length-fix'), states: 16, depth: 8, violation: null },
  { name: 'minimal incident, owner-check', config: incidentConfig('owner-check'), states: 21, depth: 10, violation: null },
  { name: '4 pages, requests 2,3,1, buggy', config: fourPages('buggy'), states: 363, depth: 15, violation: { invariant: 'Isolation', length: 9 } },
  { name: '4 pages, requests 2,3,1, length-fix', config: fourPages('length-fix'), states: 246, depth: 13, violation: null },
  {
    name: 'matrix, buggy, early-free',
    config: matrixConfig('buggy', ['early-free']),
    states: 331,
    depth: 14,
    violation: { invariant: 'Isolation', length: 7 },
  },
  {
    name: 'matrix, buggy, prefix-poison',
    config: matrixConfig('buggy', ['prefix-poison']),
    states: 123,
    depth: 14,
    violation: { invariant: 'Isolation', length: 13 },
  },
  {
    name: '6 pages, requests 2,3,2,3,2, buggy (70,352 states when dead tables are kept)',
    config: configFrom({ pages: 6, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }, { length: 2 }, { length: 3 }, { length: 2 }] }),
    states: 45164,
    depth: 25,
    violation: { invariant: 'Isolation', length: 9 },
  },
  {
    name: '4 pages, requests 2,2,2, early-free and stale-free (a released table dies even where stale-free keeps freed ones)',
    config: configFrom({ pages: 4, prefillLimit: 1, requests: [{ length: 2 }, { length: 2 }, { length: 2 }], faults: ['early-free', 'stale-free'] }),
    states: 880,
    depth: 12,
    violation: { invariant: 'ExclusiveHold', length: 5 },
  },
  { name: 'matrix, length-fix, silent-stub', config: matrixConfig('length-fix', ['silent-stub']), states: 83, depth: 14, violation: null },
  {
    name: 'matrix, length-fix, every fault',
    config: matrixConfig('length-fix', ['silent-stub', 'early-free', 'stale-free', 'prefix-poison']),
    states: 3693,
    depth: 18,
    violation: { invariant: 'ExclusiveHold', length: 5 },
  },
  // Fault double-free: the free list as a multiset (a page twice on it goes out twice).
  { name: 'matrix, buggy, double-free', config: matrixConfig('buggy', ['double-free']), states: 664, depth: 17, violation: { invariant: 'Conservation', length: 4 } },
  {
    name: '3 pages, requests 1,1,2, buggy, double-free (leaks at 12)',
    config: configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }, { length: 2 }], faults: ['double-free'] }),
    states: 2011,
    depth: 18,
    violation: { invariant: 'Conservation', length: 6 },
  },
  {
    name: 'matrix, owner-check, every fault with double-free',
    config: matrixConfig('owner-check', ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free']),
    // 10618 before issue 14's merge (its positions and read records); pagecheck's figure, SPIN not rerun.
    states: 10492,
    depth: 20,
    violation: { invariant: 'Conservation', length: 4 },
  },
  // Issue 14: content positions, torn writes, decode steps and hardened's mechanisms, on both sides.
  {
    name: "issue 14's defect, owner-check: a prefix tag only at the prefix's position",
    config: configFrom({ pages: 4, prefillLimit: 3, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }, { length: 3, prefix: 'sys' }], variant: 'owner-check', faults: ['silent-stub', 'early-free'] }),
    states: 4769,
    depth: 16,
    violation: null,
  },
  {
    name: 'owner-check, early-free and torn-write, requests 1,1: the late content lands under the new tag',
    config: configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free', 'torn-write'] }),
    states: 601,
    depth: 14,
    violation: { invariant: 'Isolation', length: 10 },
  },
  {
    name: 'hardened, early-free, stale-free and torn-write, requests 1,1,1',
    config: configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }, { length: 1 }], variant: 'hardened', faults: ['early-free', 'stale-free', 'torn-write'] }),
    states: 27106,
    depth: 24,
    violation: null,
  },
  {
    name: 'matrix, buggy, stale-free, two decode steps',
    config: { ...matrixConfig('buggy', ['stale-free']), decodeSteps: 2 },
    states: 1377,
    depth: 19,
    violation: { invariant: 'ExclusiveHold', length: 5 },
  },
  {
    name: 'matrix, owner-check, silent-stub, early-free and prefix-poison, two decode steps',
    config: { ...matrixConfig('owner-check', ['silent-stub', 'early-free', 'prefix-poison']), decodeSteps: 2 },
    states: 1196,
    depth: 18,
    violation: null,
  },
  // A prefix of two pages (prefixPages): shared at positions 0 and 1, page j valid only at position j.
  {
    name: '2-page prefix, buggy, prefix-poison: 5 pages, A:3 B:4:sys C:3:sys',
    config: twoPagePrefix('buggy', ['prefix-poison'], 5),
    states: 154,
    depth: 14,
    violation: { invariant: 'Isolation', length: 12 },
  },
  {
    name: '2-page prefix, owner-check, silent-stub, early-free, prefix-poison and stale-free',
    config: twoPagePrefix('owner-check', ['silent-stub', 'early-free', 'prefix-poison', 'stale-free'], 4),
    states: 5214,
    depth: 20,
    violation: { invariant: 'ExclusiveHold', length: 5 },
  },
  {
    name: '2-page prefix, hardened, every fault SPIN models (all but lock-underflow, which needs eviction): 5 pages',
    config: twoPagePrefix('hardened', ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'torn-write'], 5),
    states: 80696,
    depth: 33,
    violation: null,
  },
  // Token slots: fill counts, the stale tail of P's last page, the length rule, auto-truncate and hardened's tag-counts-tokens.
  { name: 'matrix, buggy, auto-truncate (whole pages)', config: matrixConfig('buggy', ['auto-truncate']), states: 140, depth: 16, violation: { invariant: 'Isolation', length: 15 } },
  {
    name: '2-token pages, owner-check, auto-truncate, requests 3,4 tokens: the stale tail under the right tag',
    config: truncating('owner-check', ['auto-truncate']),
    states: 21,
    depth: 10,
    violation: { invariant: 'Isolation', length: 4 },
  },
  { name: '2-token pages, hardened, auto-truncate, requests 3,4 tokens', config: truncating('hardened', ['auto-truncate']), states: 21, depth: 10, violation: null },
  {
    name: '2-token pages, owner-check, auto-truncate, early-free, torn-write, two decode steps',
    config: truncating('owner-check', ['auto-truncate', 'early-free', 'torn-write'], 2),
    states: 1905,
    depth: 20,
    violation: { invariant: 'Isolation', length: 8 },
  },
  { name: '2-token pages, hardened, auto-truncate, early-free, torn-write, three decode steps', config: truncating('hardened', ['auto-truncate', 'early-free', 'torn-write'], 3), states: 495, depth: 20, violation: null },
  {
    name: '2-token pages, owner-check, silent-stub under the ge rule: a one-page prompt stubbed to one token',
    config: configFrom({ pages: 3, pageSize: 2, prefillLimit: 2, lengthRule: 'ge', requests: [{ length: 3 }, { length: 2 }], variant: 'owner-check', faults: ['silent-stub'] }),
    states: 71,
    depth: 10,
    violation: { invariant: 'Isolation', length: 4 },
  },
  {
    name: '2-token pages, buggy, stale-free, three decode steps: tokens written slot by slot',
    config: configFrom({ pages: 2, pageSize: 2, prefillLimit: 4, requests: [{ length: 3 }, { length: 1 }, { length: 2 }], variant: 'buggy', faults: ['stale-free'], decodeSteps: 3 }),
    states: 3065,
    depth: 24,
    violation: { invariant: 'ExclusiveHold', length: 9 },
  },
];

/**
 * pagecheck's shortest counterexample: the least depth, ties broken by the order in which invariants are checked (SPIN asserts them in that order).
 * Where the whole space (`full`) has no violation, a search that stops at the first one is the same search: none is run again.
 */
function shortest(c: Case, full: CheckResult<Action>): { invariant: string; length: number; trace: string[] } | null {
  if (full.verdict !== 'violation') return null;
  const m = compile(c.config);
  const result = check(checkedModel(m), { symmetry: false });
  const rank = (name: string): number => INVARIANTS.findIndex((p) => p.name === name);
  const first = [...result.violations].sort((a, b) => a.depth - b.depth || rank(a.invariant) - rank(b.invariant))[0];
  if (first === undefined) return null;
  return { invariant: first.invariant, length: first.depth, trace: first.trace.steps.map((s) => actionLabel(m, s.action)) };
}

describe.skipIf(!spinAvailable())('pagecheck agrees with SPIN (breadth-first, no symmetry reduction)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const full = check(checkedModel(compile(c.config)), { symmetry: false, continueAfterViolation: true });
      const mine = shortest(c, full);
      const build = buildPan(c.config, { optimize: false });
      try {
        const spinFull = runPan(build, { continueAfterViolation: true, hashBits: 16 });
        const spinFirst = runPan(build, { hashBits: 16 });

        // The whole reachable space: pagecheck --continue against pan -A.
        expect(spinFull.verdict).toBe('holds');
        expect({ states: full.distinctStates, depth: full.depth }).toEqual({ states: c.states, depth: c.depth });
        expect({ states: spinFull.pan.statesStored, depth: spinFull.pan.depth }).toEqual({ states: c.states, depth: c.depth });

        // The shortest counterexample: same invariant, same length, same actions.
        expect(mine === null ? null : { invariant: mine.invariant, length: mine.length }).toEqual(c.violation);
        if (mine === null) {
          expect(spinFirst.verdict).toBe('holds');
          expect(spinFirst.pan.statesStored).toBe(c.states);
        } else {
          expect(spinFirst.verdict).toBe('violation');
          expect(spinFirst.invariant).toBe(mine.invariant);
          expect(spinFirst.traceLength).toBe(mine.length);
          expect(spinFirst.trace).toEqual(mine.trace);
        }
      } finally {
        build.dispose();
      }
    });
  }
});
