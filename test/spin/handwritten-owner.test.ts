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
import type { Fault } from '../../spec/index.ts';
import { spinAvailable } from '../../spin/run.ts';
import { countsAndReadVerdicts, switchedConfig, switchedDefines, switchedTitle, type SwitchedCase } from './handwritten-kit.ts';

const MODEL = fileURLToPath(new URL('../../spin/handwritten/owner-check.pml', import.meta.url));

/** The hardened benchmark's faults: each of hardened's two mechanisms matters under them. */
const FOUR: readonly Fault[] = ['silent-stub', 'early-free', 'stale-free', 'torn-write'];
const FOUR_SWITCHES = ['SILENT_STUB', 'EARLY_FREE', 'STALE_FREE', 'TORN'];

/** The cases. The model's -D switches are the faults' (SILENT_STUB, EARLY_FREE, STALE_FREE, TORN) and hardened's (HARDENED, or REVOKE or CHECK_HOLDER alone). */
const CASES: readonly SwitchedCase[] = [
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

describe.skipIf(!spinAvailable())('SPIN on the hand-written owner-check model agrees with pagecheck (prefill limit 2)', () => {
  for (const c of CASES) {
    it(switchedTitle(c), () => {
      expect(countsAndReadVerdicts(MODEL, switchedConfig(c), switchedDefines(c, 7))).toEqual({ spin: [c.states, c.verdict], mine: [c.states, c.verdict] });
    }, 60_000);
  }
});
