import { describe, expect, it } from 'vitest';
import { compile, incidentConfig, Isolation, INVARIANTS, parseAction, run, step, view, lastState } from '../../spec/index.ts';
import { MINIMAL_LEAK, runLabels } from './helpers.ts';

describe('the incident on 3 pages, prefill limit 2, A (2 pages) then B (3 pages)', () => {
  it('buggy: A is served and freed, B is stubbed and its decode reads A’s data: Isolation fails after exactly 9 actions', () => {
    const { m, trace, last } = runLabels(incidentConfig('buggy'), MINIMAL_LEAK);
    const failing = [trace.initial, ...trace.steps.map((s) => s.state)].map((s) => Isolation.holds(m, s));
    expect(failing).toEqual([true, true, true, true, true, true, true, true, true, false]);
    const v = view(m, last);
    expect(v.requests[1]).toMatchObject({ name: 'B', phase: 'decoded', table: [0, 1, 2], read: ['A', 'B'] });
    // Freed pages keep their data: page 1 still holds A's data, page 0 was rewritten by the stub only.
    expect(v.pages.map((p) => [p.holder, p.data])).toEqual([
      ['B', 'B'],
      ['B', 'A'],
      ['B', null],
    ]);
  });

  it('buggy: the other invariants hold all along: the leak breaks isolation (and so integrity) and nothing else', () => {
    const { m, trace } = runLabels(incidentConfig('buggy'), MINIMAL_LEAK);
    for (const inv of INVARIANTS.filter((p) => p.name !== 'Isolation' && p.name !== 'Integrity')) {
      expect(trace.steps.every((s) => inv.holds(m, s.state)), inv.name).toBe(true);
    }
    // Another user's data is garbage too: Integrity breaks at the same, last, step.
    const integrity = INVARIANTS.find((p) => p.name === 'Integrity')!;
    expect(trace.steps.map((s) => integrity.holds(m, s.state))).toEqual([true, true, true, true, true, true, true, true, false]);
  });

  it('length-fix: B is refused at stub, cannot be handed off, and nothing leaks', () => {
    const { m, last } = runLabels(incidentConfig('length-fix'), MINIMAL_LEAK.slice(0, 7));
    expect(view(m, last).requests[1]).toMatchObject({ phase: 'refused', read: [] });
    expect(view(m, last).pages.map((p) => p.data)).toEqual(['A', 'A', null]);
    const handoffB = parseAction(m, 'handoff(B)');
    expect(handoffB && step(m, last, handoffB)).toBeUndefined();
    const freed = runLabels(incidentConfig('length-fix'), [...MINIMAL_LEAK.slice(0, 7), 'free(B)']);
    expect(Isolation.holds(freed.m, freed.last)).toBe(true);
  });

  it('owner-check: B’s decode fails loudly and reads nothing', () => {
    const { m, last } = runLabels(incidentConfig('owner-check'), MINIMAL_LEAK);
    const b = view(m, last).requests[1];
    expect(b).toMatchObject({ phase: 'failed', read: [] });
    expect(view(m, last).pages.map((p) => p.tag)).toEqual(['B', null, null]);
    expect(Isolation.holds(m, last)).toBe(true);
  });

  it('the spec decides enabledness: B cannot be allocated while A holds its pages', () => {
    const m = compile(incidentConfig('buggy'));
    const result = run(m, ['allocate(A)', 'allocate(B)'].map((l) => parseAction(m, l)!));
    expect(result).toEqual({ notEnabled: { step: 2, action: 'allocate(B)' } });
    const ok = run(m, [parseAction(m, 'allocate(A)')!]);
    expect('trace' in ok && view(m, lastState(ok.trace)).requests[0]?.table).toEqual([0, 1]);
  });
});
