/**
 * `pagecheck replay FILE`: re-executes a trace saved with `--itf` against the spec. Exit 1
 * with the trace printed when it shows a violation, 0 when it shows none, 2 when the file
 * is malformed or no longer fits the spec (the step and the difference are named).
 */
import type { Command } from 'commander';
import { explain } from '../../trace/explain.ts';
import { formatTrace, replayItf, ReplayError, shouldColor, type ReplayResult } from '../../trace/index.ts';
import { EXIT } from '../errors.ts';
import { addModelOptions, configFromFlags, modelFlagsGiven, type ModelFlags } from '../model-options.ts';
import { readJsonFile } from '../read-input.ts';
import { configUnder, recordedConfig, replayUnder, type UnderResult } from '../replay-under.ts';
import { CHECK_DEFAULTS, describeConfig } from '../search-report.ts';

/** The flags of `replay`: the model flags give the configuration of a trace that carries none (one Quint wrote), or the other model to run a trace's actions on. */
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

/** Replays `json` as recorded, naming the file in an error. */
function replayRecorded(file: string, json: unknown, options: Parameters<typeof replayItf>[1]): ReplayResult {
  try {
    return replayItf(json, options);
  } catch (e) {
    if (e instanceof ReplayError) throw new ReplayError(`${file}: ${e.message}`, e.step);
    throw e;
  }
}

/** Replays `file` and prints the outcome; returns the exit code. With model flags on a trace that carries its model, the trace's actions run on the model the flags give. */
export function replayFile(file: string, flags: ReplayFlags): number {
  const json = readJsonFile(file, 'trace file');
  const recorded = recordedConfig(json);
  if (modelFlagsGiven(flags) && recorded !== undefined) return replayUnderFlags(file, json, recorded, flags);
  const result = replayRecorded(file, json, modelFlagsGiven(flags) ? { config: configFromFlags(flags, CHECK_DEFAULTS) } : {});
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

/** The trace's own verdict, in words: "it violates Isolation at step 9 under its own model (...)". */
function ownVerdict(own: ReplayResult): string {
  const what = own.outcome === 'violation' ? `${own.invariant} is violated at step ${own.step}` : 'no invariant is violated';
  return `as recorded, under ${describeConfig(own.model.config)}: ${what}`;
}

/** The outcome on the flags' model, in words. */
function underText(file: string, under: UnderResult): string {
  const where = `replay: under ${describeConfig(under.model.config)}:`;
  switch (under.outcome) {
    case 'violation':
      return `${where} every step of ${file} up to step ${under.step} is enabled; ${under.invariant} is violated at step ${under.step}`;
    case 'ok':
      return `${where} every step of ${file} is enabled (${under.trace.steps.length} steps) and no invariant is violated`;
    case 'not-enabled':
      return `${where} step ${under.step} of ${file}, ${under.action}, is not enabled (${under.why}), so the trace cannot happen there; no invariant is violated before it`;
  }
}

/** `replay FILE` with model flags: the trace as recorded first, then its actions on the flags' model. */
function replayUnderFlags(file: string, json: unknown, recorded: Record<string, unknown>, flags: ReplayFlags): number {
  const own = replayRecorded(file, json, {});
  const under = replayUnder(json, own.model, own.trace, configUnder(recorded, flags));
  if (flags.json === true) {
    const ownJson = { outcome: own.outcome, ...(own.outcome === 'violation' ? { invariant: own.invariant, step: own.step } : {}) };
    const extra = under.outcome === 'violation' ? { invariant: under.invariant, step: under.step } : under.outcome === 'not-enabled' ? { step: under.step, action: under.action, why: under.why } : {};
    process.stdout.write(`${JSON.stringify({ file, under: under.model.config, outcome: under.outcome, ...extra, steps: under.trace.steps.length, recorded: ownJson }, null, 2)}\n`);
  } else {
    if (under.outcome === 'violation') process.stdout.write(`${formatTrace(under.model, under.trace, { color: shouldColor(process.stdout), violation: under.invariant })}\n\n`);
    process.stdout.write(`${underText(file, under)}\n(${ownVerdict(own)})\n`);
  }
  return under.outcome === 'violation' ? EXIT.violation : EXIT.ok;
}

/** Registers the command. */
export function register(program: Command): void {
  addModelOptions(
    program
      .command('replay')
      .description('re-execute a trace saved with --itf (or written by Quint) against the spec; exit 1 on a violation, 0 on none, 2 when it no longer fits. With model flags (--variant length-fix, say), run its actions on that model instead: does it still fit, and does it still violate an invariant?')
      .argument('<file>', 'an ITF trace written by pagecheck (--itf FILE) or by Quint (then give its model with the model flags)'),
  )
    .option('--json', 'print the outcome as JSON')
    .action((file: string, flags: ReplayFlags) => {
      process.exitCode = replayFile(file, flags);
    });
}
