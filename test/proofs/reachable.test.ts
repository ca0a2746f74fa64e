import { describe, expect, it } from 'vitest';
import { compile, incidentConfig, matrixConfig, type Config } from '../../spec/index.ts';
import { OWNER_CHECK_FAULTS } from '../../proofs/obligations.ts';
import { checkReachable } from './enumerate.ts';

/** The faults of owner-check's tag invariant: the proof's (proofs/coverage.ts) but torn writes (the hold invariant, test/proofs/torn-write.test.ts). */
const PROOF_FAULTS = OWNER_CHECK_FAULTS;

/** The checker's small configurations, with their number of reachable states, derived by this file's own brute-force enumeration (enumerate.ts) and pinned: a change in semantics shows here. */
const CONFIGS: readonly (readonly [string, Config, number])[] = [
  ['incident, owner-check', incidentConfig('owner-check'), 21],
  ['incident, length-fix', incidentConfig('length-fix'), 16],
  ...PROOF_FAULTS.map((f) => [`matrix, owner-check, ${f}`, matrixConfig('owner-check', [f]), ({ 'silent-stub': 106, 'early-free': 393, 'stale-free': 925, 'prefix-poison': 128, 'double-free': 761, 'lock-underflow': 88 } as Readonly<Record<string, number>>)[f] ?? 0] as const),
  // After merging issue 14 with double-free and lock-underflow (main: 10618 with six faults, i14p: 6509 with four).
  ['matrix, owner-check, every fault', matrixConfig('owner-check', [...PROOF_FAULTS]), 10492],
  ['matrix, length-fix, no fault', matrixConfig('length-fix', []), 83],
  ['4 pages, owner-check, every fault', { pages: 4, prefillLimit: 2, requests: [{ name: 'A', length: 2 }, { name: 'B', length: 3, prefix: 'sys' }, { name: 'C', length: 2, prefix: 'sys' }], variant: 'owner-check', faults: [...PROOF_FAULTS] }, 17115],
  // a prefix of 2 pages: the conjuncts name page j of the prefix at position j (the one-label-per-prefix invariant of before fails 656 of length-fix's 686 states, at TypeOK)
  ...(['owner-check', 'length-fix'] as const).map((variant) => [`2-page prefix, ${variant}`, { pages: 4, prefillLimit: 3, requests: [{ name: 'A', length: 1 }, { name: 'B', length: 3, prefix: 'sys' }, { name: 'C', length: 3, prefix: 'sys' }], prefixPages: { sys: 2 }, variant, faults: variant === 'owner-check' ? [...PROOF_FAULTS] : [] }, variant === 'owner-check' ? 22810 : 686] as const),
];

describe('the invariant holds on every reachable state of the small configurations', () => {
  for (const [name, config, states] of CONFIGS) {
    it(name, () => {
      const result = checkReachable(compile(config));
      expect(result.breaches).toEqual([]);
      expect(result.states).toBe(states);
    }, 60_000);
  }

  it('and fails where it should: the buggy incident reaches a state that breaks Isolation', () => {
    const result = checkReachable(compile(incidentConfig('buggy')));
    expect(result.breaches.length).toBeGreaterThan(0);
    expect(result.breaches.every((b) => b.parts.includes('Isolation'))).toBe(true);
  }, 60_000);
});
