/**
 * The last step of `simulate`'s shortening (issue 26, item 5): the walk, shortened by
 * dropping whole requests and then actions (`checker/shrink.ts`), names a few requests;
 * the sub-configuration of just those requests is often small enough to check
 * exhaustively, and its shortest counterexample for the same invariant is then the
 * shortest among those requests, which delta debugging alone need not reach. It is taken
 * when it is shorter and, replayed in the whole configuration (where the other requests
 * stay new), breaks the invariant there too: the requests left out hold no page and take
 * no action, so they change nothing the trace does.
 */
import * as Either from 'effect/Either';
import { check, DEADLOCK, type SimulationResult, type SimulatedViolation } from '../checker/index.ts';
import { checkedModel } from '../binding/checked-model.ts';
import { actionLabel, allActions, compile, decodeConfig, DEFAULT_INVARIANTS, LIMITS, parseAction, propertyNamed, run, type Action, type Config, type Model, type Trace } from '../spec/index.ts';

/** States the exhaustive check of a sub-configuration may store: "when that fits". */
export const SUBCONFIG_STATES = 200_000;

/** The configuration of `config` made of only the requests named `names` (in their order), or `undefined` when it is not one (a prefix length left without its requests is dropped). */
export function subConfiguration(config: Config, names: ReadonlySet<string>): Config | undefined {
  const requests = config.requests.filter((q) => names.has(q.name));
  const prefixes = new Set(requests.flatMap((q) => (q.prefix === undefined ? [] : [q.prefix])));
  const prefixPages = Object.fromEntries(Object.entries(config.prefixPages ?? {}).filter(([name]) => prefixes.has(name)));
  const { prefixPages: _dropped, ...rest } = config;
  const decoded = decodeConfig({ ...rest, requests, ...(Object.keys(prefixPages).length === 0 ? {} : { prefixPages }) });
  return Either.isRight(decoded) ? decoded.right : undefined;
}

/** The shortest trace of the sub-configuration of `trace`'s requests that breaks `invariant`, as actions of `m`, when it fits the budget and is one in `m` too; else `undefined`. */
function exhaustiveShortest(m: Model, trace: Trace, invariant: string): Action[] | undefined {
  const names = new Set(trace.steps.map((s) => m.config.requests[s.action.r]!.name));
  const sub = subConfiguration(m.config, names);
  if (sub === undefined) return undefined;
  const sm = compile(sub);
  if (allActions(sm).length > LIMITS.maxActions) return undefined;
  const deadlock = invariant === DEADLOCK;
  const property = propertyNamed(invariant);
  if (!deadlock && property === undefined) return undefined;
  const r = check(checkedModel(sm), { invariants: deadlock ? [] : [property!], deadlock, maxStates: SUBCONFIG_STATES, por: true });
  const found = r.violations.find((v) => v.invariant === invariant);
  if (found === undefined) return undefined;
  const actions = found.trace.steps.map((s) => parseAction(m, actionLabel(sm, s.action)));
  if (actions.some((a) => a === undefined)) return undefined;
  return actions as Action[];
}

/** Whether `actions`, run in `m` from its initial state, end in a state that breaks `invariant` (a deadlock: nothing enabled, not every request finished). */
function breaks(m: Model, actions: readonly Action[], invariant: string): Trace | undefined {
  const replayed = run(m, actions);
  if ('notEnabled' in replayed) return undefined;
  const last = replayed.trace.steps.at(-1)?.state ?? replayed.trace.initial;
  if (invariant === DEADLOCK) {
    const model = checkedModel(m);
    const stuck = model.actions.every((_, i) => model.nextState(last, i) === undefined) && !model.isLegitimateEnd!(last);
    return stuck ? replayed.trace : undefined;
  }
  const p = propertyNamed(invariant) ?? DEFAULT_INVARIANTS.find((q) => q.name === invariant);
  return p !== undefined && !p.holds(m, last) ? replayed.trace : undefined;
}

/** Each violation with the sub-configuration's shortest trace where that is shorter and holds in `m` (see the file's comment). */
export function minimizeViolations(m: Model, result: SimulationResult<Action>): SimulationResult<Action> {
  const violations: SimulatedViolation<Action>[] = result.violations.map((v) => {
    const shortest = exhaustiveShortest(m, v.trace, v.invariant);
    if (shortest === undefined || shortest.length >= v.trace.steps.length) return v;
    const trace = breaks(m, shortest, v.invariant);
    return trace === undefined ? v : { ...v, trace };
  });
  return { ...result, violations };
}
