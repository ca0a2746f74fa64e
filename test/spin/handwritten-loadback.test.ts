/**
 * The host cache's load back, state counts derived independently (issue 24, item 4): SPIN on
 * a Promela model written by hand as a SPIN user would (spin/handwritten/loadback.pml: a
 * process per request, its table, its reads and whether it inserted its prefix as locals,
 * the load and the host copy as globals, the load's landing and host memory running short
 * each a process of its own), not generated from the spec, finds exactly pagecheck's
 * distinct states under `length-fix` with `--loadback` (no symmetry, no reduction, whole
 * space, assertions off), with fault `host-evict-during-load` and without it. The model
 * keeps what each decode read, as pagecheck does, so the leaking runs are counted too.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFrom, type Config, type Fault } from '../../spec/index.ts';
import { spinAvailable } from '../../spin/run.ts';
import { bothCounts, bothVerdicts } from './handwritten-kit.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/loadback.pml', import.meta.url));

/** Lengths in pages; `sys` names the one request with the prefix (of one page). */
const CASES = [
  { pages: 3, lengths: [1, 2], sys: 1, fault: true, states: 460 },
  { pages: 3, lengths: [1, 2], sys: 1, fault: false, states: 330 },
  { pages: 2, lengths: [1, 2], sys: 1, fault: true, states: 120 },
  { pages: 4, lengths: [2, 2, 1], sys: 1, fault: true, states: 3745 },
  // An over-long request, refused under the length fix: with the prefix (its load lands nowhere once it let go of its pages), and without.
  { pages: 3, lengths: [3], sys: 0, fault: false, states: 16 },
  { pages: 3, lengths: [2, 3], sys: 0, fault: true, states: 84 },
] as const;

const configOf = (c: (typeof CASES)[number]): Config => ({
  ...configFrom({ pages: c.pages, prefillLimit: 2, requests: c.lengths.map((length, i) => ({ length, ...(i === c.sys ? { prefix: 'sys' } : {}) })), variant: 'length-fix', faults: c.fault ? ['host-evict-during-load'] : ([] as Fault[]) }),
  loadback: true,
});

const definesOf = (c: (typeof CASES)[number]): Record<string, number> => {
  const defines: Record<string, number> = { PAGES: c.pages, LIMIT: 2, N: c.lengths.length, MAXLEN: Math.max(...c.lengths), SYSREQ: c.sys };
  c.lengths.forEach((length, i) => (defines[`L${i}`] = length));
  for (let i = c.lengths.length; i < 3; i++) defines[`L${i}`] = 0;
  if (c.fault) defines.HOST_EVICT_DURING_LOAD = 1;
  return defines;
};

describe.skipIf(!spinAvailable())('SPIN on the hand-written load-back model agrees with pagecheck (length-fix, --loadback)', () => {
  for (const c of CASES) {
    it(`${c.pages} pages, prefill limit 2, requests ${c.lengths.map((l, i) => (i === c.sys ? `${l}:sys` : `${l}`)).join(',')}${c.fault ? ', host-evict-during-load' : ''}: ${c.states} states`, () => {
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
