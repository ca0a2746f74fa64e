/**
 * Quint for real (issue 28, item 7): `quint run` of spec/quint/pagecheck.qnt finds the
 * leak and writes it as ITF, and `pagecheck replay` checks that trace against pagecheck's
 * own spec. Three Quint runs: `run` with and without `--mbt`, and `test`; 2 to 3 s of CPU each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentConfig } from '../../spec/index.ts';
import { explain, replayItf, ReplayError } from '../../trace/index.ts';
import { pagecheck } from '../support/cli.ts';
import { quint, readItf, runSpec, SEED, SPEC, type Itf, type QuintRun } from './quint.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-quint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const withMbt = join(dir, 'leak.itf.json');
const withoutMbt = join(dir, 'leak-plain.itf.json');
const ofTest = join(dir, 'test_minimalLeakTest_0.itf.json');
let runs: { readonly mbt: QuintRun; readonly plain: QuintRun; readonly test: QuintRun };

// A generous bound: three Quint start-ups on a busy machine; nothing here measures time.
beforeAll(async () => {
  const test = await quint(['test', '--backend', 'typescript', '--seed', SEED, '--out-itf', join(dir, 'test_{test}_{seq}.itf.json'), SPEC]);
  runs = { mbt: await runSpec(withMbt, true), plain: await runSpec(withoutMbt, false), test };
}, 180_000);

const ACTIONS = ['init', 'allocate', 'prefill', 'handoff', 'decode', 'free', 'allocate', 'stub', 'handoff', 'decode'];
const LEAK = "Isolation violated after 9 steps: B read page 1, which holds A's data written at step 2.";

/** The error replaying `json` under `config` throws. */
function refusal(json: unknown, config = incidentConfig('buggy')): ReplayError {
  try {
    replayItf(json, { config });
  } catch (e) {
    if (e instanceof ReplayError) return e;
    throw e;
  }
  throw new Error('the trace replayed');
}

describe('quint run on the Quint spec', () => {
  it('finds the Isolation violation and writes it as ITF, in Quint\'s own shapes', () => {
    expect(runs.mbt.code).toBe(1);
    expect(runs.mbt.out).toContain('[violation] Found an issue');
    expect(runs.mbt.err).toContain('Invariant violated');
    const itf = readItf(withMbt);
    expect(itf['#meta']).toMatchObject({ format: 'ITF', status: 'violation', source: expect.stringContaining('pagecheck.qnt') });
    expect(itf.vars).toEqual(['holder', 'data', 'phase', 'table', 'read', 'mbt::actionTaken', 'mbt::nondetPicks']);
    expect(itf.states.map((s) => s['mbt::actionTaken'])).toEqual(ACTIONS);
    const last = itf.states[9]!;
    expect(last['mbt::nondetPicks']).toEqual({ r: { tag: 'Some', value: 'B' } });
    expect(last['data']).toEqual({ '#map': [[{ '#bigint': '0' }, 'B'], [{ '#bigint': '1' }, 'A'], [{ '#bigint': '2' }, '']] });
    expect(last['read']).toEqual({ '#map': [['A', { '#set': ['A'] }], ['B', { '#set': ['A', 'B'] }]] });
    expect(last['phase']).toEqual({ '#map': [['A', { tag: 'Freed', value: { '#tup': [] } }], ['B', { tag: 'Decoded', value: { '#tup': [] } }]] });
  });

  it('without --mbt, writes the same states, without the actions', () => {
    expect(runs.plain.code).toBe(1);
    const plain = readItf(withoutMbt);
    expect(plain.vars).toEqual(['holder', 'data', 'phase', 'table', 'read']);
    const strip = (s: Record<string, unknown>) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('mbt::')));
    expect(plain.states).toEqual(readItf(withMbt).states.map(strip));
  });
});

describe('pagecheck replay of what Quint wrote', () => {
  it('fits pagecheck\'s spec and leaks: B read A\'s data at step 9', () => {
    const result = replayItf(readItf(withMbt), { config: incidentConfig('buggy') });
    expect(result).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
    if (result.outcome !== 'violation') return;
    expect(explain(result.model, result.trace, 'Isolation').headline).toEqual(["B read page 1, which holds A's data written at step 2."]);
  });

  it('finds the actions from the states of a trace without them', () => {
    const named = replayItf(readItf(withMbt), { config: incidentConfig('buggy') });
    const found = replayItf(readItf(withoutMbt), { config: incidentConfig('buggy') });
    expect(found).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
    expect(found.trace.steps.map((s) => s.action)).toEqual(named.trace.steps.map((s) => s.action));
  });

  it('reads the trace of the spec\'s own test (quint test --out-itf), which names no action, to the same leak', () => {
    expect(runs.test.code).toBe(0);
    expect(runs.test.out).toContain('ok minimalLeakTest passed');
    const itf = readItf(ofTest);
    expect([itf['#meta']['status'], itf.vars, itf.states.length]).toEqual(['passed', ['holder', 'data', 'phase', 'table', 'read'], 10]);
    const result = replayItf(itf, { config: incidentConfig('buggy') });
    expect(result).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
    expect(result.trace.steps.map((s) => s.action.kind)).toEqual(ACTIONS.slice(1));
  });

  it('from the command line, given the model flags: exit 1, the leak in words', async () => {
    const { code, out } = await pagecheck('replay', withMbt, '--pages', '3', '--prefill-limit', '2', '--requests', '2,3');
    expect(code).toBe(1);
    expect(out.split('\n')[0]).toBe(LEAK);
    expect(out).toContain(`replay: every step of ${withMbt} fits the spec; Isolation is violated at step 9`);
  });

  it('under length-fix the same trace no longer fits: B is refused where Quint\'s stub wrote', () => {
    // The variables are compared in the order the trace lists them: data comes before phase.
    expect(refusal(readItf(withMbt), incidentConfig('length-fix')).message).toBe('step 7: recorded data[0] is "B" but the spec gives "A"');
    expect(refusal(readItf(withoutMbt), incidentConfig('length-fix')).message).toBe(
      'step 7: no action of the spec leads to the recorded state (it names none: no mbt::actionTaken); enabled: stub(B)',
    );
  });

  it('refuses an edited state, naming the variable and the key', () => {
    const edited: Itf = readItf(withMbt);
    (edited.states[7]!['data'] as { '#map': unknown[][] })['#map'][1]![1] = 'B';
    expect(refusal(edited).message).toBe('step 7: recorded data[1] is "B" but the spec gives "A"');
  });

  it('reads qualified names, and refuses a variable the spec does not have', () => {
    const qualified: Itf = readItf(withMbt);
    const rename = (s: Record<string, unknown>) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k.startsWith('mbt::') || k === '#meta' ? k : `incident::pagecheck::${k}`, v]));
    qualified.vars = qualified.vars.map((v) => (v.startsWith('mbt::') ? v : `incident::pagecheck::${v}`));
    qualified.states = qualified.states.map(rename);
    expect(replayItf(qualified, { config: incidentConfig('buggy') })).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
    const extra: Itf = readItf(withMbt);
    extra.vars = ['freeList', ...extra.vars];
    expect(refusal(extra).message).toMatch(/^vars is \["freeList",.*: \["freeList"\] is neither pagecheck's variables \["pages","requests"\] nor some of the Quint spec's \["holder","data","phase","table","read"\], each once$/);
  });
});
