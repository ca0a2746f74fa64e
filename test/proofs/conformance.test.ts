import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActionKind, type Fault, type Variant } from '../../spec/index.ts';
import { checkConformance } from '../../proofs/conformance.ts';
import { OWNER_CHECK_FAULTS, PROOF_FAULTS } from '../../proofs/obligations.ts';
import { openZ3, type Z3Session } from '../../proofs/z3.ts';
import { MUTANTS, mutantStep } from './mutants.ts';

let z3: Z3Session;
beforeAll(async () => {
  z3 = await openZ3();
}, 60_000);
afterAll(async () => {
  await z3.close();
});

// Every branch of the encoding that a fault or a variant switches is compared with step
// both ways: all faults on (torn-write included: its actions are encoded, though no
// invariant covers them yet), and none. (The proofs' tests switch the check off when they
// prove the same encoding again under other fault sets.)
// Between them every switch is on and off: the owner check (owner-check, hardened against
// buggy, length-fix), the silent stub (buggy against length-fix), each fault (all against
// none), the mechanisms (hardened against owner-check).
// Exactly the proof's faults (proofs/obligations.ts's PROOF_FAULTS): not auto-truncate (the
// encoding has whole pages, docs/SLOTS.md), segment-overlap (it releases a table in one step),
// nor retraction's (its requests hold once).
const ENCODED: readonly Fault[] = PROOF_FAULTS;
// hardened with every fault and length-fix without faults are checked by `prove` itself, end to end, in cli.test.ts
// (as are owner-check's and buggy's default faults): not twice.
const SEMANTICS: readonly (readonly [Variant, readonly Fault[]])[] = [
  ['owner-check', ENCODED],
  ['owner-check', []],
  ['buggy', ENCODED],
];

describe('the encoding agrees with the spec’s step on the wide universe', () => {
  for (const [variant, faults] of SEMANTICS) {
    it(`${variant}, faults ${faults.join(',') || 'none'}`, async () => {
      const heard: string[] = [];
      const report = await checkConformance(z3, variant, faults, undefined, undefined, [], (done, of) => heard.push(`${done}/${of}`));
      expect(report.mismatches).toEqual([]);
      // prove's progress line hears each action kind once, in order (21 kinds: every one but those only observed)
      expect(heard).toEqual(Array.from({ length: 21 }, (_, k) => `${k + 1}/21`));
      expect(report.universe).toBe('6 pages; A (1), B (4, sys of 2 pages), C (5, sys of 2 pages), D (2, tmp); prefill limit 4');
      expect(report.steps).toBeGreaterThan(300);
      expect(report.disabled).toBeGreaterThan(700);
    }, 240_000);
  }
});

describe('and disagrees with every mutant of the catalogue, at the action the mutant breaks', () => {
  it('among them checks, reads and writes that stop after the third page of a table', async () => {
    const caught: string[] = [];
    const stories = new Map<string, string>();
    for (const mutant of MUTANTS) {
      // only the kinds the mutant touches and one it does not: the whole check runs in mutants.test.ts
      const kinds = [...new Set([...mutant.caughtAt.split(','), 'handoff'])] as ActionKind[];
      const report = await checkConformance(z3, 'owner-check', [...OWNER_CHECK_FAULTS], await mutantStep(mutant), kinds);
      caught.push(`${mutant.name}: ${report.mismatches.map((x) => x.action.replace(/\(.*/, '')).join(',')}`);
      stories.set(mutant.name, report.mismatches[0]?.story.join('\n') ?? '');
    }
    expect(caught).toEqual(MUTANTS.map((m) => `${m.name}: ${m.caughtAt}`));
    // the failing decode: the spec fails the request and still fills its read set
    expect(stories.get('a failing decode still records what it read')).toMatch(
      /the spec's decode\([A-D]\) leads to this state, which no step of the encoding allows:\n {2}request [A-D]: failed; .*has read (?!nothing)/,
    );
  }, 300_000);
});
