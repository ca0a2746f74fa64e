/**
 * The reduction's parts (binding/por.ts): which action kind is visible to which property
 * from which phase, and the ample set a reducer picks in a state built by hand. The
 * agreement with the plain search is por-agreement*.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { checkedModel } from '../../binding/index.ts';
import { visibleTo } from '../../binding/por.ts';
import { FOOTPRINTS } from '../../spec/footprint.ts';
import { PROPERTY_READS } from '../../spec/property-reads.ts';
import { actionLabel, allActions, configFrom, type Model, type State } from '../../spec/index.ts';
import { runLabels } from '../spec/helpers.ts';

describe('visibility', () => {
  it('a kind is visible to a property where it moves the phase across the sets it tells apart, sets a bit it reads or writes a variable it reads', () => {
    const R = PROPERTY_READS;
    expect(visibleTo(FOOTPRINTS.decode, 'handedOff', R['DecodeSucceeds'])).toBe(true);
    expect(visibleTo(FOOTPRINTS.decode, 'handedOff', R['ExclusiveHold'])).toBe(false);
    expect(visibleTo(FOOTPRINTS.handoff, 'written', R['OverLongStubbed'])).toBe(true);
    expect(visibleTo(FOOTPRINTS.handoff, 'written', R['Conservation'])).toBe(false);
    // prefill moves allocated to written or writing, live to live; from timedOut to landed or landing, dead to dead.
    expect(visibleTo(FOOTPRINTS.prefill, 'allocated', R['NoUseAfterFree'])).toBe(false);
    expect(visibleTo(FOOTPRINTS.prefill, 'timedOut', R['ExclusiveHold'])).toBe(false);
    expect(visibleTo(FOOTPRINTS.prefill, 'allocated', R['PageReused'])).toBe(true);
    expect(visibleTo(FOOTPRINTS.free, 'decoded', R['ExclusiveHold'])).toBe(true);
    expect(visibleTo(FOOTPRINTS.decode, 'decoding', R['ReadsOwnPages'])).toBe(false);
  });

  it('a monotone invariant is visible to nothing, a property that declares no reads to everything', () => {
    for (const fp of Object.values(FOOTPRINTS)) {
      for (const phase of Object.keys(fp.moves) as (keyof typeof fp.moves)[]) {
        expect(visibleTo(fp, phase, PROPERTY_READS['Isolation'])).toBe(false);
        expect(visibleTo(fp, phase, undefined)).toBe(true);
      }
    }
  });
});

describe('the reducer', () => {
  const config = configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2 }, { length: 2 }], variant: 'length-fix' });
  /** The labels of the actions a reducer keeps in `s`, with the properties open where `open` says. */
  const kept = (m: Model, s: State, open: (name: string) => boolean): string[] => {
    const model = checkedModel(m);
    const actions = allActions(m);
    const enabled = Uint8Array.from(actions.flatMap((_, i) => (model.nextState(s, i) === undefined ? [] : [i])));
    const keep = new Int32Array(actions.length);
    const n = model.reduction!.reducer(model.properties.map((p) => open(p.name))).ample(s, enabled, 0, enabled.length, keep);
    const picked = n === enabled.length ? [...enabled] : [...keep.subarray(0, n)].map((k) => enabled[k]!);
    return picked.map((i) => actionLabel(m, actions[i]!));
  };

  it("takes one request's step alone where its pages are its own and no open property sees it", () => {
    const { m, last } = runLabels(config, ['allocate(A)', 'prefill(A)', 'allocate(B)']);
    // A is written (handoff), B allocated (prefill): both local; A comes first.
    expect(kept(m, last, () => false)).toEqual(['handoff(A)']);
    // While DecodeSucceeds is open, handoff is not visible to it, and still alone.
    expect(kept(m, last, (name) => name === 'DecodeSucceeds')).toEqual(['handoff(A)']);
    // PageReused reads data, which B's prefill writes; handoff(A) is still invisible to it.
    expect(kept(m, last, (name) => name === 'PageReused')).toEqual(['handoff(A)']);
  });

  it('keeps every successor where each request that can act is visible or not local', () => {
    const { m, last } = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)']);
    // A decodes (visible to DecodeSucceeds while it is open), B prefills (writes data: visible to PageReused).
    expect(kept(m, last, (name) => name === 'DecodeSucceeds' || name === 'PageReused')).toEqual(['prefill(B)', 'decode(A)']);
    expect(kept(m, last, (name) => name === 'DecodeSucceeds')).toEqual(['prefill(B)']);
    // A new request allocates: a global action, never alone; with A decoded and freeable, nothing is reduced.
    const later = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)']);
    expect(kept(later.m, later.last, () => false)).toEqual(['allocate(B)', 'free(A)']);
  });

  it('a page of the table that another request can reach rules the request out', () => {
    // stale-free: A's old table names the page B now holds, so B's pages are not B's alone.
    const stale = configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 2 }, { length: 2 }], variant: 'length-fix', faults: ['stale-free'] });
    const { m, last } = runLabels(stale, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)']);
    expect(kept(m, last, () => false)).toEqual(['prefill(B)', 'free(A)']);
    // Without the fault the same state reduces to B's prefill.
    const clean = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)']);
    expect(kept(clean.m, clean.last, () => false)).toEqual(['prefill(B)']);
  });
});
