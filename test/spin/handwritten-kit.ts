/**
 * What the hand-written Promela models' tests (test/spin/handwritten-*.test.ts) compare:
 * SPIN's stored states against pagecheck's distinct states on one configuration (no
 * symmetry, no reduction, the whole space), and both tools' verdicts with assertions on.
 * Each test file keeps its own cases, configurations and `-D` defines; the comparison is
 * written once here.
 */
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { compile, configFrom, Integrity, Isolation, type Config, type Fault, type Mechanism, type Variant } from '../../spec/index.ts';
import { buildPanFromFile, runPan } from '../../spin/run.ts';

/** SPIN's stored states of the hand-written `model` under `defines`, and pagecheck's distinct states of `config`, both over the whole space. */
export function bothCounts(model: string, config: Config, defines: Readonly<Record<string, number>>): { spin: number; mine: number } {
  const mine = check(checkedModel(compile(config)), { symmetry: false, por: false, continueAfterViolation: true });
  const build = buildPanFromFile(model, config, { ...defines }, { optimize: false, keepGhosts: true });
  try {
    return { spin: runPan(build, { hashBits: 20, continueAfterViolation: true }).pan.statesStored, mine: mine.distinctStates };
  } finally {
    build.dispose();
  }
}

/** SPIN's verdict on the hand-written `model` under `defines` (its assertions on), and pagecheck's on `config`. */
export function bothVerdicts(model: string, config: Config, defines: Readonly<Record<string, number>>): { spin: string; mine: string } {
  const build = buildPanFromFile(model, config, { ...defines }, { optimize: false, keepGhosts: true });
  try {
    return { spin: runPan(build, { hashBits: 20 }).verdict, mine: check(checkedModel(compile(config))).verdict };
  } finally {
    build.dispose();
  }
}

/** Both tools on one configuration, with one build of `model`: their whole-space state counts (as {@link bothCounts}) and their verdicts, pagecheck checking `Isolation` and `Integrity`, the two that a model asserting "its own data, for its position" states (its default search leaves `Integrity` out). */
export function countsAndReadVerdicts(model: string, config: Config, defines: Readonly<Record<string, number>>): { spin: [number, string]; mine: [number, string] } {
  const whole = check(checkedModel(compile(config)), { symmetry: false, por: false, continueAfterViolation: true });
  const reads = check(checkedModel(compile(config)), { invariants: [Isolation, Integrity] });
  const build = buildPanFromFile(model, config, { ...defines }, { optimize: false, keepGhosts: true });
  try {
    const spinWhole = runPan(build, { hashBits: 20, continueAfterViolation: true });
    return { spin: [spinWhole.pan.statesStored, runPan(build, { hashBits: 20 }).verdict], mine: [whole.distinctStates, reads.verdict] };
  } finally {
    build.dispose();
  }
}

/** One configuration of a model with `-D` switches (prefill limit 2): the spec's variant and faults, and the model's switches that stand for them. */
export interface SwitchedCase {
  readonly variant: Variant;
  readonly pages: number;
  readonly lengths: readonly number[];
  readonly faults: readonly Fault[];
  /** Under `hardened`, the mechanism switched off (config `without`). */
  readonly without?: Mechanism;
  /** The model's -D switches (each model's header lists its own: the variant's, its mechanisms' and the faults'). */
  readonly switches: readonly string[];
  readonly states: number;
  readonly verdict: 'holds' | 'violation';
}

/** The case's configuration for pagecheck. */
export const switchedConfig = (c: SwitchedCase): Config => ({
  ...configFrom({ pages: c.pages, prefillLimit: 2, requests: c.lengths.map((length) => ({ length })), variant: c.variant, faults: [...c.faults] }),
  ...(c.without === undefined ? {} : { without: [c.without] }),
});

/** The case's defines for a model with `slots` request lengths L0, L1, ... (0: no such request). */
export function switchedDefines(c: SwitchedCase, slots: number): Record<string, number> {
  const defines: Record<string, number> = { PAGES: c.pages, LIMIT: 2, N: c.lengths.length, MAXLEN: Math.max(...c.lengths) };
  for (let i = 0; i < Math.max(slots, c.lengths.length); i++) defines[`L${i}`] = c.lengths[i] ?? 0;
  for (const s of c.switches) defines[s] = 1;
  return defines;
}

/** The case as a test's title. */
export const switchedTitle = (c: SwitchedCase): string =>
  `${c.variant}${c.without === undefined ? '' : ` without ${c.without}`}, ${c.pages} pages, requests ${c.lengths.join(',')}, ${c.faults.join(',')}: ${c.states} states, ${c.verdict}`;
