/**
 * Retraction's state counts derived independently (issue 23): SPIN on a Promela model
 * written by hand as a SPIN user would (spin/handwritten/retraction.pml: a process per
 * request, its table and its host copy local arrays, retract and resume as d_steps, a
 * ghost bit for the witness `Resumed`), not generated from the spec, finds exactly
 * pagecheck's distinct states under `length-fix` with config `retraction` (no symmetry,
 * whole space). The faults' configurations are not compared: pagecheck keeps what each
 * decode read (read sets and read records, for its counterexamples), where the Promela
 * model only asserts, so a leak's states split there and not in SPIN.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { compile, configFrom } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { buildPanFromFile, runPan, spinAvailable } from '../../spin/run.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/retraction.pml', import.meta.url));

const CASES = [
  { pages: 3, limit: 3, lengths: [2, 1], states: 353 },
  { pages: 3, limit: 2, lengths: [2, 3], states: 32 },
  { pages: 4, limit: 2, lengths: [2, 3, 1], states: 1815 },
  { pages: 5, limit: 2, lengths: [2, 2, 1], states: 47415 },
] as const;

describe.skipIf(!spinAvailable())('SPIN on the hand-written retraction model agrees with pagecheck (length-fix, retraction)', () => {
  for (const c of CASES) {
    it(`${c.pages} pages, prefill limit ${c.limit}, requests ${c.lengths.join(',')}: ${c.states} states`, () => {
      const config = configFrom({ pages: c.pages, prefillLimit: c.limit, requests: c.lengths.map((length) => ({ length })), variant: 'length-fix', retraction: true });
      const mine = check(checkedModel(compile(config)), { symmetry: false, continueAfterViolation: true });
      const defines: Record<string, number> = { PAGES: c.pages, LIMIT: c.limit, N: c.lengths.length, MAXLEN: Math.max(...c.lengths) };
      c.lengths.forEach((length, i) => (defines[`L${i}`] = length));
      for (let i = c.lengths.length; i < 3; i++) defines[`L${i}`] = 0;
      const build = buildPanFromFile(MODEL, config, defines, { optimize: false, keepGhosts: true });
      try {
        const spin = runPan(build, { hashBits: 20 });
        expect([spin.verdict, spin.pan.statesStored]).toEqual(['holds', c.states]);
        expect([mine.verdict, mine.distinctStates]).toEqual(['holds', c.states]);
      } finally {
        build.dispose();
      }
    }, 60_000);
  }

  it('and the model is not vacuous: with -DRESUME_STALE SPIN finds the stale read pagecheck finds', () => {
    const config = configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2 }, { length: 1 }], variant: 'length-fix', retraction: true, faults: ['resume-stale'] });
    const build = buildPanFromFile(MODEL, config, { PAGES: 3, LIMIT: 3, N: 2, MAXLEN: 2, L0: 2, L1: 1, L2: 0, RESUME_STALE: 1 }, { optimize: false, keepGhosts: true });
    try {
      expect(runPan(build, { hashBits: 20 }).verdict).toBe('violation');
    } finally {
      build.dispose();
    }
    expect(check(checkedModel(compile(config))).verdict).toBe('violation');
  }, 60_000);
});
