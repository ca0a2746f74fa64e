/**
 * The draft model's KV, state counts derived independently (issue 24, item 5): SPIN on a
 * Promela model written by hand as a SPIN user would (spin/handwritten/draft.pml: a process
 * per request, its table, what its decode read and whether it hit or inserted the prefix as
 * locals, a page's target and draft KV as two global arrays, the draft part landing in a
 * d_step of its own), not generated from the spec, finds exactly pagecheck's distinct
 * states under `length-fix` with `--draft` (no symmetry, whole space, assertions off), with
 * fault `draft-stale` and without it, a prefix hit in D's cache and an insert included.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFrom, type Config } from '../../spec/index.ts';
import { spinAvailable } from '../../spin/run.ts';
import { bothCounts, bothVerdicts } from './handwritten-kit.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/draft.pml', import.meta.url));

/** Requests as `length` or `length:sys` (the one-page prefix). */
const CASES = [
  { pages: 3, limit: 3, requests: ['1', '2:sys'], fault: true, states: 131 },
  { pages: 3, limit: 3, requests: ['1', '2:sys'], fault: false, states: 131 },
  { pages: 3, limit: 3, requests: ['2:sys', '2:sys'], fault: true, states: 69 },
  { pages: 4, limit: 3, requests: ['1', '2:sys', '2:sys'], fault: true, states: 2263 },
  { pages: 4, limit: 3, requests: ['1', '2:sys', '2:sys'], fault: false, states: 2115 },
] as const;

type Case = (typeof CASES)[number];

const configOf = (c: Case): Config => ({
  ...configFrom({
    pages: c.pages,
    prefillLimit: c.limit,
    requests: c.requests.map((q) => ({ length: Number(q.split(':')[0]), ...(q.endsWith(':sys') ? { prefix: 'sys' } : {}) })),
    variant: 'length-fix',
    faults: c.fault ? ['draft-stale'] : [],
  }),
  draft: true,
});

const definesOf = (c: Case): Record<string, number> => {
  const lengths = c.requests.map((q) => Number(q.split(':')[0]));
  const defines: Record<string, number> = { PAGES: c.pages, LIMIT: c.limit, N: lengths.length, MAXLEN: Math.max(...lengths) };
  for (let i = 0; i < 3; i++) {
    defines[`L${i}`] = lengths[i] ?? 0;
    defines[`P${i}`] = c.requests[i]?.endsWith(':sys') === true ? 1 : 0;
  }
  if (c.fault) defines.DRAFT_STALE = 1;
  return defines;
};

describe.skipIf(!spinAvailable())('SPIN on the hand-written draft model agrees with pagecheck (length-fix, --draft)', () => {
  for (const c of CASES) {
    it(`${c.pages} pages, prefill limit ${c.limit}, requests ${c.requests.join(',')}${c.fault ? ', draft-stale' : ''}: ${c.states} states`, () => {
      expect(bothCounts(MODEL, configOf(c), definesOf(c))).toEqual({ spin: c.states, mine: c.states });
    }, 60_000);
  }

  it('and the model is not vacuous: with the fault SPIN finds the bad read pagecheck finds, and without it neither does', () => {
    for (const c of [CASES[0], CASES[1]]) {
      const verdict = c.fault ? 'violation' : 'holds';
      expect(bothVerdicts(MODEL, configOf(c), definesOf(c))).toEqual({ spin: verdict, mine: verdict });
    }
  }, 60_000);
});
