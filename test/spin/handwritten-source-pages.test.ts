/**
 * P's source pages' state counts derived independently (issue 24, item 2): SPIN on a
 * Promela model written by hand as a SPIN user would (spin/handwritten/source-pages.pml: a
 * process per request, its table, its count of landed parts and whether P freed its
 * source page as locals, each landing and P's abort a d_step), not generated from the
 * spec, finds exactly pagecheck's distinct states under `length-fix` with `--source-pages`
 * and `torn-write` (no symmetry, whole space, assertions off), with fault
 * `source-early-free` and without it. The model keeps what each decode read, as pagecheck
 * does, so the leaking runs are counted too.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFrom, type Config, type Fault } from '../../spec/index.ts';
import { spinAvailable } from '../../spin/run.ts';
import { bothCounts, bothVerdicts } from './handwritten-kit.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/source-pages.pml', import.meta.url));

const CASES = [
  { pages: 3, limit: 2, lengths: [2, 1], fault: true, states: 494 },
  { pages: 3, limit: 2, lengths: [2, 1], fault: false, states: 111 },
  { pages: 3, limit: 2, lengths: [2, 3], fault: true, states: 46 },
  { pages: 4, limit: 2, lengths: [2, 1, 1], fault: true, states: 19596 },
] as const;

const configOf = (c: (typeof CASES)[number]): Config => ({
  ...configFrom({ pages: c.pages, prefillLimit: c.limit, requests: c.lengths.map((length) => ({ length })), variant: 'length-fix', faults: c.fault ? ['torn-write', 'source-early-free'] : (['torn-write'] as Fault[]) }),
  sourcePages: true,
});

const definesOf = (c: (typeof CASES)[number]): Record<string, number> => {
  const defines: Record<string, number> = { PAGES: c.pages, LIMIT: c.limit, N: c.lengths.length, MAXLEN: Math.max(...c.lengths) };
  c.lengths.forEach((length, i) => (defines[`L${i}`] = length));
  for (let i = c.lengths.length; i < 3; i++) defines[`L${i}`] = 0;
  if (c.fault) defines.SOURCE_EARLY_FREE = 1;
  return defines;
};

describe.skipIf(!spinAvailable())('SPIN on the hand-written source-pages model agrees with pagecheck (length-fix, --source-pages, torn-write)', () => {
  for (const c of CASES) {
    it(`${c.pages} pages, prefill limit ${c.limit}, requests ${c.lengths.join(',')}${c.fault ? ', source-early-free' : ''}: ${c.states} states`, () => {
      expect(bothCounts(MODEL, configOf(c), definesOf(c))).toEqual({ spin: c.states, mine: c.states });
    }, 60_000);
  }

  it('and the model is not vacuous: with the fault SPIN finds the foreign read pagecheck finds, and without it neither does', () => {
    for (const c of [CASES[0], CASES[1]]) {
      const verdict = c.fault ? 'violation' : 'holds';
      expect(bothVerdicts(MODEL, configOf(c), definesOf(c))).toEqual({ spin: verdict, mine: verdict });
    }
  }, 60_000);
});
