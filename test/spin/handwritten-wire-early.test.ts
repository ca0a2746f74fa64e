/**
 * The SPIN cross-check of faults `premature-success` and `aux-torn` (issue 24, items 1, 6
 * and 7): SPIN on two Promela models written by hand as a SPIN user would
 * (spin/handwritten/early-success.pml: a process per request, its table, its landed
 * content and tag parts and what it read as locals, the early commit a handoff not guarded
 * by the parts; spin/handwritten/aux-torn.pml: the metadata slot's holder, room and payload
 * as globals, their landings d_steps; early-success.pml with -DAUX: both at once, and with
 * the switches of silent-stub, early-free and stale-free docs/WIRE.md's "Both on"
 * configuration itself), not generated from the spec, finds exactly pagecheck's distinct
 * states (no symmetry, whole space, assertions off) under `hardened`, where the
 * configuration holds by `commit-counts-landed` and `room-lands-last`, under `hardened`
 * without each mechanism (the removal tests' counterparts), and under the variants that
 * leak. Both tools then agree on the verdict of the reads: the models assert that every
 * read is the request's own data for its position, which is `Isolation` and `Integrity`
 * together (pagecheck's other invariants, such as `ExclusiveHold`, are not asserted).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../spec/index.ts';
import { spinAvailable } from '../../spin/run.ts';
import { countsAndReadVerdicts, switchedConfig, switchedDefines, switchedTitle, type SwitchedCase } from './handwritten-kit.ts';

const EARLY = fileURLToPath(new URL('../../spin/handwritten/early-success.pml', import.meta.url));
const AUX = fileURLToPath(new URL('../../spin/handwritten/aux-torn.pml', import.meta.url));

const TORN: readonly Fault[] = ['torn-write', 'premature-success'];
const BOTH: readonly Fault[] = ['torn-write', 'premature-success', 'aux-torn'];

/** The cases of both models. Their -D switches are the variant's (OWNER: tags and decode's check; hardened's mechanisms ROOM_LAST, REVOKE, CHECK_HOLDER, and commit-counts-landed as the absence of PREMATURE), and the faults' (PREMATURE, AUX, SILENT_STUB, EARLY_FREE, STALE_FREE). */
/** early-success.pml: hardened commits on its own count of landed parts (no PREMATURE); the others on P's Success. */
const EARLY_CASES: readonly SwitchedCase[] = [
  { variant: 'hardened', pages: 2, lengths: [1, 1], faults: TORN, switches: ['OWNER'], states: 161, verdict: 'holds' },
  { variant: 'hardened', pages: 3, lengths: [2, 1], faults: TORN, switches: ['OWNER'], states: 251, verdict: 'holds' },
  { variant: 'hardened', pages: 3, lengths: [2, 1], faults: TORN, without: 'commit-counts-landed', switches: ['OWNER', 'PREMATURE'], states: 4188, verdict: 'violation' },
  { variant: 'length-fix', pages: 3, lengths: [2, 1], faults: ['torn-write'], switches: [], states: 111, verdict: 'holds' },
  { variant: 'length-fix', pages: 3, lengths: [2, 1], faults: TORN, switches: ['PREMATURE'], states: 768, verdict: 'violation' },
  { variant: 'length-fix', pages: 3, lengths: [2, 3], faults: TORN, switches: ['PREMATURE'], states: 62, verdict: 'violation' },
  { variant: 'owner-check', pages: 2, lengths: [1, 1], faults: TORN, switches: ['OWNER', 'PREMATURE'], states: 1972, verdict: 'violation' },
];

/** aux-torn.pml (writes land whole): hardened lands the room after the payload (ROOM_LAST); the others in either order. */
const AUX_CASES: readonly SwitchedCase[] = [
  { variant: 'hardened', pages: 2, lengths: [1, 1], faults: ['aux-torn'], switches: ['OWNER', 'ROOM_LAST'], states: 71, verdict: 'holds' },
  { variant: 'hardened', pages: 4, lengths: [2, 1, 1], faults: ['aux-torn'], switches: ['OWNER', 'ROOM_LAST'], states: 915, verdict: 'holds' },
  { variant: 'hardened', pages: 2, lengths: [1, 1], faults: ['aux-torn'], without: 'room-lands-last', switches: ['OWNER'], states: 199, verdict: 'violation' },
  { variant: 'length-fix', pages: 2, lengths: [1, 1], faults: ['aux-torn'], switches: [], states: 199, verdict: 'violation' },
  { variant: 'length-fix', pages: 3, lengths: [2, 3], faults: ['aux-torn'], switches: [], states: 30, verdict: 'violation' },
  { variant: 'owner-check', pages: 4, lengths: [2, 1, 1], faults: ['aux-torn'], switches: ['OWNER'], states: 5325, verdict: 'violation' },
];

/** early-success.pml with -DAUX: both faults on, and hardened with both mechanisms, or without one. */
const BOTH_CASES: readonly SwitchedCase[] = [
  { variant: 'hardened', pages: 3, lengths: [2, 1], faults: BOTH, switches: ['OWNER', 'AUX', 'ROOM_LAST'], states: 236, verdict: 'holds' },
  { variant: 'hardened', pages: 3, lengths: [2, 3], faults: BOTH, switches: ['OWNER', 'AUX', 'ROOM_LAST'], states: 69, verdict: 'holds' },
  { variant: 'hardened', pages: 4, lengths: [2, 1, 1], faults: BOTH, switches: ['OWNER', 'AUX', 'ROOM_LAST'], states: 2839, verdict: 'holds' },
  { variant: 'hardened', pages: 3, lengths: [2, 1], faults: BOTH, without: 'commit-counts-landed', switches: ['OWNER', 'AUX', 'ROOM_LAST', 'PREMATURE'], states: 5004, verdict: 'violation' },
  { variant: 'hardened', pages: 3, lengths: [2, 1], faults: BOTH, without: 'room-lands-last', switches: ['OWNER', 'AUX'], states: 595, verdict: 'violation' },
  { variant: 'owner-check', pages: 2, lengths: [1, 1], faults: BOTH, switches: ['OWNER', 'AUX', 'PREMATURE'], states: 7322, verdict: 'violation' },
];

/** docs/WIRE.md's "Both on": silent-stub, early-free and stale-free with both faults, each mechanism of hardened's that they need a switch (or PREMATURE's absence). */
const SIX: readonly Fault[] = ['silent-stub', 'early-free', 'stale-free', ...BOTH];
const SIX_FAULTS = ['AUX', 'SILENT_STUB', 'EARLY_FREE', 'STALE_FREE'];
const HARDENED = ['OWNER', 'ROOM_LAST', 'REVOKE', 'CHECK_HOLDER'];
const SIX_CASES: readonly SwitchedCase[] = [
  { variant: 'hardened', pages: 3, lengths: [2, 3], faults: SIX, switches: [...HARDENED, ...SIX_FAULTS], states: 1536, verdict: 'holds' },
  { variant: 'hardened', pages: 3, lengths: [2, 3], faults: SIX, without: 'commit-counts-landed', switches: [...HARDENED, ...SIX_FAULTS, 'PREMATURE'], states: 4802, verdict: 'violation' },
  { variant: 'hardened', pages: 3, lengths: [2, 3], faults: SIX, without: 'room-lands-last', switches: [...HARDENED.filter((s) => s !== 'ROOM_LAST'), ...SIX_FAULTS], states: 2264, verdict: 'violation' },
  { variant: 'hardened', pages: 3, lengths: [2, 3], faults: SIX, without: 'revoke-writer', switches: [...HARDENED.filter((s) => s !== 'REVOKE'), ...SIX_FAULTS], states: 1884, verdict: 'violation' },
  // A's stale release frees B's pages under it, but with two requests nobody takes them: no bad read (ExclusiveHold, Conservation, NoUseAfterFree and ReadsOwnPages break, which the model does not assert).
  { variant: 'hardened', pages: 3, lengths: [2, 3], faults: SIX, without: 'release-checks-holder', switches: [...HARDENED.filter((s) => s !== 'CHECK_HOLDER'), ...SIX_FAULTS], states: 1873, verdict: 'holds' },
  { variant: 'owner-check', pages: 3, lengths: [2, 3], faults: SIX, switches: ['OWNER', ...SIX_FAULTS, 'PREMATURE'], states: 10086, verdict: 'violation' },
  { variant: 'buggy', pages: 3, lengths: [2, 3], faults: SIX, switches: [...SIX_FAULTS, 'PREMATURE'], states: 3448, verdict: 'violation' },
  // length-fix refuses B whatever silent-stub says: no SILENT_STUB.
  { variant: 'length-fix', pages: 3, lengths: [2, 3], faults: SIX, switches: ['AUX', 'EARLY_FREE', 'STALE_FREE', 'PREMATURE'], states: 397, verdict: 'violation' },
];

for (const [name, model, cases] of [['early-success', EARLY, EARLY_CASES], ['aux-torn', AUX, AUX_CASES], ['early-success -DAUX (both faults)', EARLY, BOTH_CASES], ['early-success, the six faults of "Both on"', EARLY, SIX_CASES]] as const) {
  describe.skipIf(!spinAvailable())(`SPIN on the hand-written ${name} model agrees with pagecheck (prefill limit 2)`, () => {
    for (const c of cases) {
      it(switchedTitle(c), () => {
        expect(countsAndReadVerdicts(model, switchedConfig(c), switchedDefines(c, 3))).toEqual({ spin: [c.states, c.verdict], mine: [c.states, c.verdict] });
      }, 60_000);
    }
  });
}
