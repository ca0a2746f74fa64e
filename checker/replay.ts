/**
 * Turns a path of stored action indices into a genuine execution. Without symmetry the
 * path already is one. With symmetry each stored action was taken in a canonical state,
 * not in the state the execution is really in; so the canonical chain is replayed beside
 * the real one, and at each step the real execution takes the first enabled action whose
 * successor has the same canonical form as the chain's next state. Either way the result
 * is re-run from `initial` by the spec's own `run`.
 */
import { initial, run, type Action, type Model, type Trace } from '../spec/index.ts';
import type { Canonicalizer } from './symmetry.ts';
import type { ActionTable } from './transitions.ts';

/** The execution that the stored `path` (action indices from state 0) stands for. */
export function replayPath(m: Model, table: ActionTable, canon: Canonicalizer | undefined, path: readonly number[]): Trace {
  const actions = canon === undefined ? path.map((i) => actionAt(table, i)) : realActions(m, table, canon, path);
  const result = run(m, actions);
  if ('notEnabled' in result) {
    throw new Error(`checker: stored path does not replay: step ${result.notEnabled.step}, ${result.notEnabled.action} not enabled`);
  }
  return result.trace;
}

/** The real actions whose states are, step by step, in the orbits of the canonical chain. */
function realActions(m: Model, table: ActionTable, canon: Canonicalizer, path: readonly number[]): Action[] {
  let chain = canon.canonical(initial(m)).slice();
  let real = initial(m);
  const out: Action[] = [];
  for (const i of path) {
    const next = table.fns[i]!(m, chain, table.requests[i]!);
    if (next === undefined) throw new Error(`checker: stored action ${i} is not enabled in its canonical state`);
    chain = canon.canonical(next).slice();
    let taken = -1;
    for (let b = 0; b < table.actions.length && taken < 0; b++) {
      const t = table.fns[b]!(m, real, table.requests[b]!);
      if (t !== undefined && equalBytes(canon.canonical(t), chain)) {
        taken = b;
        real = t;
      }
    }
    if (taken < 0) throw new Error('checker: no real action matches the canonical chain');
    out.push(actionAt(table, taken));
  }
  return out;
}

function actionAt(table: ActionTable, i: number): Action {
  const a = table.actions[i];
  if (a === undefined) throw new Error(`checker: no action number ${i}`);
  return a;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
