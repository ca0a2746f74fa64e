/**
 * Shortening a counterexample against the model: delta debugging (Zeller's ddmin) over
 * the groups of actions (the processes, when the caller names them), then over the list of
 * actions, each followed by single drops until none helps. A candidate list is kept when
 * every action in it is enabled in turn from the initial state and it reaches a state
 * that breaks the same invariant (for `Deadlock`: ends where nothing is enabled and the
 * model has not legitimately ended); it is cut at the first such state. The result is
 * 1-minimal: dropping any single action loses the violation.
 */
import { enabledActions, type Checkable } from './model.ts';
import { DEADLOCK } from './types.ts';

/**
 * The shortest list found of actions from `start` that still breaks `invariant`; `actions`
 * must break it. With `groupOf` (an action's group: the process it belongs to), whole
 * groups are dropped first, a chunk of groups at a time and then one by one, so that what
 * is left is a violation among as few processes as the walk allows; then actions.
 */
export function shrinkActions<A>(model: Checkable<A>, start: Uint8Array, actions: readonly number[], invariant: string, groupOf?: (action: number) => number): number[] {
  const test = violationTest(model, start, invariant);
  const cut = (candidate: readonly number[]): number[] | undefined => {
    const at = test(candidate);
    return at === undefined ? undefined : candidate.slice(0, at);
  };
  let current = actions.slice(0, test(actions) ?? actions.length);
  if (groupOf !== undefined) {
    const walk = current;
    const among = (groups: readonly number[]): number[] => walk.filter((a) => groups.includes(groupOf(a)));
    const groups = ddmin([...new Set(walk.map(groupOf))], (kept) => {
      const left = cut(among(kept));
      return left === undefined ? undefined : [...new Set(left.map(groupOf))];
    });
    current = cut(among(groups)) ?? current;
  }
  return ddmin(current, cut);
}

/**
 * Zeller's ddmin over `items`: drops one of `chunks` slices at a time while `test` keeps a
 * violation (it returns what is left, a violation's walk cut at its first breaking state,
 * or `undefined`), then single items until none can go: the result is 1-minimal.
 */
function ddmin<T>(items: readonly T[], test: (candidate: readonly T[]) => T[] | undefined): T[] {
  let current = [...items];
  let chunks = 2;
  while (current.length >= 2) {
    const size = Math.ceil(current.length / chunks);
    let reduced = false;
    for (let c = 0; c * size < current.length; c++) {
      const kept = test([...current.slice(0, c * size), ...current.slice((c + 1) * size)]);
      if (kept === undefined) continue;
      current = kept;
      chunks = Math.max(chunks - 1, 2);
      reduced = true;
      break;
    }
    if (reduced) continue;
    if (chunks >= current.length) break;
    chunks = Math.min(current.length, 2 * chunks);
  }
  for (let i = 0; i < current.length; ) {
    const kept = test([...current.slice(0, i), ...current.slice(i + 1)]);
    if (kept === undefined) i++;
    else {
      current = kept;
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
