/**
 * Turns a path of stored action numbers into a genuine execution. Without symmetry the
 * path already is one. With symmetry each stored action was taken in a canonical state,
 * not in the state the execution is really in; so the canonical chain is replayed beside
 * the real one, and at each step the real execution takes the first enabled action whose
 * successor has the same canonical form as the chain's next state. Either way the result
 * is re-run from the initial state through the model's own `nextState`.
 */
import { describeAction, enabledActions, type Checkable } from './model.ts';
import type { Trace, TraceStep } from './types.ts';

/** The execution that the stored `path` (action numbers from initial state `start`) stands for. */
export function replayPath<A>(model: Checkable<A>, canonical: boolean, start: Uint8Array, path: readonly number[]): Trace<A> {
  const actions = canonical && model.canonicalize !== undefined ? realActions(model, start, path) : path;
  return runActions(model, start, actions);
}

/** Runs action numbers from `start`, copying every state; throws when one is not enabled (a stored path always replays). */
export function runActions<A>(model: Checkable<A>, start: Uint8Array, actions: readonly number[]): Trace<A> {
  const steps: TraceStep<A>[] = [];
  let s = start.slice();
  for (const [k, i] of actions.entries()) {
    const t = model.nextState(s, i);
    if (t === undefined) throw new Error(`checker: stored path does not replay: step ${k + 1}, ${describeAction(model, i)} not enabled`);
    s = t.slice();
    steps.push({ action: actionAt(model, i), state: s });
  }
  return { initial: start.slice(), steps };
}

/** The real actions whose states are, step by step, in the orbits of the canonical chain. */
function realActions<A>(model: Checkable<A>, start: Uint8Array, path: readonly number[]): number[] {
  const canon = (s: Uint8Array): Uint8Array => model.canonicalize!(s).slice();
  let chain = canon(start);
  let real = start.slice();
  const enabled: number[] = [];
  const out: number[] = [];
  for (const i of path) {
    const next = model.nextState(chain, i);
    if (next === undefined) throw new Error(`checker: stored action ${describeAction(model, i)} is not enabled in its canonical state`);
    chain = canon(next);
    enabledActions(model, real, enabled);
    let taken = -1;
    for (const b of enabled) {
      const t = model.nextState(real, b);
      if (t !== undefined && equalBytes(canon(t), chain)) {
        taken = b;
        real = t.slice();
        break;
      }
    }
    if (taken < 0) throw new Error('checker: no real action matches the canonical chain');
    out.push(taken);
  }
  return out;
}

/** Action number `i` of `model`; a stored path's numbers are always in range. */
function actionAt<A>(model: Checkable<A>, i: number): A {
  if (i < 0 || i >= model.actions.length) throw new Error(`checker: no action number ${i}`);
  return model.actions[i]!;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
