/**
 * The SPIN cross-check of the owner check (issue 26, item 2): SPIN on a Promela model
 * written by hand as a SPIN user would (spin/handwritten/owner-check.pml: a process per
 * request, its table and what it read as locals, the tag check a loop in decode's d_step;
 * -DHARDENED for hardened's revoke-writer and release-checks-holder), not generated from
 * the spec, finds exactly pagecheck's distinct states (no symmetry, no reduction, whole
 * space) under `owner-check` and `hardened`, on small configurations of the two benchmark
 * configurations' faults (bench/handwritten-owner.ts); and both tools agree on the verdict
 * of the reads (the model asserts own data for its position: `Isolation` and `Integrity`).
 * Hardened without either mechanism leaks, on both sides.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configFrom, type Config, type Fault, type Mechanism, type Variant } from '../../spec/index.ts';
import { spinAvailable } from '../../spin/run.ts';
import { countsAndReadVerdicts } from './handwritten-kit.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/owner-check.pml', import.meta.url));

/** One configuration (prefill limit 2): the spec's variant and faults, and the model's switches that stand for them. */
interface Case {
  readonly variant: Variant;
  readonly pages: number;
  readonly lengths: readonly number[];
  readonly faults: readonly Fault[];
  /** Under `hardened`, the mechanism switched off (config `without`). */
  readonly without?: Mechanism;
  /** The model's -D switches: the faults' (SILENT_STUB, EARLY_FREE, STALE_FREE, TORN) and hardened's (HARDENED, or REVOKE or CHECK_HOLDER alone). */
  readonly switches: readonly string[];
  readonly states: number;
  readonly verdict: 'holds' | 'violation';
}

/** The hardened benchmark's faults: each of hardened's two mechanisms matters under them. */
const FOUR: readonly Fault[] = ['silent-stub', 'early-free', 'stale-free', 'torn-write'];
const FOUR_SWITCHES = ['SILENT_STUB', 'EARLY_FREE', 'STALE_FREE', 'TORN'];

const CASES: readonly Case[] = [
  { variant: 'owner-check', pages: 3, lengths: [2, 3], faults: ['silent-stub'], switches: ['SILENT_STUB'], states: 21, verdict: 'holds' },
  // The owner-check benchmark's faults: the stub fails loudly, and so does a page a late write stamped.
  { variant: 'owner-check', pages: 4, lengths: [2, 3, 1], faults: ['silent-stub', 'early-free'], switches: ['SILENT_STUB', 'EARLY_FREE'], states: 2703, verdict: 'holds' },
  // A stale release breaks ExclusiveHold, which the model does not assert; no read is another's.
  { variant: 'owner-check', pages: 4, lengths: [2, 1, 3], faults: ['silent-stub', 'early-free', 'stale-free'], switches: ['SILENT_STUB', 'EARLY_FREE', 'STALE_FREE'], states: 10280, verdict: 'holds' },
  { variant: 'owner-check', pages: 4, lengths: [2, 1, 3], faults: ['silent-stub', 'early-free', 'torn-write'], switches: ['SILENT_STUB', 'EARLY_FREE', 'TORN'], states: 46397, verdict: 'violation' },
  { variant: 'hardened', pages: 3, lengths: [2, 3], faults: FOUR, switches: [...FOUR_SWITCHES, 'HARDENED'], states: 604, verdict: 'holds' },
  { variant: 'hardened', pages: 4, lengths: [2, 1, 3], faults: FOUR, switches: [...FOUR_SWITCHES, 'HARDENED'], states: 49956, verdict: 'holds' },
  { variant: 'hardened', pages: 4, lengths: [2, 1, 3], faults: FOUR, without: 'revoke-writer', switches: [...FOUR_SWITCHES, 'CHECK_HOLDER'], states: 80772, verdict: 'violation' },
  { variant: 'hardened', pages: 4, lengths: [2, 1, 3], faults: FOUR, without: 'release-checks-holder', switches: [...FOUR_SWITCHES, 'REVOKE'], states: 90159, verdict: 'violation' },
];

const configOf = (c: Case): Config => ({
  ...configFrom({ pages: c.pages, prefillLimit: 2, requests: c.lengths.map((length) => ({ length })), variant: c.variant, faults: [...c.faults] }),
  ...(c.without === undefined ? {} : { without: [c.without] }),
});

const definesOf = (c: Case): Record<string, number> => {
  const defines: Record<string, number> = { PAGES: c.pages, LIMIT: 2, N: c.lengths.length, MAXLEN: Math.max(...c.lengths) };
  for (let i = 0; i < 7; i++) defines[`L${i}`] = c.lengths[i] ?? 0;
  for (const s of c.switches) defines[s] = 1;
  return defines;
};

const title = (c: Case): string => `${c.variant}${c.without === undefined ? '' : ` without ${c.without}`}, ${c.pages} pages, requests ${c.lengths.join(',')}, ${c.faults.join(',')}: ${c.states} states, ${c.verdict}`;

describe.skipIf(!spinAvailable())('SPIN on the hand-written owner-check model agrees with pagecheck (prefill limit 2)', () => {
  for (const c of CASES) {
    it(title(c), () => {
      expect(countsAndReadVerdicts(MODEL, configOf(c), definesOf(c))).toEqual({ spin: [c.states, c.verdict], mine: [c.states, c.verdict] });
    }, 60_000);
  }
});
