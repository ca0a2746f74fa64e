/**
 * Replay of a saved ITF trace against the spec: rebuild the model from the trace's own
 * configuration, take every recorded action, check that it is enabled and yields exactly
 * the recorded state, then check on every state the invariants the trace lists as checked
 * (`#meta.invariants`; without the list, the one it claims, or every one when it claims
 * none), so that a trace in which an unchecked invariant breaks first replays as the
 * search found it. A trace that no longer
 * fits, because it was edited by hand or the spec changed, is refused with the step and
 * the difference named. The states may record pagecheck's own variables (`--itf`) or
 * those of the Quint spec, as `quint run --out-itf` writes them (itf-quint.ts); a state
 * that does not name its action (`mbt::actionTaken`) takes the first action of the spec
 * that yields it. Exported for users' test suites: a counterexample saved with
 * `--itf` becomes a regression test with `expect(replayItf(json)).toMatchObject(...)`.
 */
import * as Either from 'effect/Either';
import * as Schema from 'effect/Schema';
import {
  ACTION_KINDS,
  ConfigError,
  allActions,
  allFinished,
  enabled,
  INVARIANTS,
  actionLabel,
  compile,
  configFrom,
  initial,
  prefixLength,
  schemaIssues,
  step,
  view,
  type Action,
  type Config,
  type Model,
  type Property,
  type State,
  type Trace,
  type TraceStep,
} from '../spec/index.ts';
import { DEADLOCK } from '../checker/types.ts';
import { TraceInputError } from './errors.ts';
import { itfVars } from './itf.ts';
import { layoutOf, ownFields, quintExpected, unqualified, type ItfLayout } from './itf-quint.ts';
import { decodeInts, unwrapOption } from './itf-values.ts';
import { itfDiff, showValue } from './itf-diff.ts';

/** What a replay found: the first invariant violated and where, or none. */
export type ReplayResult =
  | {
      readonly outcome: 'violation';
      /** The model rebuilt from the trace's configuration. */
      readonly model: Model;
      /** The replayed trace, up to the first state that violates an invariant. */
      readonly trace: Trace;
      /** The invariant violated. */
      readonly invariant: string;
      /** The first state (0..n) that violates it. */
      readonly step: number;
    }
  | {
      readonly outcome: 'ok';
      /** The model rebuilt from the trace's configuration. */
      readonly model: Model;
      /** The replayed trace. */
      readonly trace: Trace;
    };

/** A trace that cannot be replayed: malformed, or no longer what the spec does. Exits 2 from the command line. */
export class ReplayError extends TraceInputError {
  /** The step at fault (0 for the initial state), or `null` when the trace as a whole is malformed. */
  readonly step: number | null;
  constructor(message: string, step: number | null) {
    super(message);
    this.name = 'ReplayError';
    this.step = step;
  }
}

const expected = (what: string) => ({ message: (issue: { readonly actual: unknown }) => `expected ${what}, got ${showValue(issue.actual)}` });

const StateSchema = Schema.Struct({
  '#meta': Schema.Struct({ index: Schema.Number.annotations(expected('a step index')) }).annotations(expected('an object {"index": k}')),
  // Without them (Quint's run without --mbt, or Apalache) replay finds the action from the states.
  'mbt::actionTaken': Schema.optionalWith(Schema.String.annotations(expected('an action kind such as "decode"')), { exact: true }),
  'mbt::nondetPicks': Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations(expected('an object such as {"r": "B"}')), { exact: true }),
}, Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations(expected('a state object'));

const ItfSchema = Schema.Struct({
  '#meta': Schema.Struct({
    format: Schema.Literal('ITF').annotations(expected('"ITF"')),
    config: Schema.Unknown,
    invariant: Schema.optionalWith(Schema.NullOr(Schema.String).annotations(expected('an invariant name or null')), { exact: true }),
    invariants: Schema.optionalWith(Schema.Array(Schema.String.annotations(expected('an invariant name'))).annotations(expected('a list of invariant names')), { exact: true }),
  }).annotations(expected('an object with "format" and "config"')),
  vars: Schema.Array(Schema.String.annotations(expected('a variable name'))).annotations(expected('a list of variable names')),
  states: Schema.Array(StateSchema)
    .annotations(expected('a list of states'))
    .pipe(Schema.minItems(1, { message: () => 'expected at least the initial state, got []' })),
}).annotations(expected('an ITF trace object with "#meta", "vars" and "states"'));

/** How to replay a trace that does not carry its own configuration (one written by Quint, say). */
export interface ReplayOptions {
  /** The model configuration, used when the trace has no `#meta.config`. */
  readonly config?: Config;
}

/** The model of the trace's `#meta.config`, or of the configuration the caller gives for a trace without one. */
function modelOf(config: unknown, given: Config | undefined): Model {
  if (config === undefined && given !== undefined) return compile(given);
  if (config === undefined) {
    throw new ReplayError('#meta.config is missing: give the model configuration (--config FILE or the model flags), as for a trace written by Quint', null);
  }
  try {
    return compile(configFrom(config));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const lines = e.issues.map((i) => `#meta.config${i.path === '' ? '' : `.${i.path}`}: ${i.message}`);
    throw new ReplayError(lines.join('\n'), null);
  }
}

/** The recorded variables of a state: every field but `#meta` and the `mbt::` metadata. */
function recordedVars(raw: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof raw === 'object' && raw !== null) {
    // Integers may be written as Quint writes them ({"#bigint": "1"}) or as plain numbers.
    for (const [k, v] of Object.entries(raw)) if (k !== '#meta' && !k.startsWith('mbt::')) out[k] = decodeInts(v);
  }
  return out;
}

/** The pages a recorded `allocate` took for request `name`: its recorded table, less the `shared` prefix pages on a prefix hit. */
function pagesTaken(raw: unknown, name: string, shared: number): number[] {
  const requests = (raw as { requests?: { '#map'?: unknown } } | undefined)?.requests?.['#map'];
  if (!Array.isArray(requests)) return [];
  const entry = requests.find((e: unknown) => Array.isArray(e) && e[0] === name) as [string, { table?: unknown; hit?: unknown }] | undefined;
  const table = decodeInts(entry?.[1].table);
  if (!Array.isArray(table) || !table.every((p) => typeof p === 'number')) return [];
  return entry?.[1].hit === true ? table.slice(shared) : [...table];
}

/** Under allocator any, the pages a named `allocate` took are its choice: pagecheck's recorded table says which; in the Quint layout, the choice whose state agrees. */
function choiceTaken(m: Model, reading: Reading, k: number, raw: unknown, s: State, named: Action): Action {
  if (reading.layout === 'pagecheck') return { ...named, pages: pagesTaken(raw, m.config.requests[named.r]?.name ?? '', prefixLength(m, named.r)) };
  return inferred(m, reading, k, raw, s, allActions(m).filter((a) => a.kind === 'allocate' && a.r === named.r), actionLabel(m, named));
}

/** The action a state records, checked against the model. */
function actionOf(m: Model, k: number, kind: string, picks: Readonly<Record<string, unknown>>): Action {
  const known = ACTION_KINDS.find((a) => a === kind);
  if (known === undefined) {
    throw new ReplayError(`step ${k}: mbt::actionTaken is ${showValue(kind)}; expected one of ${ACTION_KINDS.join(', ')}`, k);
  }
  // Quint writes a pick as an Option variant, Some("B"); older traces write "B".
  const name = unwrapOption(picks['r']);
  const r = m.config.requests.findIndex((q) => q.name === name);
  if (r < 0) {
    const names = m.config.requests.map((q) => q.name).join(', ');
    throw new ReplayError(`step ${k}: mbt::nondetPicks.r is ${showValue(name)}, which names no request of the configuration (${names})`, k);
  }
  return { kind: known, r };
}

/** How the recorded states are read: pagecheck's own variables, or the Quint spec's that `vars` names. */
interface Reading {
  /** Which variables the states record. */
  readonly layout: ItfLayout;
  /** The variables recorded, unqualified and without the `mbt::` metadata. */
  readonly names: readonly string[];
}

/** The first difference between a recorded state and the spec's, in words; undefined when they agree. */
function difference(m: Model, reading: Reading, raw: unknown, s: State): string | undefined {
  if (reading.layout === 'pagecheck') return itfDiff(recordedVars(raw), itfVars(m, s));
  const recorded = Object.fromEntries(ownFields(raw).map(([k, v]) => [k, decodeInts(v)]));
  return itfDiff(recorded, quintExpected(m, s, reading.names));
}

/** Checks one recorded state against the spec's. */
function compare(m: Model, reading: Reading, k: number, raw: unknown, s: State): void {
  const diff = difference(m, reading, raw, s);
  if (diff !== undefined) throw new ReplayError(`${k === 0 ? 'state 0 (init)' : `step ${k}`}: ${diff}`, k);
}

/** How to read states with variables `vars`; refuses a `vars` that is neither pagecheck's nor some of the Quint spec's. */
function readingOf(vars: readonly string[]): Reading {
  const layout = layoutOf(vars);
  if (layout !== 'pagecheck' && layout !== 'quint') throw new ReplayError(`vars is ${showValue(vars)}: ${layout}`, null);
  return { layout, names: vars.map(unqualified).filter((v) => !v.startsWith('mbt::')) };
}

/**
 * The action that leads from `s` to the recorded state `raw`, for a state that does not
 * name it (no `mbt::actionTaken`): the first, in the spec's order, whose next state agrees
 * with every recorded variable.
 */
function inferred(m: Model, reading: Reading, k: number, raw: unknown, s: State, among: readonly Action[] = allActions(m), named?: string): Action {
  const found = among.find((a) => {
    const next = step(m, s, a);
    return next !== undefined && difference(m, reading, raw, next) === undefined;
  });
  if (found !== undefined) return found;
  const open = allActions(m).filter((a) => step(m, s, a) !== undefined).map((a) => actionLabel(m, a));
  const what = named === undefined ? 'no action of the spec leads to the recorded state (it names none: no mbt::actionTaken)' : `no choice of pages for ${named} leads to the recorded state`;
  throw new ReplayError(`step ${k}: ${what}; enabled: ${open.join(', ') || 'none'}`, k);
}

/** Refuses a state whose `#meta.index` is not its position in the list. */
function checkIndices(states: ReadonlyArray<{ readonly '#meta': { readonly index: number } }>): void {
  states.forEach((st, k) => {
    if (st['#meta'].index !== k) throw new ReplayError(`state ${k}: #meta.index is ${showValue(st['#meta'].index)}; expected ${k}, its position in states`, k);
  });
}

/** Refuses a `#meta.invariant` that names no invariant of the spec (nor Deadlock). */
function checkClaim(claimed: string | null): void {
  if (claimed !== null && claimed !== DEADLOCK && !INVARIANTS.some((p) => p.name === claimed)) {
    throw new ReplayError(`#meta.invariant is ${showValue(claimed)}, which is not an invariant of the spec (${INVARIANTS.map((p) => p.name).join(', ')})`, null);
  }
}

/** The invariants to check on every state: those `#meta.invariants` lists, else the one claimed, else every one; refuses an unknown name or a claim the list leaves out. */
function invariantsChecked(listed: readonly string[] | undefined, claimed: string | null): readonly Property[] {
  if (listed === undefined) return claimed === null ? INVARIANTS : INVARIANTS.filter((p) => p.name === claimed);
  listed.forEach((name, i) => {
    if (!INVARIANTS.some((p) => p.name === name)) {
      throw new ReplayError(`#meta.invariants[${i}] is ${showValue(name)}, which is not an invariant of the spec (${INVARIANTS.map((p) => p.name).join(', ')})`, null);
    }
  });
  if (claimed !== null && claimed !== DEADLOCK && !listed.includes(claimed)) {
    throw new ReplayError(`#meta.invariant says ${claimed} is violated, but #meta.invariants, the invariants checked, does not list it (${showValue(listed)})`, null);
  }
  return INVARIANTS.filter((p) => listed.includes(p.name));
}

/** Replays a parsed ITF trace; throws {@link ReplayError} when it is malformed or no longer fits the spec. */
export function replayItf(json: unknown, options: ReplayOptions = {}): ReplayResult {
  const decoded = Schema.decodeUnknownEither(ItfSchema, { errors: 'all' })(json);
  if (Either.isLeft(decoded)) {
    throw new ReplayError(schemaIssues(decoded.left).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('\n'), null);
  }
  const itf = decoded.right;
  const m = modelOf(itf['#meta'].config, options.config);
  const reading = readingOf(itf.vars);
  checkIndices(itf.states);
  const claimed = itf['#meta'].invariant ?? null;
  checkClaim(claimed);
  const checked = invariantsChecked(itf['#meta'].invariants, claimed);
  const [first, ...rest] = itf.states;
  if (first === undefined) throw new ReplayError('states: expected at least the initial state, got []', null);
  if (first['mbt::actionTaken'] !== undefined && first['mbt::actionTaken'] !== 'init') {
    throw new ReplayError(`state 0: mbt::actionTaken is ${showValue(first['mbt::actionTaken'])}; the first state of a trace is "init"`, 0);
  }
  const init = initial(m);
  compare(m, reading, 0, first, init);
  const steps: TraceStep[] = [];
  let s = init;
  rest.forEach((recorded, i) => {
    const k = i + 1;
    const kind = recorded['mbt::actionTaken'];
    const named = kind === undefined ? inferred(m, reading, k, recorded, s) : actionOf(m, k, kind, recorded['mbt::nondetPicks'] ?? {});
    const action = m.allocator === 'any' && named.kind === 'allocate' && named.pages === undefined ? choiceTaken(m, reading, k, recorded, s, named) : named;
    const next = step(m, s, action);
    if (next === undefined) {
      const req = view(m, s).requests[action.r];
      throw new ReplayError(`step ${k}: ${actionLabel(m, action)} is not enabled (${req?.name ?? '?'} is ${req?.phase ?? '?'})`, k);
    }
    compare(m, reading, k, recorded, next);
    steps.push({ action, state: next });
    s = next;
  });
  const trace: Trace = { initial: init, steps };
  for (let k = 0; k <= steps.length; k++) {
    const state = k === 0 ? init : (steps[k - 1]?.state ?? init);
    const broken = checked.filter((p) => !p.holds(m, state));
    // Several invariants can break in one state; the one the trace was saved for comes first.
    const chosen = broken.find((p) => p.name === claimed) ?? broken[0];
    if (chosen === undefined) continue;
    if (claimed !== null && chosen.name !== claimed) {
      throw new ReplayError(`#meta.invariant says ${claimed} is violated, but the trace first violates ${broken.map((p) => p.name).join(', ')}, at step ${k}`, k);
    }
    return { outcome: 'violation', model: m, trace: { initial: init, steps: steps.slice(0, k) }, invariant: chosen.name, step: k };
  }
  // A deadlock is a property of the last state: nothing is enabled there, yet some request has not finished.
  const last = steps.at(-1)?.state ?? init;
  if (claimed === DEADLOCK && enabled(m, last).length === 0 && !allFinished(m, last)) {
    return { outcome: 'violation', model: m, trace, invariant: 'Deadlock', step: steps.length };
  }
  if (claimed !== null) {
    throw new ReplayError(`#meta.invariant says ${claimed} is violated, but no state of the replayed trace violates an invariant`, null);
  }
  return { outcome: 'ok', model: m, trace };
}
