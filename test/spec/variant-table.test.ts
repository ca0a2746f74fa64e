/**
 * spec/behaviour.ts's VARIANT_BEHAVIOUR as the data the package exports: each variant's
 * mechanisms are mechanisms of spec/hardening.ts, in MECHANISMS's order, and the switches
 * that hasMechanism and mechanismsOf derive are exactly the table's list. test/spec/
 * behaviour.test.ts asks the functions only, which cannot see an entry that is not a
 * mechanism: npm run mutation's seed-28 sample found `buggy`'s empty list made
 * ["Stryker was here"] checked by no test of test/spec.
 */
import { describe, expect, it } from 'vitest';
import { MECHANISMS, mechanismsOf, VARIANT_BEHAVIOUR, VARIANTS } from '../../spec/index.ts';

describe('VARIANT_BEHAVIOUR, the exported table', () => {
  it('has no mechanism in buggy, length-fix and owner-check, and every one in hardened', () => {
    expect(Object.fromEntries(VARIANTS.map((v) => [v, VARIANT_BEHAVIOUR[v].mechanisms.length]))).toEqual({ buggy: 0, 'length-fix': 0, 'owner-check': 0, hardened: MECHANISMS.length });
    expect(VARIANT_BEHAVIOUR.hardened.mechanisms).toEqual(MECHANISMS);
  });

  it.each(VARIANTS.map((v) => [v]))('%s: its list is mechanisms in their documented order, the ones mechanismsOf switches on', (variant) => {
    const list = VARIANT_BEHAVIOUR[variant].mechanisms;
    const at = list.map((m) => (MECHANISMS as readonly string[]).indexOf(m));
    expect(at.every((i, k) => i >= 0 && (k === 0 || i > at[k - 1]!))).toBe(true);
    const on = Object.entries(mechanismsOf(variant)).flatMap(([m, yes]) => (yes ? [m] : []));
    expect(on).toEqual([...list]);
  });
});
