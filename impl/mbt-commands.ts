/**
 * The model-based test's commands, fast-check style: one command per spec action, run on
 * the spec and on the pool side by side. The spec is the model, the pool the system under
 * test; they share no code but the action names and the state encoding. After every
 * command the pool must accept exactly when the spec enables the action, its abstracted
 * state must equal the spec's, and (when asked) `Isolation` must hold on the spec state.
 */
import fc from 'fast-check';
import { actionLabel, type Action, type ActionKind } from '../spec/actions.ts';
import { requestName } from '../spec/config.ts';
import type { Model } from '../spec/model.ts';
import { enabled } from '../spec/run.ts';
import { Isolation } from '../spec/properties.ts';
import type { State } from '../spec/state.ts';
import { step } from '../spec/transitions.ts';
import { afterRefusal } from '../spec/alloc-fail.ts';
import { abstractState, refinementDiff, sameState } from './abstraction.ts';
import { POOL_ACTION_KINDS } from './coverage.ts';

import { applyAction, eventOf, type EventCounts } from './drive.ts';
import type { PagePool } from './pool.ts';

/** What a model-based run can find wrong: a leak in the spec state, a state the spec does not have, or a disagreement on enabledness. */
export type MbtProperty = 'Isolation' | 'Refinement' | 'Enabledness';

/** A failed check, thrown from a command so that fast-check shrinks the sequence. */
export class MbtViolation extends Error {
  /** Which check failed. */
  readonly property: MbtProperty;
  constructor(property: MbtProperty, message: string) {
    super(`${property}: ${message}`);
    this.name = 'MbtViolation';
    this.property = property;
  }
}

/** The model side: the spec's state, and what the run did so far. */
export interface MbtModel {
  /** The compiled configuration. */
  readonly m: Model;
  /** The spec's current state. */
  s: State;
  /** The actions the spec took (the enabled commands), in order. */
  readonly taken: Action[];
  /** Coverage counts, shared by every run of a test. */
  readonly events: EventCounts;
  /** Whether `Isolation` is checked after every step. */
  readonly isolation: boolean;
}

/** The system under test. */
export interface MbtReal {
  /** The pool, built for the model by `poolOptionsFor`. */
  readonly pool: PagePool;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Runs spec action `a` on both sides and checks them against each other; throws an {@link MbtViolation}. */
function runAction(model: MbtModel, real: MbtReal, a: Action, label: string): void {
  const { m } = model;
  const next = step(m, model.s, a);
  let accepted: boolean;
  try {
    accepted = applyAction(m, real.pool, a);
  } catch (e) {
    throw new MbtViolation('Refinement', `the implementation threw on ${label}: ${messageOf(e)}`);
  }
  if (accepted !== (next !== undefined)) {
    const what = accepted ? 'accepted' : 'refused';
    const spec = accepted ? 'does not enable it' : 'enables it';
    throw new MbtViolation('Enabledness', `the implementation ${what} ${label}; the spec ${spec}`);
  }
  if (next === undefined) {
    // A refused allocate still merges sglang's release list, in the pool as in SGLang: the spec's allocFail.
    const left = afterRefusal(m, model.s, a);
    if (left !== undefined) advance(model, real, left.action, left.state, label);
    return;
  }
  const event = eventOf(m, model.s, next, a);
  if (event !== undefined) model.events[event] = (model.events[event] ?? 0) + 1;
  advance(model, real, a, next, label);
}

/** The spec takes `a` to `next`; the pool's abstracted state must equal it, and `Isolation` hold when asked. */
function advance(model: MbtModel, real: MbtReal, a: Action, next: State, label: string): void {
  const { m } = model;
  model.s = next;
  model.taken.push(a);
  let impl: State;
  try {
    impl = abstractState(m, real.pool);
  } catch (e) {
    throw new MbtViolation('Refinement', `after ${label}: ${messageOf(e)}`);
  }
  if (!sameState(impl, next)) {
    throw new MbtViolation('Refinement', `after ${label} the states differ:\n  ${refinementDiff(m, next, impl).join('\n  ')}`);
  }
  if (model.isolation && !Isolation.holds(m, next)) {
    throw new MbtViolation('Isolation', `after ${label} a request has read another request's data`);
  }
}

/** One named spec action, enabled or not: a disabled one must be refused by the pool too. */
export class ActionCommand implements fc.Command<MbtModel, MbtReal> {
  /** The action. */
  readonly action: Action;
  private label: string;

  constructor(kind: ActionKind, r: number) {
    this.action = { kind, r };
    this.label = `${kind}(${requestName(r)})`;
  }

  /** Only requests the configuration has. */
  check(model: Readonly<MbtModel>): boolean {
    return this.action.r < model.m.n;
  }

  /** Runs the action on both sides. */
  run(model: MbtModel, real: MbtReal): void {
    this.label = actionLabel(model.m, this.action);
    runAction(model, real, this.action, this.label);
  }

  /** `allocate(A)`. */
  toString(): string {
    return this.label;
  }
}

/**
 * The `k`-th action the spec enables now (modulo their number): uniform random actions
 * rarely get a request through its whole lifecycle, these do, so that runs reach the deep
 * states where pages are reused. It prints as the action it resolved to.
 */
export class EnabledCommand implements fc.Command<MbtModel, MbtReal> {
  /** Which enabled action, modulo their number. */
  readonly k: number;
  private label: string;

  constructor(k: number) {
    this.k = k;
    this.label = `enabled#${k}`;
  }

  /** Always runs; with nothing enabled it does nothing, and shrinking drops it. */
  check(): boolean {
    return true;
  }

  /** Runs the resolved action on both sides. */
  run(model: MbtModel, real: MbtReal): void {
    const choices = enabled(model.m, model.s);
    const a = choices[this.k % choices.length];
    if (a === undefined) return;
    this.label = actionLabel(model.m, a);
    runAction(model, real, a, this.label);
  }

  /** The action it resolved to, once run. */
  toString(): string {
    return this.label;
  }
}

/** Random interleavings of the pool's actions (`kinds`, the default ones unless given) for up to `requests` requests: a quarter named actions (enabled or not), the rest enabled ones. */
export function commandsArbitrary(
  requests: number,
  maxCommands: number,
  replayPath?: string,
  kinds: readonly ActionKind[] = POOL_ACTION_KINDS,
): fc.Arbitrary<Iterable<fc.Command<MbtModel, MbtReal>>> {
  const named = fc
    .record({ kind: fc.constantFrom(...kinds), r: fc.nat({ max: requests - 1 }) })
    .map(({ kind, r }): fc.Command<MbtModel, MbtReal> => new ActionCommand(kind, r));
  const live = fc.nat({ max: 63 }).map((k): fc.Command<MbtModel, MbtReal> => new EnabledCommand(k));
  return fc.commands([fc.oneof({ weight: 1, arbitrary: named }, { weight: 3, arbitrary: live })], {
    maxCommands,
    // fast-check's default size stops at about 10 commands: too few for several lifecycles.
    size: 'max',
    ...(replayPath === undefined ? {} : { replayPath }),
  });
}

/** The most requests a random configuration has. */
export const MAX_RANDOM_REQUESTS = 4;

/** The most pages a random configuration has: small pools reuse pages soon, where the bugs are. */
export const MAX_RANDOM_PAGES = 6;
