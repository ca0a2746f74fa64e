/**
 * The two layouts replay reads (trace/itf-quint.ts), without running Quint: a trace in the
 * Quint spec's variables built from a pagecheck trace, a state that names no action, and
 * under allocator `any` the pages an `allocate` took, found from the Quint variables.
 */
import { describe, expect, it } from 'vitest';
import { compile, incidentConfig, parseAction, run, type Config, type Model, type Trace } from '../../spec/index.ts';
import { stateAt } from '../../trace/facts.ts';
import { encodeInts, formatItf, option, replayItf } from '../../trace/index.ts';
import { layoutOf, quintVars, QUINT_VARS } from '../../trace/itf-quint.ts';
import { minimalLeak, MINIMAL_LEAK } from '../trace/traces.ts';

/** A pagecheck trace as `quint run --mbt` would write it of the Quint spec: its five variables, its metadata, no configuration. */
function asQuint(m: Model, trace: Trace, mbt: boolean): { vars: string[]; states: Array<Record<string, unknown>>; '#meta': Record<string, unknown> } {
  const states = [0, ...trace.steps.map((_, i) => i + 1)].map((k) => {
    const a = trace.steps[k - 1]?.action;
    const meta = mbt ? { 'mbt::actionTaken': a?.kind ?? 'init', 'mbt::nondetPicks': { r: option(a === undefined ? undefined : m.config.requests[a.r]?.name) } } : {};
    return { '#meta': { index: k }, ...meta, ...encodeInts(quintVars(m, stateAt(trace, k))) };
  });
  return { '#meta': { format: 'ITF', source: 'pagecheck.qnt', status: 'violation' }, vars: [...QUINT_VARS, ...(mbt ? ['mbt::actionTaken', 'mbt::nondetPicks'] : [])], states };
}

describe('layouts', () => {
  it('tells pagecheck\'s variables from the Quint spec\'s, qualified or not, with the mbt:: metadata listed once or twice', () => {
    expect(layoutOf(['pages', 'requests', 'mbt::actionTaken', 'mbt::nondetPicks'])).toBe('pagecheck');
    expect(layoutOf(['read', 'mbt::actionTaken', 'mbt::nondetPicks', 'mbt::actionTaken', 'mbt::nondetPicks'])).toBe('quint');
    expect(layoutOf(['a::b::holder', 'a::b::data'])).toBe('quint');
    expect(layoutOf([])).toMatch(/^it is neither/);
    expect(layoutOf(['holder', 'holder'])).toMatch(/^it is neither/);
    expect(layoutOf(['pages', 'holder'])).toMatch(/^\["pages"\] is neither/);
  });

  it('a Quint-layout trace of the minimal leak replays, with its actions named or found', () => {
    const { m, trace } = minimalLeak();
    for (const mbt of [true, false]) {
      const result = replayItf(asQuint(m, trace, mbt), { config: incidentConfig('buggy') });
      expect(result).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
      expect(result.trace.steps.map((s) => s.action)).toEqual(trace.steps.map((s) => s.action));
    }
  });

  it('pagecheck\'s own --itf trace without its mbt:: metadata replays too, the actions found from the states', () => {
    const { m, trace } = minimalLeak();
    const itf = JSON.parse(formatItf(m, trace, 'Isolation')) as { vars: string[]; states: Array<Record<string, unknown>> };
    itf.vars = ['pages', 'requests'];
    itf.states = itf.states.map((s) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('mbt::'))));
    const result = replayItf(itf);
    expect(result).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
    expect(result.trace.steps.map((s) => s.action)).toEqual(trace.steps.map((s) => s.action));
  });

  it('under allocator any, a named allocate takes the pages the recorded state says', () => {
    const config: Config = { ...incidentConfig('buggy'), allocator: 'any' };
    const m = compile(config);
    const labels = MINIMAL_LEAK.split(' ').map((a) => (a === 'allocate(A)' ? 'allocate(A: 2 0)' : a === 'allocate(B)' ? 'allocate(B: 1 0 2)' : a));
    const ran = run(m, labels.map((a) => parseAction(m, a)!));
    if (!('trace' in ran)) throw new Error('the actions did not run');
    const trace = ran.trace;
    const result = replayItf(asQuint(m, trace, true), { config });
    expect(result).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
    expect(result.trace.steps.map((s) => s.action.pages)).toEqual(trace.steps.map((s) => s.action.pages));
    expect(result.trace.steps[5]?.action.pages).toEqual([1, 0, 2]);
  });
});
