/**
 * `pagecheck replay FILE`: re-executes a trace saved with `--itf` against the spec. Exit 1
 * with the trace printed when it shows a violation, 0 when it shows none, 2 when the file
 * is malformed or no longer fits the spec (the step and the difference are named).
 */
import type { Command } from 'commander';
import { explain } from '../../trace/explain.ts';
import { formatTrace, replayItf, ReplayError, shouldColor, type ReplayResult } from '../../trace/index.ts';
import { EXIT } from '../errors.ts';
import { addModelOptions, configFromFlags, modelFlagsGiven, readJsonFile, type ModelFlags } from '../model-options.ts';
import { CHECK_DEFAULTS } from './check.ts';

/** The flags of `replay`: the model flags give the configuration of a trace that carries none (one Quint wrote). */
interface ReplayFlags extends ModelFlags {
  /** `--json`. */
  readonly json?: boolean;
}

/** The outcome as the JSON that `--json` prints. */
function outcomeJson(file: string, result: ReplayResult): unknown {
  const steps = result.trace.steps.length;
  if (result.outcome === 'ok') return { file, outcome: 'ok', steps };
  const x = explain(result.model, result.trace, result.invariant);
  return { file, outcome: 'violation', invariant: result.invariant, step: result.step, steps, explanation: x.headline };
}

/** Replays `file` and prints the outcome; returns the exit code. */
export function replayFile(file: string, flags: ReplayFlags): number {
  const json = readJsonFile(file, 'trace file');
  let result: ReplayResult;
  try {
    result = replayItf(json, modelFlagsGiven(flags) ? { config: configFromFlags(flags, CHECK_DEFAULTS) } : {});
  } catch (e) {
    if (e instanceof ReplayError) throw new ReplayError(`${file}: ${e.message}`, e.step);
    throw e;
  }
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(outcomeJson(file, result), null, 2)}\n`);
  } else if (result.outcome === 'violation') {
    const color = shouldColor(process.stdout);
    process.stdout.write(`${formatTrace(result.model, result.trace, { color, violation: result.invariant })}\n`);
    process.stdout.write(`\nreplay: every step of ${file} fits the spec; ${result.invariant} is violated at step ${result.step}\n`);
  } else {
    process.stdout.write(`replay: every step of ${file} fits the spec (${result.trace.steps.length} steps); no invariant is violated\n`);
  }
  return result.outcome === 'violation' ? EXIT.violation : EXIT.ok;
}

/** Registers the command. */
export function register(program: Command): void {
  addModelOptions(
    program
      .command('replay')
      .description('re-execute a trace saved with --itf (or written by Quint) against the spec; exit 1 on a violation, 0 on none, 2 when it no longer fits')
      .argument('<file>', 'an ITF trace written by pagecheck (--itf FILE) or by Quint (then give its model with the model flags)'),
  )
    .option('--json', 'print the outcome as JSON')
    .action((file: string, flags: ReplayFlags) => {
      process.exitCode = replayFile(file, flags);
    });
}
