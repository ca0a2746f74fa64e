/**
 * `pagecheck simulate`: seeded random walks through the spec, for configurations past
 * exhaustive reach (a pool of 1,000 pages, say). Every invariant is checked at every
 * state, witnesses are counted, and a violation is shortened against the spec: whole
 * requests dropped, then actions (delta debugging), then the requests left checked
 * exhaustively where that fits (`simulation/minimize.ts`); then printed with the same
 * printer as `check`. `--shard I/N` does every
 * N-th run, so that a job runner can fan the runs out; `--merge FILES` combines the
 * shards' `--out` files into the result of one run over all the seeds.
 * Exit 0 no violation, 1 violation, 2 bad input.
 */
import { Either } from 'effect';
import type { Command } from 'commander';
import { mergeSimulations, simulate, violationOrder, type SimulationResult } from '../../checker/index.ts';
import { compile, parseAction, run, type Action, type Model, type Trace } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { decodeFile, toFile, type SimulationFile, type SimulationParameters } from '../../simulation/file.ts';
import { runRandom, shardRuns } from '../../simulation/runs.ts';
import { minimizeViolations } from '../../simulation/minimize.ts';
import { formatTrace, shouldColor } from '../../trace/index.ts';
import { checkOutputPaths, writeOutput } from '../../trace/written.ts';
import { EXIT, UsageError } from '../errors.ts';
import { addModelOptions, configFromFlags, modelFlagsGiven, type ModelFlags } from '../model-options.ts';
import { readJsonFile } from '../read-input.ts';
import { beginWork } from '../interrupt.ts';
import { CHECK_DEFAULTS, count, describeConfig, parseInvariants, replayCommand } from '../search-report.ts';

/** The flags of `simulate`, as commander hands them over. */
interface SimulateFlags extends ModelFlags {
  readonly seed?: string;
  readonly runs?: string;
  readonly depth?: string;
  readonly shard?: string;
  readonly run?: string;
  readonly merge?: readonly string[];
  readonly out?: string;
  readonly force?: boolean;
  readonly json?: boolean;
  readonly deadlock: boolean;
  /** `--invariant A,B`, as `check` takes it. */
  readonly invariant?: string;
}

/** A whole number flag in `[min, max]`, or a {@link UsageError} naming the flag and value. */
function wholeFlag(flag: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw new UsageError(`${flag}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** `--shard I/N` as numbers, or a {@link UsageError}. */
function parseShard(text: string | undefined): { index: number; of: number } {
  if (text === undefined) return { index: 1, of: 1 };
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(m?.[1]);
  const of = Number(m?.[2]);
  if (m === null || of < 1 || index < 1 || index > of) throw new UsageError(`--shard: expected I/N with 1 <= I <= N, got ${JSON.stringify(text)}`);
  return { index, of };
}

/** The spec trace of a file's counterexample labels (a file from another version may name actions this model lacks). */
function traceOfLabels(m: Model, labels: readonly string[], where: string): Trace {
  const actions: Action[] = labels.map((label) => {
    const a = parseAction(m, label);
    if (a === undefined) throw new UsageError(`${where}: ${JSON.stringify(label)} is not an action of this model`);
    return a;
  });
  const replayed = run(m, actions);
  if ('notEnabled' in replayed) throw new UsageError(`${where}: step ${replayed.notEnabled.step}, ${replayed.notEnabled.action} is not enabled`);
  return replayed.trace;
}

/** The result in words, with each shortened counterexample. */
function resultText(m: Model, p: SimulationParameters, file: SimulationFile, traces: readonly Trace[], color: boolean): string {
  const r = file.result;
  const paint = (code: string, s: string): string => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const names = r.violations.map((v) => v.invariant).join(', ');
  const shard = p.of === 1 ? '' : `, shard${p.shards.length === 1 ? '' : 's'} ${p.shards.join(',')}/${p.of}`;
  const lines = [
    `pagecheck simulate  ${describeConfig(p.config)}`,
    `runs             ${count(r.runs)} (seed ${p.seed}, depth ${p.depth}${shard}), ${count(r.steps)} actions`,
    `verdict          ${r.violations.length === 0 ? paint('1;32', 'NO VIOLATION FOUND') : paint('1;31', `VIOLATION of ${names}`)} (in ${count(r.violatingRuns)} of ${count(r.runs)} runs)`,
    `witnesses        ${r.witnesses.filter((w) => w.applies).map((w) => `${w.name} in ${count(w.runsReached)} runs`).join(', ') || 'none apply'}`,
  ];
  r.violations.forEach((v, k) => {
    const trace = traces[k]!;
    lines.push('', `counterexample: ${v.invariant} (run ${v.run}: found after ${v.foundLength} actions, shortened to ${trace.steps.length})`);
    lines.push(formatTrace(m, trace, { color, violation: v.invariant }));
    lines.push('', `replay: ${replayCommand(p.config).replace(' check ', ' simulate ')} --seed ${p.seed} --runs ${p.runs} --depth ${p.depth} --run ${v.run}`);
  });
  return lines.join('\n');
}

/** Prints a file's result (and writes `--out`); returns the exit code. */
function report(file: SimulationFile, p: SimulationParameters, flags: SimulateFlags): number {
  const m = compile(p.config);
  const traces = file.result.violations.map((v, k) => traceOfLabels(m, v.trace, `violation ${k + 1}`));
  if (flags.out !== undefined) writeOutput('--out', flags.out, `${JSON.stringify(file, null, 2)}\n`);
  if (flags.json === true) process.stdout.write(`${JSON.stringify(file, null, 2)}\n`);
  else process.stdout.write(`${resultText(m, p, file, traces, shouldColor(process.stdout))}\n`);
  return file.result.violations.length > 0 ? EXIT.violation : EXIT.ok;
}

/** Refuses a flag that `--merge` would ignore: the files carry the model, the seed and the runs. */
function refuseWithMerge(flags: SimulateFlags): void {
  const given: Array<[string, unknown]> = [['--seed', flags.seed], ['--runs', flags.runs], ['--depth', flags.depth], ['--shard', flags.shard], ['--run', flags.run], ['--no-deadlock', flags.deadlock === false ? true : undefined]];
  const named = given.find(([, v]) => v !== undefined)?.[0] ?? (modelFlagsGiven(flags) ? 'a model flag' : undefined);
  if (named !== undefined) throw new UsageError(`${named}: cannot be combined with --merge, which takes the model, seed, runs and depth from the files`);
}

/** `--merge FILES`: decodes, checks that the files are shards of one simulation, and combines them. */
function runMerge(paths: readonly string[], flags: SimulateFlags): number {
  refuseWithMerge(flags);
  const files = paths.map((path) => {
    const decoded = decodeFile(readJsonFile(path, 'simulation file'));
    if (Either.isLeft(decoded)) throw new UsageError(`simulation file ${path}:\n  ${decoded.left.join('\n  ')}`);
    return decoded.right;
  });
  const [head] = files;
  if (head === undefined) throw new UsageError('--merge: expected one or more simulation files');
  const key = (f: SimulationFile): string => JSON.stringify([f.config, f.seed, f.runs, f.depth, f.deadlock, f.of]);
  files.forEach((f, k) => {
    if (key(f) !== key(head)) throw new UsageError(`--merge: ${paths[k]} is not a shard of the same simulation as ${paths[0]} (configuration, seed, runs, depth, deadlock and shard count must agree)`);
  });
  const shards = files.flatMap((f) => f.shards).sort((a, b) => a - b);
  if (new Set(shards).size !== shards.length) throw new UsageError(`--merge: a shard appears twice (${shards.join(', ')})`);
  const m = compile(head.configDecoded);
  const parts: SimulationResult<Action>[] = files.map((f, k) => ({
    ...f.result,
    violations: f.result.violations.map((v) => ({ ...v, trace: traceOfLabels(m, v.trace, `${paths[k]}: ${v.invariant}`) })),
  }));
  const p: SimulationParameters = { config: head.configDecoded, seed: head.seed, runs: head.runs, depth: head.depth, deadlock: head.deadlock, shards, of: head.of };
  return report(toFile(m, p, mergeSimulations(parts, violationOrder(checkedModel(m)))), p, flags);
}

/** Runs `simulate` with parsed flags; returns the exit code. */
export function runSimulate(flags: SimulateFlags): number {
  // Before any work: a bad --out must not cost the whole run, nor replace a user's file.
  if (flags.out !== undefined) checkOutputPaths([{ flag: '--out', path: flags.out }], flags.force === true, flags.merge ?? []);
  if (flags.merge !== undefined) return runMerge(flags.merge, flags);
  const seed = wholeFlag('--seed', flags.seed, 1, 0, 0xffffffff);
  const runs = wholeFlag('--runs', flags.runs, 1000, 1, 100_000_000);
  const depth = wholeFlag('--depth', flags.depth, 100, 1, 1_000_000);
  const shard = parseShard(flags.shard);
  const one = flags.run === undefined ? undefined : wholeFlag('--run', flags.run, 0, 0, runs - 1);
  const invariants = parseInvariants(flags.invariant);
  const config = configFromFlags(flags, CHECK_DEFAULTS);
  const m = compile(config);
  const work = beginWork('simulate', ['runs']);
  const model = checkedModel(m);
  const result = simulate(model, {
    runs: one === undefined ? shardRuns(runs, shard.index, shard.of) : [one],
    // Shortening drops whole requests first.
    groupOf: (i) => model.actions[i]!.r,
    depth,
    deadlock: flags.deadlock,
    random: (k) => runRandom(seed, k),
    onProgress: (done) => work.report({ runs: done }),
    ...(invariants === undefined ? {} : { invariants }),
  });
  const p: SimulationParameters = { config, seed, runs, depth, deadlock: flags.deadlock, shards: [shard.index], of: shard.of };
  // Then the requests left, checked exhaustively where that fits: the shortest trace among them.
  return report(toFile(m, p, minimizeViolations(m, result)), p, flags);
}

/** Registers the command. */
export function register(program: Command): void {
  const cmd = program
    .command('simulate')
    .description('seeded random walks: check every invariant at every state, count witnesses, shorten a violation (exit 0 none found, 1 violation)');
  addModelOptions(cmd)
    .option('--seed <n>', 'seed of every run (default 1); run k draws from the seed and k only')
    .option('--runs <n>', 'number of runs over all shards (default 1000)')
    .option('--depth <n>', 'longest walk, in actions (default 100)')
    .option('--shard <i/n>', 'do only every n-th run, starting at run i-1 (for a job runner)')
    .option('--run <k>', 'do only run k (to replay one)')
    .option('--merge <files...>', 'combine the --out files of shards into one result')
    .option('--out <file>', 'write the result as JSON (the input of --merge); never overwrites a file pagecheck did not write')
    .option('--invariant <names>', 'check only these invariants, comma-separated, as check takes them (default: the default invariants)')
    .option('--force', 'overwrite --out even though pagecheck has no record of writing it')
    .option('--no-deadlock', 'do not report states where some request has not finished and no action is enabled')
    .option('--json', 'print the JSON instead of text')
    .action((flags: SimulateFlags) => {
      process.exitCode = runSimulate(flags);
    });
}
