/** Shared helpers for the spec's tests: run a list of action labels, build states by hand. */
import { compile, parseAction, run, lastState, type Config, type Model, type State, type Trace } from '../../spec/index.ts';

/** Runs labelled actions; throws naming the first one that is not an action or not enabled. */
export function runLabels(config: Config, labels: readonly string[]): { m: Model; trace: Trace; last: State } {
  const m = compile(config);
  const actions = labels.map((label) => {
    const a = parseAction(m, label);
    if (a === undefined) throw new Error(`not an action of this model: ${label}`);
    return a;
  });
  const result = run(m, actions);
  if ('notEnabled' in result) throw new Error(`step ${result.notEnabled.step}: ${result.notEnabled.action} is not enabled`);
  return { m, trace: result.trace, last: lastState(result.trace) };
}

/** The minimal leak of docs/BACKGROUND.md ("The minimal leak"): A served and freed, B stubbed and decoded. */
export const MINIMAL_LEAK = [
  'allocate(A)',
  'prefill(A)',
  'handoff(A)',
  'decode(A)',
  'free(A)',
  'allocate(B)',
  'stub(B)',
  'handoff(B)',
  'decode(B)',
] as const;
