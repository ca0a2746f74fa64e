/**
 * The fast log decoder held to Schema's on random lines, written once for every test that
 * draws lines of its own (fast-decode.test.ts, and the slot and source-page fields'
 * tests): whatever the fast path accepts, Schema accepts into the same object, key for key.
 */
import fc from 'fast-check';
import { Either } from 'effect';
import { expect } from 'vitest';
import { decodeBySchema } from '../../conformance/events.ts';
import { fastDecode } from '../../conformance/fast-decode.ts';

/** Runs `numRuns` lines drawn from `line` (seed `seed`) through both decoders; the number the fast path took. */
export function fastAgreesWithSchema(line: fc.Arbitrary<Record<string, unknown>>, numRuns: number, seed: number): number {
  let fast = 0;
  fc.assert(
    fc.property(line, (raw) => {
      // As JSON has it: no undefined fields.
      const json = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
      const quick = fastDecode(json);
      if (quick === undefined) return;
      fast++;
      const slow = decodeBySchema(json);
      expect(Either.isRight(slow) && JSON.stringify(slow.right)).toBe(JSON.stringify(quick));
    }),
    { numRuns, seed },
  );
  return fast;
}
