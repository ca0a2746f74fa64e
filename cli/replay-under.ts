/**
 * `pagecheck replay FILE --variant length-fix` (or any model flag, on a trace that carries
 * its own configuration): the question "under this other model, does the trace still fit,
 * and does it still leak?". The trace is first replayed as recorded, so that a trace that
 * does not fit its own model is still refused; then its actions run on the model the flags
 * give (the trace's configuration with the flags over it), where the recorded states no
 * longer apply: each action must be enabled, and every state reached is checked against
 * the invariants the trace was checked for.
 */
import { actionLabel, compile, DEFAULT_FAULTS, DEFAULT_INVARIANTS, initial, INVARIANTS, parseAction, step, view, type Action, type Config, type Model, type Property, type State, type Trace, type TraceStep } from '../spec/index.ts';
import { configFromFlags, type ModelFlags } from './model-options.ts';

/** What the trace's actions do on the other model. */
export type UnderResult =
  | { readonly outcome: 'violation'; readonly model: Model; readonly trace: Trace; readonly invariant: string; readonly step: number }
  | { readonly outcome: 'ok'; readonly model: Model; readonly trace: Trace }
  | { readonly outcome: 'not-enabled'; readonly model: Model; readonly trace: Trace; readonly step: number; readonly action: string; readonly why: string };

/** The trace's `#meta.config`, when it carries one (a trace Quint wrote does not). */
export function recordedConfig(json: unknown): Record<string, unknown> | undefined {
  const meta = (json as { '#meta'?: { config?: unknown } } | null)?.['#meta'];
  const config = typeof meta === 'object' && meta !== null ? meta.config : undefined;
  return typeof config === 'object' && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : undefined;
}

/** The model the flags give over the trace's configuration; a variant named without faults gets its own faults, not the recorded variant's. */
export function configUnder(recorded: Record<string, unknown>, flags: ModelFlags): Config {
  const base: Record<string, unknown> = { ...recorded };
  const variant = recorded['variant'] as keyof typeof DEFAULT_FAULTS | undefined;
  const own = variant === undefined ? undefined : DEFAULT_FAULTS[variant];
  const faults = Array.isArray(recorded['faults']) ? (recorded['faults'] as unknown[]) : undefined;
  const ownFaults = own !== undefined && faults !== undefined && faults.length === own.length && own.every((f) => faults.includes(f));
  if (flags.variant !== undefined && flags.faults === undefined && (faults === undefined || ownFaults)) delete base['faults'];
  return configFromFlags(flags, base);
}

/** The invariants the trace lists as checked (`#meta.invariants`), else the default ones. */
function invariantsOf(json: unknown): readonly Property[] {
  const listed = (json as { '#meta'?: { invariants?: unknown } } | null)?.['#meta']?.invariants;
  if (!Array.isArray(listed)) return DEFAULT_INVARIANTS;
  return INVARIANTS.filter((p) => listed.includes(p.name));
}

/** The first invariant broken in `s`, if any. */
function broken(m: Model, s: State, invariants: readonly Property[]): string | undefined {
  return invariants.find((p) => !p.holds(m, s))?.name;
}

/** Runs the actions of `recorded` (replayed on `from`) on the model of `config`, checking the trace's invariants at every state. */
export function replayUnder(json: unknown, from: Model, recorded: Trace, config: Config): UnderResult {
  const m = compile(config);
  const invariants = invariantsOf(json);
  const init = initial(m);
  const steps: TraceStep[] = [];
  let state = init;
  const first = broken(m, init, invariants);
  if (first !== undefined) return { outcome: 'violation', model: m, trace: { initial: init, steps }, invariant: first, step: 0 };
  for (const [i, recordedStep] of recorded.steps.entries()) {
    const k = i + 1;
    const label = actionLabel(from, recordedStep.action);
    const action: Action | undefined = parseAction(m, label);
    // The steps taken so far are the trace only where the replay stops here: no copy per step.
    if (action === undefined) return { outcome: 'not-enabled', model: m, trace: { initial: init, steps }, step: k, action: label, why: 'it names no request of this model' };
    const next = step(m, state, action);
    if (next === undefined) {
      const req = view(m, state).requests[action.r];
      return { outcome: 'not-enabled', model: m, trace: { initial: init, steps }, step: k, action: label, why: `${req?.name ?? '?'} is ${req?.phase ?? '?'}` };
    }
    steps.push({ action, state: next });
    state = next;
    const invariant = broken(m, next, invariants);
    if (invariant !== undefined) return { outcome: 'violation', model: m, trace: { initial: init, steps }, invariant, step: k };
  }
  return { outcome: 'ok', model: m, trace: { initial: init, steps } };
}
