/**
 * D's state slots and metadata rows' state counts derived independently (issue 24, item 3):
 * SPIN on a Promela model written by hand as a SPIN user would (spin/handwritten/state-slots.pml:
 * a process per request, its table, what it read, its slot and row indices as locals, the
 * pools global arrays, each protocol step a d_step), not generated from the spec, finds
 * exactly pagecheck's distinct states under `length-fix` with `--state-slots` (no symmetry,
 * whole space, assertions off), without a fault, with `state-slot-reuse`, with
 * `metadata-collision` and with both. The model keeps what each commit and decode read, as
 * pagecheck does, so the leaking runs are counted too.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { compile, configFrom, type Config, type Fault } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { buildPanFromFile, runPan, spinAvailable } from '../../spin/run.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/state-slots.pml', import.meta.url));

const CASES: readonly { pages: number; limit: number; lengths: readonly number[]; faults: readonly Fault[]; states: number }[] = [
  { pages: 3, limit: 2, lengths: [2, 1], faults: [], states: 101 },
  { pages: 3, limit: 2, lengths: [2, 1], faults: ['state-slot-reuse'], states: 117 },
  { pages: 3, limit: 2, lengths: [2, 1], faults: ['metadata-collision'], states: 151 },
  { pages: 3, limit: 2, lengths: [2, 1], faults: ['state-slot-reuse', 'metadata-collision'], states: 197 },
  { pages: 3, limit: 2, lengths: [1, 1, 3], faults: ['state-slot-reuse', 'metadata-collision'], states: 428 },
  { pages: 4, limit: 2, lengths: [2, 1, 1], faults: ['state-slot-reuse', 'metadata-collision'], states: 20630 },
];

const configOf = (c: (typeof CASES)[number]): Config => ({
  ...configFrom({ pages: c.pages, prefillLimit: c.limit, requests: c.lengths.map((length) => ({ length })), variant: 'length-fix', faults: [...c.faults] }),
  stateSlots: true,
});

const definesOf = (c: (typeof CASES)[number]): Record<string, number> => {
  const defines: Record<string, number> = { PAGES: c.pages, LIMIT: c.limit, N: c.lengths.length, MAXLEN: Math.max(...c.lengths) };
  c.lengths.forEach((length, i) => (defines[`L${i}`] = length));
  for (let i = c.lengths.length; i < 3; i++) defines[`L${i}`] = 0;
  if (c.faults.includes('state-slot-reuse')) defines.SLOT_REUSE = 1;
  if (c.faults.includes('metadata-collision')) defines.META_COLLISION = 1;
  return defines;
};

describe.skipIf(!spinAvailable())('SPIN on the hand-written state-slots model agrees with pagecheck (length-fix, --state-slots)', () => {
  for (const c of CASES) {
    it(`${c.pages} pages, prefill limit ${c.limit}, requests ${c.lengths.join(',')}${c.faults.length === 0 ? '' : `, ${c.faults.join(', ')}`}: ${c.states} states`, () => {
      const config = configOf(c);
      const mine = check(checkedModel(compile(config)), { symmetry: false, continueAfterViolation: true });
      const build = buildPanFromFile(MODEL, config, definesOf(c), { optimize: false, keepGhosts: true });
      try {
        const spin = runPan(build, { hashBits: 20, continueAfterViolation: true });
        expect([spin.pan.statesStored, mine.distinctStates]).toEqual([c.states, c.states]);
      } finally {
        build.dispose();
      }
    }, 60_000);
  }

  it('and the model is not vacuous: with each fault SPIN finds the foreign read pagecheck finds, and without them neither does', () => {
    for (const c of CASES.slice(0, 3)) {
      const build = buildPanFromFile(MODEL, configOf(c), definesOf(c), { optimize: false, keepGhosts: true });
      try {
        const verdict = c.faults.length === 0 ? 'holds' : 'violation';
        expect(runPan(build, { hashBits: 20 }).verdict).toBe(verdict);
        expect(check(checkedModel(compile(configOf(c)))).verdict).toBe(verdict);
      } finally {
        build.dispose();
      }
    }
  }, 60_000);
});
