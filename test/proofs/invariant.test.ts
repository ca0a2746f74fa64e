import { describe, expect, it } from 'vitest';
import { compile, initial, matrixConfig, Ph, PHASES, setObserved, setTag, tagOf, type Model, type State } from '../../spec/index.ts';
import { failingParts, inductiveInvariant, LENGTH_FIX_INVARIANT, OWNER_CHECK_INVARIANT, typeOK } from '../../proofs/invariant.ts';
import { runLabels } from '../spec/helpers.ts';

/** A state of the matrix configuration after the given actions, and its model. */
function after(variant: 'owner-check' | 'length-fix', labels: string[]): { m: Model; s: State } {
  const { m, last } = runLabels(matrixConfig(variant, variant === 'length-fix' ? [] : ['silent-stub']), labels);
  return { m, s: last.slice() };
}

describe('the executable invariant', () => {
  it('holds initially, in both of its forms', () => {
    for (const variant of ['owner-check', 'length-fix'] as const) {
      const m = compile(matrixConfig(variant, []));
      expect(failingParts(m, initial(m))).toEqual([]);
    }
  }, 10_000);

  it('owner-check: TagNamesContent fails on a page whose tag names other content', () => {
    const { m, s } = after('owner-check', ['allocate(A)', 'prefill(A)']);
    expect(inductiveInvariant(m, s)).toBe(true);
    s[m.dataAt + 0] = 3; // page 0 now holds C's data, still tagged A
    expect(failingParts(m, s)).toEqual(['TagNamesContent']);
    expect(inductiveInvariant(m, s, 1)).toBe(true);
  }, 10_000);

  it('length-fix: each conjunct fails on a state made for it', () => {
    const { m, s: served } = after('length-fix', ['allocate(A)', 'prefill(A)', 'handoff(A)']);
    expect(inductiveInvariant(m, served)).toBe(true);
    const broken = (edit: (s: State) => void): string[] => {
      const s = served.slice();
      edit(s);
      return failingParts(m, s);
    };
    expect(broken((s) => (s[m.flagsAt + 1] = 1))).toEqual(['NewIsBlank']); // B new but flagged HIT
    expect(broken((s) => (s[m.phaseAt + 0] = Ph.timedOut))).toEqual(['NoLateWrite']); // A timed out
    expect(broken((s) => (s[m.holderAt + 0] = 0))).toEqual(['OwnPagesHeld']); // A's page 0 freed under it
    expect(broken((s) => (s[m.holderAt + 2] = 4))).toEqual(['CacheHoldsPrefix']); // page 2 cached for sys (label 4), holding nothing
    expect(broken((s) => (s[m.dataAt + 1] = 3))).toEqual(['WrittenHoldsOwn']); // A's page 1 overwritten by C
    expect(broken((s) => (s[m.tableAt[0] ?? 0] = 1))).toEqual(['DistinctSlots']); // A's table [1, 1]
    const { s: c } = after('length-fix', ['allocate(C)']);
    c[m.flagsAt + 2] = 1; // C claims a cache hit, but its first page is its own
    expect(failingParts(m, c)).toEqual(['SharedPageCached']);
    expect(LENGTH_FIX_INVARIANT.conjuncts.map((x) => x.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(OWNER_CHECK_INVARIANT.conjuncts.map((x) => x.name)).toEqual(['TagNamesContent']);
  }, 10_000);

  it('TypeOK rejects bytes out of their domains', () => {
    const { m, s } = after('length-fix', ['allocate(A)']);
    const junk = (edit: (t: State) => void): boolean => {
      const t = s.slice();
      edit(t);
      return typeOK(m, t);
    };
    expect(typeOK(m, s)).toBe(true);
    // Without the owner check the layout stores no tags (spec/layout.ts): writing one is an error, and every page reads as untagged.
    const tagged = s.slice();
    expect(() => setTag(m, tagged, 0, 1)).toThrow(/tag is absent under this configuration/);
    expect([tagOf(m, tagged, 0), [...tagged]]).toEqual([0, [...s]]);
    expect(junk((t) => (t[m.phaseAt] = PHASES.length))).toBe(false); // no such phase
    expect(junk((t) => (t[m.tableAt[1] ?? 0] = 0))).toBe(false); // a new request with a table
    expect(junk((t) => (t[m.tableAt[0] ?? 0] = 3))).toBe(false); // page 3 of 3
    expect(junk((t) => (t[m.flagsAt] = 1))).toBe(false); // a sharing flag on A, which has no prefix
    expect(junk((t) => setObserved(m, t, 0, 1 << 5))).toBe(false); // label 6 of 4
  }, 10_000);
});
