/**
 * What the hand-written Promela models' tests (test/spin/handwritten-*.test.ts) compare:
 * SPIN's stored states against pagecheck's distinct states on one configuration (no
 * symmetry, no reduction, the whole space), and both tools' verdicts with assertions on.
 * Each test file keeps its own cases, configurations and `-D` defines; the comparison is
 * written once here.
 */
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { compile, Integrity, Isolation, type Config } from '../../spec/index.ts';
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
