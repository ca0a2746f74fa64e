/**
 * The commands of `mbt --adapter`, fast-check style: a named action (enabled or not) or
 * the k-th enabled one, each sent to the adapter and held against the spec after the step.
 * A refused `allocate` that the spec refuses too may still leave a mark: SGLang's allocator
 * merges its release list before it returns `None` (spec/alloc-fail.ts), and so does an
 * adapter around it; the spec then takes that failed attempt, `allocFail`, and the states
 * are compared.
 */
import { ADAPTER_KINDS, ADAPTER_LIFE_KINDS } from './coverage.ts';
import fc from 'fast-check';
import { actionLabel, afterRefusal, enabled, Isolation, requestName, step, type Action, type ActionKind, type Model, type State } from '../../spec/index.ts';
import { MbtViolation } from '../../impl/index.ts';
import { compareObserved } from './compare.ts';
import type { AdapterProcess } from './process.ts';
import type { Observable } from './protocol.ts';

/** The spec side of a run. */
export interface Side {
  /** The compiled configuration. */
  readonly m: Model;
  /** The spec's state. */
  s: State;
  /** The actions the spec took. */
  readonly taken: Action[];
}

/** The adapter side. */
export interface Real {
  /** The adapter's process. */
  readonly proc: AdapterProcess;
  /** What it said it observes. */
  readonly observes: ReadonlySet<Observable>;
  /** Longest wait for one answer, in milliseconds. */
  readonly timeoutMs: number;
  /** Whether `Isolation` is held on the spec's state after every step (`mbt --no-isolation` turns it off). */
  readonly isolation: boolean;
}


/** Sends action `a` and holds the answer against the spec; throws an {@link MbtViolation}. */
async function runAction(model: Side, real: Real, a: Action): Promise<void> {
  const { m } = model;
  const label = actionLabel(m, a);
  const next = step(m, model.s, a);
  const answer = await real.proc.ask({ type: 'action', kind: a.kind, request: m.config.requests[a.r]?.name ?? requestName(a.r) }, real.timeoutMs);
  if (answer.accepted !== (next !== undefined)) {
    throw new MbtViolation('Enabledness', `the adapter ${answer.accepted ? 'accepted' : 'refused'} ${label}; the spec ${answer.accepted ? 'does not enable it' : 'enables it'}`);
  }
  const left = next === undefined ? afterRefusal(m, model.s, a) : { action: a, state: next };
  if (left === undefined) return;
  model.s = left.state;
  model.taken.push(left.action);
  const after = actionLabel(m, left.action);
  const diff = compareObserved(m, left.state, answer.state, real.observes);
  if (diff.length > 0) throw new MbtViolation('Refinement', `after ${after} the states differ:\n  ${diff.join('\n  ')}`);
  if (real.isolation && !Isolation.holds(m, left.state)) throw new MbtViolation('Isolation', `after ${after} a request has read another request's data`);
}

/** A named action, enabled or not. */
class NamedAction implements fc.AsyncCommand<Side, Real> {
  private label: string;
  constructor(readonly action: Action) {
    this.label = `${action.kind}(${requestName(action.r)})`;
  }
  check(model: Readonly<Side>): boolean {
    return this.action.r < model.m.n;
  }
  async run(model: Side, real: Real): Promise<void> {
    this.label = actionLabel(model.m, this.action);
    await runAction(model, real, this.action);
  }
  toString(): string {
    return this.label;
  }
}

/** The k-th enabled action (modulo their number). */
class EnabledAction implements fc.AsyncCommand<Side, Real> {
  private label: string;
  constructor(readonly k: number) {
    this.label = `enabled#${k}`;
  }
  check(): boolean {
    return true;
  }
  async run(model: Side, real: Real): Promise<void> {
    const choices = enabled(model.m, model.s);
    const a = choices[this.k % choices.length];
    if (a === undefined) return;
    this.label = actionLabel(model.m, a);
    await runAction(model, real, a);
  }
  toString(): string {
    return this.label;
  }
}

/** A run's commands. */
export type Commands = Iterable<fc.AsyncCommand<Side, Real>>;

/** Random interleavings for up to `requests` requests: a quarter named actions (with `life`, those of a request's life on D too), the rest enabled ones. */
export function commandsArbitrary(requests: number, maxCommands: number, replayPath: string | undefined, life = false): fc.Arbitrary<Commands> {
  const kinds = life ? [...ADAPTER_KINDS, ...ADAPTER_LIFE_KINDS] : ADAPTER_KINDS;
  const named = fc.record({ kind: fc.constantFrom<ActionKind>(...kinds), r: fc.nat({ max: requests - 1 }) }).map((a): fc.AsyncCommand<Side, Real> => new NamedAction(a));
  const live = fc.nat({ max: 63 }).map((k): fc.AsyncCommand<Side, Real> => new EnabledAction(k));
  return fc.commands([fc.oneof({ weight: 1, arbitrary: named }, { weight: 3, arbitrary: live })], { maxCommands, size: 'max', ...(replayPath === undefined ? {} : { replayPath }) });
}
