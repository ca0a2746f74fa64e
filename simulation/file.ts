/**
 * A simulation's JSON: what one run of `pagecheck simulate` (or one shard of it) found,
 * with everything needed to merge it with the other shards and to print its
 * counterexamples again: the configuration, the seed, the run count and depth, which
 * shard it is, and each shortened counterexample as action labels. Merge inputs are
 * decoded with Schema, so a bad file gets a message that names the field and the value.
 */
import { Either, Schema } from 'effect';
import type { SimulationResult } from '../checker/index.ts';
import { actionLabel, decodeConfig, schemaIssues, type Action, type Config, type Model } from '../spec/index.ts';

/** The marker of the format, first field of every file. */
export const SIMULATION_FORMAT = 'pagecheck-simulation';

/** One shortened counterexample, as labels. */
const ViolationSchema = Schema.Struct({
  invariant: Schema.String,
  run: Schema.Number,
  foundLength: Schema.Number,
  trace: Schema.Array(Schema.String),
});

/** A simulation file, as written and as read back. */
export const SimulationFileSchema = Schema.Struct({
  format: Schema.Literal(SIMULATION_FORMAT),
  config: Schema.Unknown,
  seed: Schema.Number,
  runs: Schema.Number,
  depth: Schema.Number,
  deadlock: Schema.Boolean,
  shards: Schema.Array(Schema.Number),
  of: Schema.Number,
  result: Schema.Struct({
    runs: Schema.Number,
    steps: Schema.Number,
    violatingRuns: Schema.Number,
    witnesses: Schema.Array(Schema.Struct({ name: Schema.String, applies: Schema.Boolean, runsReached: Schema.Number })),
    violations: Schema.Array(ViolationSchema),
  }),
});

/** A simulation file's contents. */
export type SimulationFile = Schema.Schema.Type<typeof SimulationFileSchema>;

/** The parameters a simulation ran with. */
export interface SimulationParameters {
  /** The model. */
  readonly config: Config;
  /** The seed of every run's generator. */
  readonly seed: number;
  /** Runs in the whole simulation (all shards). */
  readonly runs: number;
  /** The longest walk. */
  readonly depth: number;
  /** Whether deadlocks are reported. */
  readonly deadlock: boolean;
  /** The 1-based shards this file covers. */
  readonly shards: readonly number[];
  /** Into how many shards the runs are split. */
  readonly of: number;
}

/** The file for a result. */
export function toFile(m: Model, p: SimulationParameters, result: SimulationResult<Action>): SimulationFile {
  return {
    format: SIMULATION_FORMAT,
    config: p.config,
    seed: p.seed,
    runs: p.runs,
    depth: p.depth,
    deadlock: p.deadlock,
    shards: [...p.shards],
    of: p.of,
    result: {
      runs: result.runs,
      steps: result.steps,
      violatingRuns: result.violatingRuns,
      witnesses: result.witnesses.map((w) => ({ ...w })),
      violations: result.violations.map((v) => ({
        invariant: v.invariant,
        run: v.run,
        foundLength: v.foundLength,
        trace: v.trace.steps.map((s) => actionLabel(m, s.action)),
      })),
    },
  };
}

/** Decodes a file's JSON: the file, or a list of messages naming each bad field and its value. */
export function decodeFile(json: unknown): Either.Either<SimulationFile & { readonly configDecoded: Config }, string[]> {
  const file = Schema.decodeUnknownEither(SimulationFileSchema)(json);
  if (Either.isLeft(file)) return Either.left(schemaIssues(file.left).map((i) => `${i.path || '(file)'}: ${i.message}`));
  const config = decodeConfig(file.right.config);
  if (Either.isLeft(config)) return Either.left(config.left.issues.map((i) => `config.${i.path}: ${i.message}`));
  return Either.right({ ...file.right, configDecoded: config.right });
}
