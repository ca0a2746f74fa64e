/**
 * The fast path of the log decoder (conformance/fast-decode.ts) against Schema's: on random
 * lines, valid and not, whatever the fast path accepts Schema accepts into the same object,
 * key for key; whatever Schema refuses the fast path leaves to it. Schema's side is
 * `decodeBySchema`, not `decodeLine` (which takes the fast path first, and would compare
 * the fast path with itself).
 */
import fc from 'fast-check';
import { Either } from 'effect';
import { describe, expect, it } from 'vitest';
import { fastAgreesWithSchema } from './fast-agreement.ts';
import { EVENT_KINDS } from '../../conformance/index.ts';
import { decodeBySchema } from '../../conformance/events.ts';
import { fastDecode } from '../../conformance/fast-decode.ts';

/** A value of any of the shapes a field may take or miss. */
const value = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: -2, max: 20 }),
  fc.double({ noNaN: false }),
  fc.constantFrom('P', 'D', 'handoff', 'finish', '', 'x'),
  fc.string({ maxLength: 4 }),
  fc.array(fc.oneof(fc.integer({ min: -1, max: 9 }), fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 })), fc.constant([1, 2, 3]), fc.constant('3')), { maxLength: 4 }),
  fc.constant(null),
  fc.constant(1e400),
  fc.constant(2 ** 24),
);

/** A random event object: a kind (known or not) and any of the fields, valid or not. */
const line = fc.record({
  kind: fc.constantFrom(...EVENT_KINDS.filter((k) => k !== 'config'), 'alloc', 7),
  id: fc.oneof(fc.constantFrom('A', 'r12'), fc.string({ maxLength: 3 }), fc.constant('x'.repeat(257)), fc.constant(3)),
  t: value,
  side: value,
  pages: value,
  length: value,
  tokens: value,
  prefix: value,
  step: value,
  at: value,
  extra: value,
});

describe('the fast decoder agrees with Schema', () => {
  it('20,000 random lines: accepted by the fast path only if by Schema too, into the same object', () => {
    const fast = fastAgreesWithSchema(line, 20_000, 25);
    // The fast path takes a share of the lines, not none of them.
    expect(fast).toBeGreaterThan(100);
  });

  it('the lines a log is made of take the fast path, key order and all', () => {
    for (const text of ['{"t":1.5,"side":"D","kind":"free","id":"r1","pages":[[1,3],7],"extra":1}', '{"kind":"decode","id":"A","step":2,"pages":[0]}', '{"kind":"arrive","id":"A","tokens":100,"prefix":"sys"}', '{"kind":"resume","id":"A","tokens":9,"pages":[1]}']) {
      const json = JSON.parse(text) as Record<string, unknown>;
      const slow = decodeBySchema(json);
      expect(Either.isRight(slow) && JSON.stringify(slow.right)).toBe(JSON.stringify(fastDecode(json)));
    }
    expect(fastDecode({ kind: 'allocate', id: 'A' })).toBeUndefined();
  });
});
