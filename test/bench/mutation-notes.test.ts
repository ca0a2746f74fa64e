/**
 * npm run mutation's notes on survivors (bench/mutation/notes.ts): two mutants on one line
 * with the same mutator and replacement but different original text get different keys,
 * and a note written under the old key (without the original) still applies.
 */
import { describe, expect, it } from 'vitest';
import { keyOf, legacyKeyOf, noteOf } from '../../bench/mutation/notes.ts';

// conformance/step-tier.ts:101 in the seed-40 run: two ConditionalExpression mutants made true on one line.
const whole = { at: 'conformance/step-tier.ts:101:66', mutator: 'ConditionalExpression', original: 'pool.hostReused?.[group] === 1', replacement: 'true' };
const part = { at: 'conformance/step-tier.ts:101:10', mutator: 'ConditionalExpression', original: 'group >= 0', replacement: 'true' };

describe('notes on survivors', () => {
  it('the key names the line (not the column), the mutator, the original and the replacement, so mutants on one line differ', () => {
    expect(keyOf(whole)).toBe('conformance/step-tier.ts:101 ConditionalExpression pool.hostReused?.[group] === 1 => true');
    expect(keyOf(part)).not.toBe(keyOf(whole));
    expect(keyOf({ ...part, at: 'conformance/step-tier.ts:101:12' })).toBe(keyOf(part));
    // A multi-line original stays on one line.
    expect(keyOf({ ...part, original: 'a &&\n    b' })).toBe('conformance/step-tier.ts:101 ConditionalExpression a && b => true');
  });

  it('each mutant gets its own note; a note under the old key applies when there is none under the new one', () => {
    const notes = { [keyOf(whole)]: 'killed by a test', [keyOf(part)]: 'equivalent', [legacyKeyOf(whole)]: 'shared' };
    expect([noteOf(notes, whole), noteOf(notes, part)]).toEqual(['killed by a test', 'equivalent']);
    expect(legacyKeyOf(whole)).toBe('conformance/step-tier.ts:101 ConditionalExpression true');
    expect(noteOf({ [legacyKeyOf(whole)]: 'shared' }, part)).toBe('shared');
    expect(noteOf({ [keyOf(whole)]: 7 }, whole)).toBeUndefined();
    expect(noteOf({}, whole)).toBeUndefined();
  });
});
