/**
 * The page-ownership spec as a model the checker can explore (`checker/model.ts`).
 * Everything is derived from the spec's own definitions: the actions from `allActions`,
 * the next state from `step`, the properties from `INVARIANTS` and `WITNESSES`, the
 * legitimate ends from `liveness.ts`, symmetry from the layout description in
 * `model.ts`. A new action kind, state variable or property registered in the spec is
 * checked with no change here or in `checker/`. The speed hooks, all in `fast`, are held
 * to these by the binding's tests; the search gives the same results without them.
 */
import type { Accelerator, Checkable, ModelProperty } from '../checker/model.ts';
import { allActions, type Action } from '../spec/actions.ts';
import { successorsFunction } from './expanders.ts';
import { allFinished } from '../spec/liveness.ts';
import type { Config } from '../spec/config.ts';
import { compile, type Model } from '../spec/model.ts';
import { conjunctionOf, fastFormOf } from './properties.ts';
import { fastHashedOf } from './successors.ts';
import { DEFAULT_INVARIANTS, INVARIANTS, WITNESSES } from '../spec/properties.ts';
import { initial, type State } from '../spec/state.ts';
import { createCanonicalizer } from './symmetry.ts';
import { reductionOf } from './por.ts';
import { step } from '../spec/transitions.ts';

/** The spec's properties for the checker: each bound to the model, witnesses marked with whether they apply. */
export function checkedProperties(m: Model): ModelProperty[] {
  return [
    // The search's hot loop uses the fast forms (binding/properties.ts), which a test holds to the readable ones.
    ...INVARIANTS.map((p): ModelProperty => ({ name: p.name, kind: 'always', byDefault: DEFAULT_INVARIANTS.includes(p), holds: fastFormOf(m, p) ?? ((s) => p.holds(m, s)) })),
    ...WITNESSES.map((p): ModelProperty => ({ name: p.name, kind: 'sometimes', applies: p.appliesTo(m), holds: (s) => p.holds(m, s) })),
  ];
}

/** The speed hooks of `m` (see `checker/model.ts`, `Accelerator`). */
export function acceleratorOf(m: Model): Accelerator {
  // The plainest configurations also give their successors fingerprint first (binding/successors.ts).
  const hashed = fastHashedOf(m);
  return {
    successors: successorsFunction(m),
    // Every expander copies its input once, with slice(), before it writes (expanders.ts).
    slicesOnce: true,
    conjunction: conjunctionOf(m),
    ...(hashed === undefined ? {} : { hashed }),
  };
}

/**
 * The compiled spec `m` as a {@link Checkable}. Legitimate ends are the states in which
 * every request has finished (freed, its late write landed, or released again); a state
 * where some request has not finished and nothing is enabled is a deadlock.
 */
export function checkedModel(m: Model): Checkable<Action> {
  const actions = allActions(m);
  const canon = createCanonicalizer(m);
  const properties = checkedProperties(m);
  // Partial-order reduction where it is sound (binding/por.ts); the search uses it only when asked (option por).
  const reduction = reductionOf(m, actions, properties);
  const model: Checkable<Action> = {
    stateBytes: m.size,
    initialStates: () => [initial(m)],
    actions,
    nextState: (s, i) => step(m, s, actionAt(actions, i)),
    properties,
    isLegitimateEnd: (s) => allFinished(m, s),
    fast: acceleratorOf(m),
    ...(reduction === undefined ? {} : { reduction }),
  };
  return canon === undefined ? model : { ...model, canonicalize: (s: State) => canon.canonical(s) };
}

/**
 * The model factory's entry point (`checker/model.ts`, `ModelFactory`): a configuration
 * as `configFrom` returned it (a worker's copy of one the main thread decoded), compiled
 * and wrapped. It is not decoded again: loading the decoder (effect's Schema) was most of
 * a worker's start-up.
 */
export function createModel(config: unknown): Checkable<Action> {
  return checkedModel(compile(config as Config));
}

function actionAt(actions: readonly Action[], i: number): Action {
  const a = actions[i];
  if (a === undefined) throw new Error(`spec: no action number ${i}`);
  return a;
}
