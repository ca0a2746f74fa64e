/**
 * Quint reads pagecheck's ITF (issue 28, item 7). No command of Quint 0.33 takes an ITF
 * file as input (`run`, `test` and `verify` only write one), so what is tested is where
 * Quint does read ITF: its reader `ofItf`, the one it uses for the traces of Apalache and
 * of its Rust backend. It reads pagecheck's own `--itf` trace, Quint's writer gives back
 * the same states, and Quint's evaluator, in its REPL with spec/quint/pagecheck.qnt
 * loaded, takes the trace's actions on the Quint spec and finds pagecheck's states (seen
 * through the Quint spec's variables) at every step, and the same leak at step 9.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionLabel } from '../../spec/index.ts';
import { formatItf, replayItf } from '../../trace/index.ts';
import { minimalLeak } from '../trace/traces.ts';
import { quint, quintLibrary, readItf, runSpec, SPEC, type Itf } from './quint.ts';

const dir = mkdtempSync(join(tmpdir(), 'pagecheck-quint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const written = join(dir, 'quint.itf.json');

/** pagecheck's ITF of the minimal leak, as `check --itf` writes it. */
const pagecheckItf = (): Itf => {
  const { m, trace } = minimalLeak();
  return JSON.parse(formatItf(m, trace, 'Isolation')) as Itf;
};

// One Quint run, for a trace Quint wrote to compare shapes with; a generous bound, nothing here measures time.
beforeAll(async () => {
  expect((await runSpec(written, true)).code).toBe(1);
}, 120_000);

/** How an ITF value is built, ignoring what it holds: the ADR-015 forms, each JSON number or null flagged. */
function shape(x: unknown): unknown {
  if (x === null) return 'null';
  if (typeof x === 'number') return 'json number';
  if (typeof x !== 'object') return typeof x;
  if (Array.isArray(x)) return ['list', ...new Set(x.map((e) => JSON.stringify(shape(e))))];
  const keys = Object.keys(x).sort();
  const forms = ['#bigint', '#set', '#map', '#tup'];
  const form = keys.length === 1 && forms.includes(keys[0]!) ? keys[0]! : undefined;
  if (form === '#bigint') return '#bigint';
  if (form !== undefined) return [form, ...new Set(JSON.stringify((x as Record<string, unknown>)[form]).length > 2 ? ['entries'] : [])];
  return Object.fromEntries(keys.map((k) => [k, shape((x as Record<string, unknown>)[k])]));
}

/** The kinds of values a state holds anywhere in it, as Quint's reader made them. */
function kinds(ex: unknown, out = new Set<string>()): Set<string> {
  const e = ex as { kind: string; opcode?: string; args?: unknown[] };
  out.add(e.kind === 'app' ? (e.opcode ?? 'app') : e.kind);
  for (const a of e.args ?? []) kinds(a, out);
  return out;
}

describe("Quint's ITF reader on pagecheck's --itf trace", () => {
  it('reads every state, into the values of Quint: integers, records, lists, maps, sets and variants', () => {
    const { ofItf, expressionToString } = quintLibrary();
    const states = ofItf(pagecheckItf());
    expect(states).toHaveLength(10);
    expect([...kinds(states[9])].sort()).toEqual(['List', 'Map', 'Rec', 'Set', 'Tup', 'bool', 'int', 'str', 'variant']);
    const text = expressionToString(states[9]);
    expect(text).toContain('"mbt::nondetPicks", Rec("r", variant("Some", "B"))');
    expect(text).toContain('Tup("B", Rec("phase", "decoded", "table", List(0, 1, 2), "read", Set("A", "B")');
  });

  it("Quint's writer gives back pagecheck's states, and pagecheck replays what it wrote", () => {
    const { ofItf, toItf } = quintLibrary();
    const original = pagecheckItf();
    const back = toItf(original.vars, ofItf(original), true);
    expect(back.isRight()).toBe(true);
    const rewritten = back.value as Itf;
    expect(rewritten.states).toEqual(original.states);
    // Quint lists the mbt:: variables once more after the trace's own (it does so in its own traces too).
    expect(rewritten.vars).toEqual(['pages', 'requests', 'mbt::actionTaken', 'mbt::nondetPicks', 'mbt::actionTaken', 'mbt::nondetPicks']);
    const result = replayItf({ ...rewritten, '#meta': original['#meta'] });
    expect(result).toMatchObject({ outcome: 'violation', invariant: 'Isolation', step: 9 });
  });

  it('is built as a trace that Quint wrote is: the same ITF forms, integers as #bigint, no JSON number or null in a state', () => {
    const ours = pagecheckItf();
    const theirs = readItf(written);
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    expect(ours['#meta']).toMatchObject({ format: theirs['#meta']['format'], 'format-description': theirs['#meta']['format-description'] });
    const meta = (itf: Itf) => itf.states.map((s) => shape({ meta: s['#meta'], action: s['mbt::actionTaken'], picks: s['mbt::nondetPicks'] }));
    expect(meta(ours)).toEqual(meta(theirs));
    expect(ours.vars.slice(-2)).toEqual(theirs.vars.slice(-2));
    // A state's #meta is metadata, not a value: its index is a plain number in Quint's traces too.
    const flat = JSON.stringify(ours.states.map(({ '#meta': _, ...vars }) => shape(vars)));
    expect(flat).not.toContain('json number');
    expect(flat).not.toContain('null');
    expect(flat).toContain('#bigint');
  });
});

/** A pagecheck phase as the Quint spec's variant. */
const PHASES = 'Map("new" -> New, "allocated" -> Allocated, "written" -> Written, "handedOff" -> HandedOff, "decoded" -> Decoded, "freed" -> Freed)';

/** A REPL line: whether the Quint spec's variables are pagecheck's state `s`, seen through them. */
const sameState = (s: string): string =>
  [
    `holder == ${s}.pages.foldl(Map(), (acc, p) => acc.put(p.id, p.holder))`,
    `data == ${s}.pages.foldl(Map(), (acc, p) => acc.put(p.id, p.data))`,
    `phase == ${s}.requests.keys().mapBy(r => PAGECHECK_PHASE.get(${s}.requests.get(r).phase))`,
    `table == ${s}.requests.keys().mapBy(r => ${s}.requests.get(r).table)`,
    `read == ${s}.requests.keys().mapBy(r => ${s}.requests.get(r).read)`,
  ].join(' and ');

describe("Quint's evaluator on pagecheck's trace, read by Quint's reader", () => {
  it('takes every action on the Quint spec, reaches pagecheck\'s state each time, and finds Isolation broken at step 9 only', async () => {
    const { ofItf, expressionToString } = quintLibrary();
    const { m, trace } = minimalLeak();
    const itf = pagecheckItf();
    // The states without the mbt:: fields, whose names are not Quint record fields.
    const states = ofItf({ ...itf, states: itf.states.map((s) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('mbt::')))) });
    const lines = [`pure val PAGECHECK_PHASE = ${PHASES}`];
    states.forEach((state, k) => {
      const a = trace.steps[k - 1]?.action;
      lines.push(a === undefined ? 'init' : `${a.kind}("${m.config.requests[a.r]?.name}")`);
      lines.push(`{ val s = ${expressionToString(state)} (${sameState('s')}, Isolation) }`);
    });
    const { code, out, err } = await quint(['-q', '--backend', 'typescript', '-r', `${SPEC}::pagecheck`], `${lines.join('\n')}\n`);
    expect(err).toBe('');
    expect(code).toBe(0);
    // Per state: the action is enabled, the states agree, and Isolation holds (false at step 9 only).
    // A definition prints an empty line.
    const verdicts = out.split('\n').filter((line) => line !== '');
    const expected = states.flatMap((_, k) => ['true', `(true, ${k === 9 ? 'false' : 'true'})`]);
    expect(verdicts).toEqual(expected);
    expect(trace.steps.map((s) => actionLabel(m, s.action))[8]).toBe('decode(B)');
  }, 120_000);
});
