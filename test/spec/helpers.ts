/** Shared helpers for the spec's tests: run a list of action labels, build states by hand. */
import { allActions, compile, configFrom, initial, parseAction, run, lastState, step, type Config, type Fault, type Model, type State, type Trace, type Variant } from '../../spec/index.ts';

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

/**
 * Steps every reachable state of `m` with every action, breadth first, and counts the
 * states it expanded and those that `step` changed in place (it must copy): the check that
 * `step` never mutates the state it is given.
 */
export function mutatedByStep(m: Model): { checked: number; mutated: number } {
  const actions = allActions(m);
  const states: State[] = [initial(m)];
  const seen = new Set<string>([Buffer.from(states[0]!).toString('latin1')]);
  let mutated = 0;
  for (let i = 0; i < states.length; i++) {
    const s = states[i]!;
    const before = s.slice();
    for (const a of actions) {
      const t = step(m, s, a);
      if (t === undefined) continue;
      const key = Buffer.from(t).toString('latin1');
      if (seen.has(key)) continue;
      seen.add(key);
      states.push(t);
    }
    if (Buffer.compare(before, s) !== 0) mutated++;
  }
  return { checked: states.length, mutated };
}

/** A radix configuration (radix.test.ts, radix-nested.test.ts): requests as `LEN[:PREFIX]`, eviction and the tree on, prefill limit 3 unless `extra` says otherwise. */
export const radix = (variant: Variant, faults: readonly Fault[], pages: number, requests: readonly string[], extra: Partial<Config> = {}): Config =>
  configFrom({
    pages,
    prefillLimit: 3,
    variant,
    faults: [...faults],
    requests: requests.map((q) => {
      const [length, prefix] = q.split(':');
      return prefix === undefined ? { length: Number(length) } : { length: Number(length), prefix };
    }),
    eviction: true,
    radix: true,
    ...extra,
  });
