/**
 * `pagecheck check`: explores every interleaving of a configuration breadth-first and
 * prints the verdict, the figures of the search and the shortest counterexample. With no
 * model flags it checks the minimal incident. Exit 0 holds, 1 violation, 2 bad input, 3 incomplete.
 */
import type { Command } from 'commander';
import { availableParallelism, loadavg } from 'node:os';
import { check, checkParallel, DEADLOCK, type CheckOptions, type CheckResult, type ModelFactory, type Violation, type WitnessResult } from '../../checker/index.ts';
import { actionLabel, allActions, type Action, compile, DEFAULT_INVARIANTS, INVARIANTS, LIMITS, type Config, type Model } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { porOffReason } from '../../binding/por.ts';
import { checkTraceFiles, formatTrace, shouldColor, writeTraceFiles } from '../../trace/index.ts';
import { EXIT, EXIT_HELP, UsageError } from '../errors.ts';
import { addModelOptions, configFromFlags, type ModelFlags } from '../model-options.ts';
import { actionsIn, CHECK_DEFAULTS, count, describeConfig, parseInvariants, replayCommand, trivialWitnesses, unreachedWitnesses } from '../search-report.ts';
import { beginWork, keptOnMainThread, mainThreadStates } from '../interrupt.ts';
import { configWarnings } from '../warnings.ts';
import { createProgress } from '../progress.ts';

/** The flags of `check`, as commander hands them over. */
interface CheckFlags extends ModelFlags {
  /** False with `--no-symmetry`. */
  readonly symmetry: boolean;
  /** False with `--no-deadlock`. */
  readonly deadlock: boolean;
  /** True with `--por`, false with `--no-por`, absent otherwise (on where the model offers it). */
  readonly por?: boolean;
  /** `--workers N`. */
  readonly workers?: string;
  /** `--max-states N`. */
  readonly maxStates?: string;
  /** `--continue`. */
  readonly continue?: boolean;
  /** `--invariant A,B`. */
  readonly invariant?: string;
  /** `--json`. */
  readonly json?: boolean;
  /** `--itf FILE`. */
  readonly itf?: string;
  /** `--mermaid FILE`. */
  readonly mermaid?: string;
  /** `--html FILE`. */
  readonly html?: string;
  /** `--force`: overwrite trace files pagecheck has no record of writing. */
  readonly force?: boolean;
}

/** `--max-states` as a number: a positive whole number, or a {@link UsageError} naming the flag and value. */
export function parseMaxStates(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || value < 1 || !Number.isSafeInteger(value)) {
    throw new UsageError(`--max-states: expected a positive whole number, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** A search timed by the caller: the checker itself reads no clock. */
export interface TimedResult {
  /** What the checker found. */
  readonly result: CheckResult<Action>;
  /** Wall time of the search. */
  readonly elapsedMs: number;
  /** Distinct states per second of wall time. */
  readonly statesPerSecond: number;
}

/** How worker threads build the spec's model: `binding/checked-model.ts`'s `createModel`, given the configuration as JSON. */
export function specFactory(config: Config): ModelFactory {
  // The compiled package has the module as JavaScript beside this file's own extension.
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return { module: new URL(`../../binding/checked-model.${ext}`, import.meta.url).href, config };
}

/**
 * The threads a search takes when `--workers` is not given: one per core that the load
 * average leaves free, at least one. A level of the parallel search waits for its slowest
 * thread, so a thread that must share its core with another process slows every level:
 * on this 2-core machine under a load of 4, two workers took 4.1 s where one took 2.6
 * (docs/MEASURED.md). Small searches never start a thread (`parallelFrom`).
 */
export function autoWorkers(cores: number = availableParallelism(), load: number = loadavg()[0] ?? 0): number {
  return Math.max(1, Math.min(cores, cores - Math.round(load)));
}

/** `--workers` as a number: default {@link autoWorkers}; a whole number from 1 to 256, or a {@link UsageError}. */
export function parseWorkers(text: string | undefined): number {
  if (text === undefined) return autoWorkers();
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > 256) throw new UsageError(`--workers: expected a whole number from 1 to 256, got ${JSON.stringify(text)}`);
  return value;
}

/** Runs the checker on `m` with `workers` threads (one: in this thread) and a progress line (on a TTY, unless `quiet`), timing it. */
export async function timedCheck(m: Model, options: CheckOptions, quiet: boolean, workers = 1): Promise<TimedResult> {
  const progress = createProgress('checking: {states} states, queue {queue}, depth {depth}, {rate} states/s', quiet);
  const started = performance.now();
  const work = beginWork('check', ['states', 'depth']);
  const withProgress: CheckOptions = {
    ...options,
    onProgress: (p) => {
      work.report(p);
      const seconds = (performance.now() - started) / 1000;
      progress.update({ states: count(p.states), queue: count(p.queue), depth: p.depth, rate: count(p.states / Math.max(seconds, 1e-3)) });
    },
  };
  // Under the main thread's budget (interrupt.ts) the search runs on this thread alone, and moves to a worker past it.
  const budget = mainThreadStates();
  const result =
    budget !== undefined
      ? keptOnMainThread(check(checkedModel(m), { ...withProgress, maxStates: Math.min(budget, options.maxStates ?? budget) }), options.maxStates, work)
      : workers === 1
        ? check(checkedModel(m), withProgress)
        : await checkParallel(checkedModel(m), specFactory(m.config), { ...withProgress, workers });
  progress.stop();
  const elapsedMs = performance.now() - started;
  return { result, elapsedMs, statesPerSecond: result.distinctStates / Math.max(elapsedMs / 1000, 1e-6) };
}

/** The result as the object `--json` prints. */
function resultJson(m: Model, config: Config, timed: TimedResult, maxStates: number | undefined, workers: number): unknown {
  const { result } = timed;
  const first = result.violations[0];
  const labels = (v: Violation<Action>): string[] => v.trace.steps.map((s) => actionLabel(m, s.action));
  const unreached = unreachedWitnesses(result.witnesses);
  return {
    verdict: result.verdict,
    invariant: first?.invariant ?? null,
    distinctStates: result.distinctStates,
    depth: result.depth,
    traceLength: first === undefined ? null : first.trace.steps.length,
    trace: first === undefined ? [] : labels(first),
    elapsedMs: Math.round(timed.elapsedMs * 10) / 10,
    statesPerSecond: Math.round(timed.statesPerSecond),
    workers,
    symmetry: result.symmetry,
    por: porJson(m, result),
    witnesses: result.witnesses,
    bytesPerState: Math.round(result.bytesPerState * 10) / 10,
    maxStates: maxStates ?? null,
    config,
    violations: result.violations.map((v) => ({ invariant: v.invariant, traceLength: v.trace.steps.length, trace: labels(v) })),
    warnings: [
      ...configWarnings(m),
      ...unreached.map((w) => `witness ${w} applies but was not reached`),
      ...trivialWitnesses(result.witnesses).map((w) => `witness ${w} is trivial: true in the initial state or in every state explored`),
    ],
  };
}

/** What `--json` says of partial-order reduction: whether it was in effect (and why not), and what it did. */
function porJson(m: Model, result: CheckResult<Action>): unknown {
  const r = result.reduction;
  if (r === undefined) return { inEffect: false, offReason: porOffReason(m) ?? 'not asked for (--no-por)' };
  return { inEffect: true, reducedStates: r.states, reducedDepth: r.depth, reducedViolations: r.violations, plainStates: r.plainStates ?? null };
}

/** The reductions in words, for the distinct-states line: `symmetry on, partial-order reduction on`. */
function reductionsText(m: Model, result: CheckResult<Action>): string {
  const off = porOffReason(m);
  const por = result.reduction !== undefined ? 'partial-order reduction on' : off === undefined ? 'partial-order reduction off' : `partial-order reduction off under ${m.radix ? 'radix' : 'retraction'}`;
  return `symmetry ${result.symmetry ? 'on' : 'off'}, ${por}`;
}

/** What the reduction did when the plain search found its violations again, in a sentence; undefined otherwise. */
function reshortened(result: CheckResult<Action>): string | undefined {
  const r = result.reduction;
  if (r === undefined || r.plainStates === undefined) return undefined;
  const met = r.violations.map((v) => `${v.invariant} at depth ${v.depth}`).join(', ');
  return `reduced search: ${met} after ${count(r.states)} states; shortest trace found again without it (${count(r.plainStates)} states)`;
}

/** The result in words, with the counterexample(s). */
function resultText(m: Model, config: Config, timed: TimedResult, flags: { maxStates: number | undefined; keepGoing: boolean; color: boolean; deadlock: boolean }): string {
  const { maxStates, color } = flags;
  const { result } = timed;
  const paint = (code: string, s: string): string => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  const first = result.violations[0];
  const verdict =
    result.verdict === 'violation'
      ? paint('1;31', `VIOLATION of ${result.violations.map((v) => v.invariant).join(', ')}`)
      : result.verdict === 'holds'
        ? paint('1;32', 'HOLDS')
        : paint('1;33', `INCOMPLETE: stopped at --max-states ${count(maxStates ?? 0)}; no violation among the states explored`);
  const complete = result.verdict === 'holds' || (result.verdict === 'violation' && flags.keepGoing && maxStates === undefined);
  const lines = [
    `pagecheck check  ${describeConfig(config)}`,
    `verdict          ${verdict}`,
    `invariant        ${first?.invariant ?? 'none violated'}${first === undefined ? '' : ` (shortest counterexample: ${actionsIn(first.trace.steps.length)})`}`,
    `distinct states  ${count(result.distinctStates)} (${reductionsText(m, result)})`,
    ...(reshortened(result) === undefined ? [] : [`reduction        ${reshortened(result)!}`]),
    `depth            ${result.depth}`,
    `time             ${timed.elapsedMs.toFixed(1)} ms, ${count(timed.statesPerSecond)} states/s, ${result.bytesPerState.toFixed(1)} bytes/state`,
    `witnesses        ${witnessLine(result.witnesses, paint)}`,
  ];
  for (const w of configWarnings(m)) lines.push(paint('1;33', `warning: ${w}`));
  for (const w of unreachedWitnesses(result.witnesses)) {
    const why = complete ? 'the invariants may hold vacuously' : 'the search stopped before the whole space was explored';
    lines.push(paint('1;33', `warning: witness ${w} applies here but was not reached (${why})`));
  }
  for (const w of trivialWitnesses(result.witnesses)) {
    lines.push(paint('1;33', `warning: witness ${w} is trivial: true in the initial state or in every state explored, so it witnesses nothing`));
  }
  for (const v of result.violations) {
    lines.push('', `counterexample: ${v.invariant} (${actionsIn(v.trace.steps.length)})`, formatTrace(m, v.trace, { color, violation: v.invariant }));
  }
  // A search without deadlock checking replays without it: under tableGrowth a deadlock can come before the leak.
  const replayFlags = first === undefined || first.invariant === DEADLOCK ? [] : ['--invariant', first.invariant, ...(flags.deadlock ? [] : ['--no-deadlock'])];
  if (first !== undefined) lines.push('', `replay: ${replayCommand(config, replayFlags)}`);
  return lines.join('\n');
}

/** `DecodeSucceeds ✓  FailsLoudly ✗`; witnesses that do not apply are left out. */
function witnessLine(witnesses: readonly WitnessResult[], paint: (code: string, s: string) => string): string {
  const applicable = witnesses.filter((w) => w.applies);
  if (applicable.length === 0) return 'none apply';
  return applicable.map((w) => (w.reached ? `${w.name} ${w.trivial ? paint('1;33', 'TRIVIAL') : paint('32', 'reached')}` : `${w.name} ${paint('1;33', 'NOT reached')}`)).join(', ');
}

/** Runs `check` with parsed flags; returns the exit code. */
export async function runCheck(flags: CheckFlags): Promise<number> {
  const workers = parseWorkers(flags.workers);
  const maxStates = parseMaxStates(flags.maxStates);
  const invariants = parseInvariants(flags.invariant);
  const config = configFromFlags(flags, CHECK_DEFAULTS);
  const m = compile(config);
  // The search stores an action index in a byte; the model itself holds more requests (simulate walks them).
  const actions = allActions(m).length;
  if (actions > LIMITS.maxActions) throw new UsageError(`--requests: ${actions} actions, more than the ${LIMITS.maxActions} the checker indexes (an action index is a byte); use fewer requests, or simulate`);
  const json = flags.json === true;
  // Asked for by name where the model offers none: said, not refused (the search is the same without it).
  const porOff = flags.por === true ? porOffReason(m) : undefined;
  if (porOff !== undefined && !json) process.stderr.write(`pagecheck: --por: off here: ${porOff}\n`);
  const files = { ...(flags.itf === undefined ? {} : { itf: flags.itf }), ...(flags.mermaid === undefined ? {} : { mermaid: flags.mermaid }), ...(flags.html === undefined ? {} : { html: flags.html }) };
  // Before the search, so that a bad path costs nothing and never hides the verdict.
  checkTraceFiles(files, flags.force === true);
  const timed = await timedCheck(
    m,
    {
      symmetry: flags.symmetry,
      deadlock: flags.deadlock,
      por: flags.por !== false,
      continueAfterViolation: flags.continue === true,
      ...(maxStates === undefined ? {} : { maxStates }),
      ...(invariants === undefined ? {} : { invariants }),
    },
    json,
    workers,
  );
  const { result } = timed;
  if (json) process.stdout.write(`${JSON.stringify(resultJson(m, config, timed, maxStates, workers), null, 2)}\n`);
  else {
    const text = resultText(m, config, timed, { maxStates, keepGoing: flags.continue === true, color: shouldColor(process.stdout), deadlock: flags.deadlock });
    process.stdout.write(`${text}\n`);
  }

  const first = result.violations[0];
  if (Object.keys(files).length > 0) {
    if (first === undefined) process.stderr.write('pagecheck: no counterexample, so no trace file was written\n');
    else {
      const checked = (invariants ?? DEFAULT_INVARIANTS).map((p) => p.name);
      const written = writeTraceFiles(m, first.trace, first.invariant, files, flags.force === true, checked);
      if (!json) process.stdout.write(`wrote ${written.join(', ')}\n`);
    }
  }
  return result.verdict === 'violation' ? EXIT.violation : result.verdict === 'incomplete' ? EXIT.incomplete : EXIT.ok;
}

/** Registers the command. */
export function register(program: Command): void {
  const cmd = program
    .command('check')
    .description(
      'explore every interleaving breadth-first; print the verdict and the shortest counterexample (exit 0 holds, 1 violation, 2 bad input, 3 incomplete, 130 interrupted). Without model flags: the minimal incident, 3 pages, prefill limit 2, requests 2,3',
    );
  addModelOptions(cmd)
    .option('--no-symmetry', 'explore the raw state space: do not merge states that differ only by renaming interchangeable requests')
    .option('--por', 'partial-order reduction (the default, where it is sound: not under retraction): expand only an ample set of each state\'s successors; the verdict, witnesses and shortest counterexample are the same (docs/POR.md)')
    .option('--no-por', 'expand every successor of every state')
    .option('--no-deadlock', 'do not report states where some request has not finished and no action is enabled (Deadlock)')
    .option('--max-states <n>', 'stop with verdict incomplete (exit 3) after this many distinct states')
    .option('--continue', 'record violations and keep exploring, so that the count is the whole reachable space')
    .option('--invariant <names>', `check only these invariants, comma-separated (${INVARIANTS.map((p) => p.name).join(', ')})`)
    .option('--json', 'print one JSON object instead of text')
    .option('--itf <file>', 'write the counterexample as an ITF trace (JSON; pagecheck replay reads it)')
    .option('--mermaid <file>', 'write the counterexample as a Mermaid sequence diagram')
    .option('--html <file>', 'write the counterexample as a self-contained HTML report')
    .option('--force', 'overwrite --itf/--mermaid/--html files that pagecheck has no record of writing')
    .option('--workers <n>', 'threads for the breadth-first search, this one and n - 1 workers (default: the cores the load average leaves free, at least one); the counts, verdict and traces are the same for every n')
    .addHelpText('after', EXIT_HELP)
    .action(async (flags: CheckFlags) => {
      process.exitCode = await runCheck(flags);
    });
}
