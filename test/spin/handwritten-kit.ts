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
import { buildPanFromFile, runPan, type PanBuild } from '../../spin/run.ts';

/**
 * The verifiers a test file has compiled, by model and defines: gcc is most of a SPIN
 * test's CPU (0.5 to 1 s a build at -O0), and a file that asks one configuration several
 * questions (its count, then its verdict, its shortest counterexample) builds it once.
 * The file disposes of them after its tests (`afterAll(() => cache.dispose())`).
 */
export class PanCache {
  private readonly builds = new Map<string, PanBuild>();

  /** The compiled verifier of `model` under `defines` (as the functions below build it), built on first use. */
  build(model: string, config: Config, defines: Readonly<Record<string, number>>): PanBuild {
    const key = `${model} ${JSON.stringify(Object.entries(defines).sort(([a], [b]) => a.localeCompare(b)))}`;
    let b = this.builds.get(key);
    if (b === undefined) this.builds.set(key, (b = buildPanFromFile(model, config, { ...defines }, { optimize: false, keepGhosts: true })));
    return b;
  }

  /** Removes every build's directory. */
  dispose(): void {
    for (const b of this.builds.values()) b.dispose();
    this.builds.clear();
  }
}

/** A build of `model` under `defines`: the cache's, kept, or one of its own, disposed of by `use`'s caller after use. */
function withBuild<T>(model: string, config: Config, defines: Readonly<Record<string, number>>, cache: PanCache | undefined, use: (b: PanBuild) => T): T {
  if (cache !== undefined) return use(cache.build(model, config, defines));
  const build = buildPanFromFile(model, config, { ...defines }, { optimize: false, keepGhosts: true });
  try {
    return use(build);
  } finally {
    build.dispose();
  }
}

/** SPIN's stored states of the hand-written `model` under `defines`, and pagecheck's distinct states of `config`, both over the whole space (the build from `cache` when given). */
export function bothCounts(model: string, config: Config, defines: Readonly<Record<string, number>>, cache?: PanCache): { spin: number; mine: number } {
  const mine = check(checkedModel(compile(config)), { symmetry: false, por: false, continueAfterViolation: true });
  return withBuild(model, config, defines, cache, (build) => ({ spin: runPan(build, { hashBits: 20, continueAfterViolation: true }).pan.statesStored, mine: mine.distinctStates }));
}

/** SPIN's verdict on the hand-written `model` under `defines` (its assertions on), and pagecheck's on `config` (the build from `cache` when given). */
export function bothVerdicts(model: string, config: Config, defines: Readonly<Record<string, number>>, cache?: PanCache): { spin: string; mine: string } {
  return withBuild(model, config, defines, cache, (build) => ({ spin: runPan(build, { hashBits: 20 }).verdict, mine: check(checkedModel(compile(config))).verdict }));
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
