import { describe, expect, it } from 'vitest';
import { incidentConfig } from '../../spec/index.ts';
import { formatItf, toItf, ITF_DESCRIPTION } from '../../trace/index.ts';
import { minimalLeak, prefixPoison } from './traces.ts';

describe('ITF', () => {
  const { m, trace } = minimalLeak();
  const itf = toItf(m, trace, 'Isolation');

  it('carries the format, the source, the invariant and the full configuration', () => {
    expect(itf['#meta']).toMatchObject({
      format: 'ITF',
      'format-description': ITF_DESCRIPTION,
      source: 'pagecheck',
      invariant: 'Isolation',
      explanation: ["B read page 1, which holds A's data written at step 2."],
      config: incidentConfig('buggy'),
    });
    expect(itf.vars).toEqual(['pages', 'requests', 'mbt::actionTaken', 'mbt::nondetPicks']);
  });

  it('lists the invariants checked: every one unless the writer names those its search checked', () => {
    expect(itf['#meta'].invariants).toEqual(['Isolation', 'ExclusiveHold', 'Conservation', 'ReadsOwnPages', 'NoDuplicateFree', 'NoUseAfterFree', 'Integrity']);
    expect(toItf(m, trace, 'Isolation', ['Isolation'])['#meta'].invariants).toEqual(['Isolation']);
  });

  it('describes a one-step trace in the singular', () => {
    const one = { initial: trace.initial, steps: trace.steps.slice(0, 1) };
    expect(toItf(m, one)['#meta'].description).toBe('a trace of 1 step: allocate(A); check it again with: pagecheck replay FILE');
  });

  it('has state 0 and one state per step, each with its action and parameter', () => {
    expect(itf.states).toHaveLength(10);
    expect(itf.states.map((s) => s['#meta'].index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(itf.states.map((s) => s['mbt::actionTaken'])).toEqual([
      'init', 'allocate', 'prefill', 'handoff', 'decode', 'free', 'allocate', 'stub', 'handoff', 'decode',
    ]);
    // As Quint writes nondeterministic picks: an Option per name, None where the action picks nothing.
    expect(itf.states[0]?.['mbt::nondetPicks']).toEqual({ r: { tag: 'None', value: { '#tup': [] } } });
    expect(itf.states[9]?.['mbt::nondetPicks']).toEqual({ r: { tag: 'Some', value: 'B' } });
  });

  it('records pages as records and requests as an ITF map, reads as an ITF set, nobody as "", integers as #bigint', () => {
    const last = itf.states[9];
    const int = (n: number) => ({ '#bigint': String(n) });
    expect(last?.pages).toEqual([
      { id: int(0), holder: 'B', data: 'B', tag: '', position: int(0) },
      { id: int(1), holder: 'B', data: 'A', tag: '', position: int(1) },
      { id: int(2), holder: 'B', data: '', tag: '', position: int(-1) },
    ]);
    expect(last?.requests).toEqual({
      '#map': [
        ['A', { phase: 'freed', table: [], read: { '#set': ['A'] }, hit: false, inserted: false, readUnheld: false, steps: int(1), partsLanded: { data: int(0), tag: int(0) } }],
        ['B', { phase: 'decoded', table: [int(0), int(1), int(2)], read: { '#set': ['A', 'B'] }, hit: false, inserted: false, readUnheld: false, steps: int(1), partsLanded: { data: int(0), tag: int(0) } }],
      ],
    });
  });

  it('uses the words of view for the prefix cache and prefix data', () => {
    const p = prefixPoison();
    const last = toItf(p.m, p.trace, 'Isolation').states.at(-1);
    expect(last?.pages[0]).toEqual({ id: { '#bigint': '0' }, holder: 'cache:sys', data: 'A', tag: '', position: { '#bigint': '0' } });
  });

  it('has invariant null and no explanation without a violation', () => {
    const plain = toItf(m, trace);
    expect(plain['#meta'].invariant).toBeNull();
    expect(plain['#meta'].explanation).toEqual([]);
  });

  it('is JSON text whose first lines carry the signature writeTraceFiles looks for', () => {
    const text = formatItf(m, trace, 'Isolation');
    expect(JSON.parse(text)).toEqual(itf);
    expect(text.slice(0, 200)).toContain('"source": "pagecheck"');
    expect(text.endsWith('}\n')).toBe(true);
  });
});
