/**
 * Shortening a counterexample against the model: delta debugging (Zeller's ddmin) over
 * the list of actions, then single drops until none helps. A candidate list is kept when
 * every action in it is enabled in turn from the initial state and it reaches a state
 * that breaks the same invariant (for `Deadlock`: ends where nothing is enabled and the
 * model has not legitimately ended); it is cut at the first such state. The result is
 * 1-minimal: dropping any single action loses the violation.
 */
import { enabledActions, type Checkable } from './model.ts';
import { DEADLOCK } from './types.ts';

/** The shortest list found of actions from `start` that still breaks `invariant`; `actions` must break it. */
export function shrinkActions<A>(model: Checkable<A>, start: Uint8Array, actions: readonly number[], invariant: string): number[] {
  const test = violationTest(model, start, invariant);
  let current = actions.slice(0, test(actions) ?? actions.length);
  let chunks = 2;
  // ddmin over complements: drop one of `chunks` slices at a time.
  while (current.length >= 2) {
    const size = Math.ceil(current.length / chunks);
    let reduced = false;
    for (let c = 0; c * size < current.length; c++) {
      const candidate = [...current.slice(0, c * size), ...current.slice((c + 1) * size)];
      const cut = test(candidate);
      if (cut === undefined) continue;
      current = candidate.slice(0, cut);
      chunks = Math.max(chunks - 1, 2);
      reduced = true;
      break;
    }
    if (reduced) continue;
    if (chunks >= current.length) break;
    chunks = Math.min(current.length, 2 * chunks);
  }
  // Single drops until none helps: 1-minimal.
  for (let i = 0; i < current.length; ) {
    const candidate = [...current.slice(0, i), ...current.slice(i + 1)];
    const cut = test(candidate);
    if (cut === undefined) i++;
    else {
      current = candidate.slice(0, cut);
      i = 0;
    }
  }
  return current;
}

/** A test of a candidate: the length of its shortest prefix that breaks `invariant`, or `undefined`. */
function violationTest<A>(model: Checkable<A>, start: Uint8Array, invariant: string): (actions: readonly number[]) => number | undefined {
  const enabled: number[] = [];
  if (invariant === DEADLOCK) {
    return (actions) => {
      const s = replay(model, start, actions);
      if (s === undefined) return undefined;
      enabledActions(model, s, enabled);
      return enabled.length === 0 && model.isLegitimateEnd !== undefined && !model.isLegitimateEnd(s) ? actions.length : undefined;
    };
  }
  const property = model.properties.find((p) => p.kind === 'always' && p.name === invariant);
  if (property === undefined) throw new Error(`checker: no invariant named ${invariant}`);
  return (actions) => {
    let s = start;
    if (!property.holds(s)) return 0;
    for (let k = 0; k < actions.length; k++) {
      const t = model.nextState(s, actions[k]!);
      if (t === undefined) return undefined;
      s = t.slice();
      if (!property.holds(s)) return k + 1;
    }
    return undefined;
  };
}

/** The state after `actions` from `start`, or `undefined` when one is not enabled. */
function replay<A>(model: Checkable<A>, start: Uint8Array, actions: readonly number[]): Uint8Array | undefined {
  let s = start;
  for (const a of actions) {
    const t = model.nextState(s, a);
    if (t === undefined) return undefined;
    s = t.slice();
  }
  return s;
}
