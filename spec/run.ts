/**
 * Executions of the model: the enabled actions of a state, and a sequence of actions run
 * from the initial state. Every producer of traces (the checker, the model-based tests,
 * replay) builds a {@link Trace} with these, and every printer reads one.
 */
import { allActions, actionLabel, type Action } from './actions.ts';
import type { Model } from './model.ts';
import { initial, type State } from './state.ts';
import { step } from './transitions.ts';

/** The actions enabled in `s`, in the spec's deterministic order. */
export function enabled(m: Model, s: State): Action[] {
  return allActions(m).filter((a) => step(m, s, a) !== undefined);
}

/** One step of a trace: the action taken and the state it led to. */
export interface TraceStep {
  /** The action taken. */
  readonly action: Action;
  /** The state after it. */
  readonly state: State;
}

/** An execution: the initial state and the steps taken from it. */
export interface Trace {
  /** State 0. */
  readonly initial: State;
  /** Steps 1..n. */
  readonly steps: readonly TraceStep[];
}

/** Why a sequence of actions could not be run: the 1-based step and the action that was not enabled. */
export interface NotEnabled {
  /** 1-based index of the failing step. */
  readonly step: number;
  /** The action, as a label. */
  readonly action: string;
}

/** Runs `actions` from the initial state; a trace, or the first step whose action was not enabled. */
export function run(m: Model, actions: readonly Action[]): { trace: Trace } | { notEnabled: NotEnabled } {
  const init = initial(m);
  const steps: TraceStep[] = [];
  let s = init;
  for (const [i, action] of actions.entries()) {
    const next = step(m, s, action);
    if (next === undefined) return { notEnabled: { step: i + 1, action: actionLabel(m, action) } };
    steps.push({ action, state: next });
    s = next;
  }
  return { trace: { initial: init, steps } };
}

/** The state a trace ends in. */
export function lastState(trace: Trace): State {
  return trace.steps.at(-1)?.state ?? trace.initial;
}
