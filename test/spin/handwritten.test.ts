/**
 * The independent derivation of the live-state counts: SPIN on a Promela model written
 * by hand as a SPIN user would (spin/handwritten/length-fix.pml: a process per request,
 * its table a local array), not generated from the spec, finds exactly pagecheck's
 * distinct states under `length-fix` (no symmetry reduction, whole space).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { compile, configFrom } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { buildPanFromFile, runPan, spinAvailable } from '../../spin/run.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/length-fix.pml', import.meta.url));

const CASES = [
  { pages: 6, limit: 2, lengths: [1, 2, 2, 3], states: 9329 },
  { pages: 7, limit: 3, lengths: [1, 2, 2, 3, 3], states: 175194 },
  { pages: 4, limit: 2, lengths: [2, 3, 1], states: 246 },
  { pages: 5, limit: 2, lengths: [2, 3, 1], states: 391 },
] as const;

describe.skipIf(!spinAvailable())('SPIN on the hand-written Promela model agrees with pagecheck (length-fix)', () => {
  for (const c of CASES) {
    it(`${c.pages} pages, prefill limit ${c.limit}, requests ${c.lengths.join(',')}: ${c.states} states`, () => {
      const config = configFrom({ pages: c.pages, prefillLimit: c.limit, requests: c.lengths.map((length) => ({ length })), variant: 'length-fix' });
      const mine = check(checkedModel(compile(config)), { symmetry: false, continueAfterViolation: true });
      const defines: Record<string, number> = { PAGES: c.pages, LIMIT: c.limit, N: c.lengths.length, MAXLEN: Math.max(...c.lengths) };
      c.lengths.forEach((length, i) => (defines[`L${i}`] = length));
      for (let i = c.lengths.length; i < 7; i++) defines[`L${i}`] = 0;
      const build = buildPanFromFile(MODEL, config, defines, { optimize: false });
      try {
        const spin = runPan(build, { hashBits: 20 });
        expect([spin.verdict, spin.pan.statesStored]).toEqual(['holds', c.states]);
        expect([mine.verdict, mine.distinctStates]).toEqual(['holds', c.states]);
      } finally {
        build.dispose();
      }
    }, 60_000);
  }
});
