import { describe, expect, it } from 'vitest';
import { formatItf, replayItf, ReplayError, type ReplayResult } from '../../trace/index.ts';
import { minimalLeak, ownerCheck, sample, staleFree } from './traces.ts';
import { ACTION_KINDS, incidentConfig, INVARIANTS } from '../../spec/index.ts';

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

  // Fault double-free: A is freed twice (Conservation and NoDuplicateFree break at step 6),
  // C and B are then both handed page 0, and B reads C's data (Isolation, step 12).
  const doubleFree = () =>
    sample(
      { pages: 3, prefillLimit: 2, requests: [{ name: 'A', length: 2 }, { name: 'B', length: 2 }, { name: 'C', length: 1 }], variant: 'buggy', faults: ['double-free'] },
      'allocate(A) prefill(A) handoff(A) decode(A) free(A) free(A) allocate(C) allocate(B) prefill(B) prefill(C) handoff(B) decode(B)',
    );

  it('checks the invariants the trace lists as checked: a search of Isolation alone replays though others break first', () => {
    const { m, trace } = doubleFree();
    const only = JSON.parse(formatItf(m, trace, 'Isolation', ['Isolation']));
    expect(replayItf(only)).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 12 });
    // Listed as checked, the earlier breaks are what the trace shows first.
    const every = JSON.parse(formatItf(m, trace, 'Isolation'));
    expect(refusal(every).message).toBe('#meta.invariant says Isolation is violated, but the trace first violates Conservation, NoDuplicateFree, at step 6');
    // Without the list (a trace written before it), the claim is what the trace was asked about.
    delete (only['#meta'] as Record<string, unknown>)['invariants'];
    expect(replayItf(only)).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 12 });
  });

  it('refuses a #meta.invariants that names an unknown invariant or leaves out the claim', () => {
    const { m, trace } = doubleFree();
    expect(refusal(JSON.parse(formatItf(m, trace, 'Isolation', ['Isolation', 'Safety']))).message).toBe(
      `#meta.invariants[1] is "Safety", which is not an invariant of the spec (${INVARIANTS.map((p) => p.name).join(', ')})`,
    );
    expect(refusal(JSON.parse(formatItf(m, trace, 'Isolation', ['Conservation']))).message).toBe(
      '#meta.invariant says Isolation is violated, but #meta.invariants, the invariants checked, does not list it (["Conservation"])',
    );
    const listed = JSON.parse(formatItf(m, trace, 'Isolation', ['Isolation']));
    (listed['#meta'] as Record<string, unknown>)['invariants'] = 'Isolation';
    expect(refusal(listed).message).toBe('#meta.invariants: expected a list of invariant names, got "Isolation"');
  });

  it('still refuses a claim the trace does not show among the invariants checked', () => {
    const { m, trace } = doubleFree();
    const cut = JSON.parse(formatItf(m, trace, 'Isolation', ['Isolation']));
    cut.states.pop();
    expect(refusal(cut).message).toBe('#meta.invariant says Isolation is violated, but no state of the replayed trace violates an invariant');
  });

  it('replays a deadlock: a property of the last state, checked beside the invariants listed', () => {
    const config = { ...incidentConfig('buggy'), pages: 2, requests: [{ name: 'A', length: 2, prefix: 'sys' }, { name: 'B', length: 2 }] };
    const { m, trace } = sample(config, 'allocate(A) prefill(A) handoff(A) decode(A) insert(A) free(A)');
    const json = JSON.parse(formatItf(m, trace, 'Deadlock', ['Isolation', 'ExclusiveHold']));
    expect(replayItf(json)).toMatchObject({ outcome: 'violation', invariant: 'Deadlock', step: 6 });
    json.states.pop();
    expect(refusal(json).message).toBe('#meta.invariant says Deadlock is violated, but no state of the replayed trace violates an invariant');
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
      `step 2: mbt::actionTaken is "explode"; expected one of ${ACTION_KINDS.join(', ')}`,
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
    expect(refusal(badConfig).message).toBe('#meta.config.pages: expected a number of pages: a whole number from 1 to 65535, got "x"');
    const empty = leakJson();
    empty.states = [];
    expect(refusal(empty).message).toBe('states: expected at least the initial state, got []');
    const first = leakJson();
    first.states[0]!['mbt::actionTaken'] = 'allocate';
    expect(refusal(first).message).toBe('state 0: mbt::actionTaken is "allocate"; the first state of a trace is "init"');
  });
});
