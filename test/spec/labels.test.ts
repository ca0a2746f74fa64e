import { describe, expect, it } from 'vitest';
import { bodyLabel, compile, configFrom, mayRead, mayReadAt, prefixLabel } from '../../spec/index.ts';

// A, B share prefix p; C has prefix q; D has none. mayRead had no test of its own (npm run mutation, seed 27: its four mutants at spec/labels.ts:43 had no coverage).
const m = compile(configFrom({ pages: 8, prefillLimit: 8, requests: [{ length: 2, prefix: 'p' }, { length: 2, prefix: 'p' }, { length: 2, prefix: 'q' }, { length: 1 }], variant: 'buggy', faults: [] }));
const [A, B, C, D] = [0, 1, 2, 3];

describe('the labels a request may read', () => {
  it('mayRead: its own data and its prefix, nobody else\'s data and no other prefix', () => {
    expect(mayRead(m, A, bodyLabel(A))).toBe(true);
    expect(mayRead(m, A, bodyLabel(B))).toBe(false);
    expect(mayRead(m, A, prefixLabel(m, m.group[A]!))).toBe(true);
    expect(mayRead(m, B, prefixLabel(m, m.group[A]!))).toBe(true);
    expect(mayRead(m, A, prefixLabel(m, m.group[C]!))).toBe(false);
    expect(mayRead(m, D, bodyLabel(D))).toBe(true);
    expect(mayRead(m, D, prefixLabel(m, m.group[A]!))).toBe(false);
    expect(mayRead(m, D, 0)).toBe(false);
  });

  it('mayReadAt: the prefix only at its own position, the request\'s data anywhere', () => {
    const p = prefixLabel(m, m.group[A]!);
    expect([0, 1].map((i) => mayReadAt(m, A, i, p))).toEqual([true, false]);
    expect([0, 1].map((i) => mayReadAt(m, A, i, bodyLabel(A)))).toEqual([true, true]);
    expect([0, 1].map((i) => mayReadAt(m, A, i, bodyLabel(B)))).toEqual([false, false]);
  });
});
