import { describe, expect, it } from 'vitest';
import { formatItf, replayItf, ReplayError, type ReplayResult } from '../../trace/index.ts';
import { minimalLeak, ownerCheck, staleFree } from './traces.ts';
import { INVARIANTS } from '../../spec/index.ts';

/** The minimal leak's ITF, parsed, as a user's tool would hold it. */
const leakJson = (): Record<string, unknown> & { states: Array<Record<string, unknown>> } => {
  const { m, trace } = minimalLeak();
  return JSON.parse(formatItf(m, trace, 'Isolation')) as Record<string, unknown> & { states: Array<Record<string, unknown>> };
};

/** The error replaying `json` throws. */
function refusal(json: unknown): ReplayError {
  try {
    replayItf(json);
  } catch (e) {
    if (e instanceof ReplayError) return e;
    throw e;
  }
  throw new Error('the trace replayed');
}

describe('replayItf', () => {
  it('replays the minimal leak to the same violation', () => {
    const result = replayItf(leakJson());
    expect(result).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
    const { m, trace } = minimalLeak();
    expect(result.trace.steps.map((s) => s.action)).toEqual(trace.steps.map((s) => s.action));
    expect(result.model.config).toEqual(m.config);
  });

  // How a user turns a counterexample into a regression test: save it with --itf, keep
  // the file, and pin what it shows. A change to the spec that loses the leak, moves it,
  // or changes any recorded state fails this test.
  it('turns a saved counterexample into a regression test', () => {
    const saved = JSON.stringify(leakJson());
    const result: ReplayResult = replayItf(JSON.parse(saved));
    expect(result.outcome).toBe('violation');
    if (result.outcome !== 'violation') return;
    expect([result.invariant, result.step, result.trace.steps.length]).toEqual(['Isolation', 9, 9]);
  });

  it('names the invariant the trace was saved for when several break at once', () => {
    const { m, trace } = staleFree();
    const json = JSON.parse(formatItf(m, trace, 'Conservation'));
    expect(replayItf(json)).toMatchObject({ outcome: 'violation', invariant: 'Conservation', step: 7 });
  });

  it('reports no violation for a trace that has none', () => {
    const { m, trace } = ownerCheck();
    const result = replayItf(JSON.parse(formatItf(m, trace)));
    expect(result.outcome).toBe('ok');
    expect(result.trace.steps).toHaveLength(15);
  });

  it('refuses changed data, naming the step, the field and both values', () => {
    const json = leakJson();
    (json.states[7] as { pages: Array<{ data: string }> }).pages[1]!.data = 'B';
    const e = refusal(json);
    expect(e.message).toBe('step 7: recorded pages[1].data is "B" but the spec gives "A"');
    expect(e.step).toBe(7);
  });

  it('refuses a removed step: the next action is not enabled', () => {
    const json = leakJson();
    json.states.splice(7, 1);
    // Renumbered, as an editor that knows the format would: the step itself is then refused.
    json.states.forEach((st, k) => (st['#meta'] = { index: k }));
    expect(refusal(json).message).toBe('step 7: handoff(B) is not enabled (B is allocated)');
  });

  it('refuses a tampered #meta.index', () => {
    const json = leakJson();
    json.states[3]!['#meta'] = { index: 5 };
    expect(refusal(json).message).toBe('state 3: #meta.index is 5; expected 3, its position in states');
    const removed = leakJson();
    removed.states.splice(7, 1);
    expect(refusal(removed).message).toBe('state 7: #meta.index is 8; expected 7, its position in states');
  });

  it('refuses a tampered #meta.invariant: unknown, or not the one the trace violates', () => {
    const unknown = leakJson();
    (unknown['#meta'] as Record<string, unknown>)['invariant'] = 'Safety';
    expect(refusal(unknown).message).toBe(`#meta.invariant is "Safety", which is not an invariant of the spec (${INVARIANTS.map((p) => p.name).join(', ')})`);
    const other = leakJson();
    (other['#meta'] as Record<string, unknown>)['invariant'] = 'Conservation';
    // B's last read is another user's page (Isolation) and a page nobody wrote (Integrity): both break at step 9.
    expect(refusal(other).message).toBe('#meta.invariant says Conservation is violated, but the trace first violates Isolation, Integrity, at step 9');
  });

  it('refuses a swapped action', () => {
    const json = leakJson();
    json.states[4]!['mbt::actionTaken'] = 'free';
    expect(refusal(json).message).toBe('step 4: free(A) is not enabled (A is handedOff)');
  });

  it('refuses a changed read set, compared as a set', () => {
    const json = leakJson();
    const requests = json.states[9]!['requests'] as { '#map': Array<[string, { read: { '#set': string[] } }]> };
    requests['#map'][1]![1].read['#set'] = ['B', 'A'];
    expect(replayItf(json).outcome).toBe('violation');
    requests['#map'][1]![1].read['#set'] = ['B'];
    expect(refusal(json).message).toBe('step 9: recorded requests[B].read is {"#set":["B"]} but the spec gives {"#set":["A","B"]}');
  });

  it('refuses a trace cut short of the violation it claims', () => {
    const json = leakJson();
    json.states.pop();
    expect(refusal(json).message).toBe('#meta.invariant says Isolation is violated, but no state of the replayed trace violates an invariant');
  });

  it('refuses unknown actions, requests and fields', () => {
    const unknownKind = leakJson();
    unknownKind.states[2]!['mbt::actionTaken'] = 'explode';
    expect(refusal(unknownKind).message).toBe(
      'step 2: mbt::actionTaken is "explode"; expected one of allocate, prefill, stub, handoff, decode, free, timeout, insert, evict, landData, landTag',
    );
    const unknownRequest = leakJson();
    unknownRequest.states[2]!['mbt::nondetPicks'] = { r: 'Z' };
    expect(refusal(unknownRequest).message).toBe('step 2: mbt::nondetPicks.r is "Z", which names no request of the configuration (A, B)');
    const extra = leakJson();
    extra.states[3]!['extra'] = 1;
    expect(refusal(extra).message).toBe('step 3: recorded state has a field extra that the spec does not have');
  });

  it('refuses a malformed file, naming the path and the value found', () => {
    expect(refusal(42).message).toBe('expected an ITF trace object with "#meta", "vars" and "states", got 42');
    const badKind = leakJson();
    badKind.states[3]!['mbt::actionTaken'] = 5;
    expect(refusal(badKind).message).toBe('states[3].mbt::actionTaken: expected an action kind such as "decode", got 5');
    const badConfig = leakJson();
    (badConfig['#meta'] as { config: { pages: unknown } }).config.pages = 'x';
    expect(refusal(badConfig).message).toBe('#meta.config.pages: expected a number of pages: a whole number from 1 to 4096, got "x"');
    const empty = leakJson();
    empty.states = [];
    expect(refusal(empty).message).toBe('states: expected at least the initial state, got []');
    const first = leakJson();
    first.states[0]!['mbt::actionTaken'] = 'allocate';
    expect(refusal(first).message).toBe('state 0: mbt::actionTaken is "allocate"; the first state of a trace is "init"');
  });
});
