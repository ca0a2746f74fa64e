/**
 * Partial-order reduction against the plain search (issue 26, item 1): the same verdict,
 * the same violations with the same shortest traces (the reduction's are found again
 * without it, checker/reduction.ts), the same witnesses; a search that stops at its first
 * violation the same result whole. Used by por-agreement.test.ts (the pinned
 * configurations, a sample of the random ones) and por-agreement-heavy.test.ts (200).
 */
import { check, type CheckOptions, type CheckResult } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, compile, type Action, type Config, type Model } from '../../spec/index.ts';

/** A result as the comparison reads it: verdict, violations with their traces, witnesses. */
function summary(m: Model, r: CheckResult<Action>): string {
  const violations = r.violations.map((v) => `${v.invariant}@${v.depth}: ${v.trace.steps.map((s) => actionLabel(m, s.action)).join(' ')}`);
  return JSON.stringify({ verdict: r.verdict, violations, witnesses: r.witnesses });
}

/** What one comparison found: the difference (undefined when none) and the states of each search. */
export interface Agreement {
  readonly difference: string | undefined;
  /** The plain search's verdict. */
  readonly verdict: CheckResult<Action>['verdict'];
  readonly plain: number;
  readonly reduced: number;
  /** Violations found, and those the reduced search met deeper than the shortest trace (which the plain search found again). */
  readonly violations: number;
  readonly deeper: number;
}

/** `config` checked with `options`, with and without the reduction. */
export function agreement(config: Config, options: CheckOptions = {}): Agreement {
  const m = compile(config);
  const plain = check(checkedModel(m), { ...options, por: false });
  const por = check(checkedModel(m), { ...options, por: true });
  const reduced = por.reduction?.states ?? por.distinctStates;
  const a = summary(m, plain);
  const b = summary(m, por);
  let difference = a === b ? undefined : `${JSON.stringify(config)} ${JSON.stringify(options)}:\n  plain   ${a}\n  reduced ${b}`;
  // Stopped at a violation, the result is the plain search's whole.
  if (difference === undefined && options.continueAfterViolation !== true && plain.violations.length > 0 && plain.distinctStates !== por.distinctStates) difference = `${JSON.stringify(config)}: ${plain.distinctStates} states against ${por.distinctStates}`;
  // Over a whole space, the reduced graph is part of the whole: no more states (where the model offers no reduction, the same).
  const whole = plain.verdict === 'holds' || (plain.verdict === 'violation' && options.continueAfterViolation === true && options.maxStates === undefined);
  if (difference === undefined && whole && reduced > plain.distinctStates) difference = `${JSON.stringify(config)}: the reduced search stored ${reduced} states, the plain one ${plain.distinctStates}`;
  const depth = new Map(plain.violations.map((v) => [v.invariant, v.depth]));
  const deeper = (por.reduction?.violations ?? []).filter((v) => v.depth > (depth.get(v.invariant) ?? v.depth)).length;
  return { difference, verdict: plain.verdict, plain: plain.distinctStates, reduced, violations: por.reduction?.violations.length ?? 0, deeper };
}
