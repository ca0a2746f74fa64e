/**
 * `pagecheck mbt`: the model-based test of the page pool (impl/) against the spec, from the
 * command line. fast-check drives both with the same random interleavings; after every
 * step the pool must accept exactly what the spec enables, its abstracted state must equal
 * the spec's, and `Isolation` must hold. A failure is shrunk and printed as a trace, with
 * the same printer as the checker, and with the command line that replays it exactly.
 * Exit 1 on a failure, 0 on a pass, 2 on bad input.
 */
import type { Command } from 'commander';
import { actionLabel, FAULTS, incidentConfig, refusalOf, run, type Config, type Coverage } from '../../spec/index.ts';
import { EVENTS, LIFE_EVENTS, LOAD_EVENTS, POOL_COVERAGE, realPool, runMbt, splitPath, type MbtResult } from '../../impl/index.ts';
import { beginWork } from '../interrupt.ts';
import type { PoolAllocator } from '../../impl/allocator-order.ts';
import { formatTrace, shouldColor } from '../../trace/index.ts';
import { describeConfig, describeRandom, hasLife, replayLine, type MbtFlags, type Target } from './mbt-words.ts';
import { EXIT, UsageError } from '../errors.ts';
import { addModelOptions, configFromFlags } from '../model-options.ts';
import { ADAPTER_COVERAGE, AdapterError, runAdapterMbt, type AdapterMbtResult } from '../../conformance/adapter/index.ts';

/** The seed when none is given: fixed, so that two runs without `--seed` agree, and printed. */
export const DEFAULT_SEED = 20260827;

/** A whole number flag in `[min, max]`, or a {@link UsageError} naming the flag and the value. */
function whole(flag: string, text: string, min: number, max: number): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** The configuration, when `covered` (the pool's coverage, or the adapter protocol's) covers every feature of it; a {@link UsageError} naming the first it does not. */
function refuseUncovered(covered: Coverage, config: Config): Config {
  const refused = refusalOf(covered, config);
  if (refused !== undefined) throw new UsageError(refused);
  return config;
}

/** The configuration's order as the pool names it; `any` never gets here, since no coverage covers it. */
function poolOrder(allocator: Config['allocator']): PoolAllocator | undefined {
  if (allocator === 'any') throw new Error('mbt: allocator any was not refused');
  return allocator;
}

/** What to test, from the flags: random configurations with `--random` (faults random unless given), else the model flags over the minimal incident; refused where `covered` does not follow it. */
function targetFrom(flags: MbtFlags, covered: Coverage): Target {
  if (flags.random !== true) {
    // The minimal incident by default; the faults are left to the variant's own.
    const { pages, prefillLimit, requests } = incidentConfig('buggy');
    return { config: refuseUncovered(covered, configFromFlags(flags, { pages, prefillLimit, requests })) };
  }
  for (const [flag, value] of [['--config', flags.config], ['--pages', flags.pages], ['--prefill-limit', flags.prefillLimit], ['--requests', flags.requests], ['--prefix-pages', flags.prefixPages]] as const) {
    if (value !== undefined) throw new UsageError(`${flag}: cannot be combined with --random, which draws its own configurations`);
  }
  // Decode the variant and faults through the same schema as every other command.
  // --radix is left out here: it needs a request with a prefix, which only the drawn configurations have; --loadback needs one to decode at all.
  const { radix: _radix, ...plain } = flags;
  const sizes = flags.loadback === true ? { requests: '2:p', pages: '2', prefillLimit: '2' } : { requests: '1', pages: '1', prefillLimit: '1' };
  const decoded = refuseUncovered(covered, configFromFlags({ ...plain, ...sizes }));
  const order = poolOrder(decoded.allocator);
  return {
    variant: decoded.variant,
    ...(flags.faults === undefined ? {} : { faults: decoded.faults }),
    ...(order === undefined ? {} : { allocators: [order] }),
    // Random configurations then draw eviction on or off.
    ...(flags.eviction === true ? { eviction: true } : {}),
    // --page-size above 1: random configurations with token slots of that page size (lengths in tokens), in the order --allocator names.
    ...(decoded.pageSize !== undefined && decoded.pageSize > 1 ? { slots: true, slotSizes: [decoded.pageSize] } : {}),
    // A request's life on D: the switches given are on in every configuration, the others off.
    ...(hasLife(decoded) ? { life: { decodeSteps: [decoded.decodeSteps ?? 1], tableGrowth: decoded.tableGrowth === true, retraction: decoded.retraction === true } } : {}),
    // D's state slots and metadata rows in every configuration, their faults drawn unless --faults names them.
    ...(decoded.stateSlots === true ? { stateSlots: true } : {}),
    // A draft model's KV in every configuration (retraction off), draft-stale drawn unless --faults names the faults.
    ...(decoded.draft === true ? { draft: true } : {}),
    // The host tier of D's prefix cache in every configuration (retraction off), its faults drawn unless --faults names them.
    ...(decoded.loadback === true ? { loadback: true } : {}),
    // P's source pages in every configuration, with torn writes (where a write is in flight), source-early-free drawn unless --faults names the faults.
    ...(decoded.sourcePages === true ? { sourcePages: true, torn: true } : {}),
    // The prefix cache a radix tree (eviction on) in every configuration with a prefix, its prefixes flat, longer or nested.
    ...(flags.radix === true ? { radix: true } : {}),
  };
}

/** The result as the JSON that `--json` prints. */
function resultJson(result: MbtResult, replay: string | undefined): unknown {
  const f = result.failure;
  const trace = f === undefined ? [] : f.actions.map((a) => actionLabel(f.model, a));
  return {
    verdict: result.verdict,
    runs: result.runs,
    seed: result.seed,
    path: f?.path ?? null,
    property: f?.property ?? null,
    trace,
    traceLength: trace.length,
    ...(f === undefined ? { events: result.events } : { message: f.message, commands: f.commands, config: f.config, replay }),
  };
}

/** Runs the test and prints the outcome; returns the exit code. */
export function mbtCommand(flags: MbtFlags): number {
  const runs = whole('--runs', flags.runs ?? '1000', 1, 10_000_000);
  const seed = flags.seed === undefined ? DEFAULT_SEED : whole('--seed', flags.seed, 0, 0x7fffffff);
  const maxCommands = whole('--max-commands', flags.maxCommands ?? '40', 1, 1000);
  try {
    splitPath(flags.path);
  } catch (e) {
    throw new UsageError(`--path: ${(e as Error).message}`);
  }
  const target = targetFrom(flags, POOL_COVERAGE);
  let result: MbtResult;
  try {
    const work = beginWork('mbt', ['runs']);
    let ran = 0;
    const makePool: typeof realPool = (options) => (work.report({ runs: ++ran }), realPool(options));
    result = runMbt({ ...target, runs, seed, maxCommands, makePool, isolation: flags.isolation !== false, ...(flags.path === undefined ? {} : { path: flags.path }) });
  } catch (e) {
    if (e instanceof RangeError && flags.path !== undefined) {
      throw new UsageError(`--path: ${e.message} (a path replays with the --seed and flags printed beside it)`);
    }
    throw e;
  }
  const f = result.failure;
  const replay = f === undefined ? undefined : replayLine(flags, result.seed, f.path);
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  if (flags.json === true) {
    out(JSON.stringify(resultJson(result, replay), null, 2));
    return f === undefined ? EXIT.ok : EXIT.violation;
  }
  const what =
    'config' in target
      ? describeConfig(target.config)
      : describeRandom(target);
  out(`pagecheck mbt: ${what}; seed ${result.seed}${flags.seed === undefined ? ' (the default)' : ''}`);
  if (f === undefined && flags.path !== undefined) {
    out(`pass: the case at --path ${flags.path} passes now`);
    return EXIT.ok;
  }
  if (f === undefined) {
    out(`pass: ${result.runs} runs; the pool accepted exactly what the spec enables, refined it at every step${flags.isolation === false ? ' (Isolation not checked: --no-isolation)' : ', and Isolation held'}`);
    const life = [...LIFE_EVENTS, ...LOAD_EVENTS].flatMap((e) => (result.events[e] === undefined ? [] : [`${e} ${result.events[e]}`]));
    out(`exercised: ${[...EVENTS.map((e) => `${e} ${result.events[e]}`), ...life].join(', ')}`);
    return EXIT.ok;
  }
  out(`FAIL at run ${result.runs}: ${f.property}; shrunk in ${f.shrinks} steps to ${f.commands.length} commands (${f.actions.length} enabled)`);
  if (!('config' in target)) out(`configuration: ${describeConfig(f.config)}`);
  const built = run(f.model, f.actions);
  if ('trace' in built) {
    const violation = f.property === 'Isolation' ? { violation: 'Isolation' } : {};
    out('');
    out(formatTrace(f.model, built.trace, { color: shouldColor(process.stdout), ...violation }));
    out('');
  }
  out(f.message);
  out(`replay: ${replay ?? ''}`);
  return EXIT.violation;
}

/** Runs the test against an adapter process and prints the outcome; returns the exit code. */
export async function mbtAdapterCommand(flags: MbtFlags & { readonly adapter: string }): Promise<number> {
  const runs = whole('--runs', flags.runs ?? '1000', 1, 10_000_000);
  const seed = flags.seed === undefined ? DEFAULT_SEED : whole('--seed', flags.seed, 0, 0x7fffffff);
  const maxCommands = whole('--max-commands', flags.maxCommands ?? '40', 1, 1000);
  const timeoutMs = whole('--adapter-timeout', flags.adapterTimeout ?? '5000', 1, 3_600_000);
  try {
    splitPath(flags.path);
  } catch (e) {
    throw new UsageError(`--path: ${(e as Error).message}`);
  }
  // The pool's limits do not apply: an adapter implements what it implements, and the comparison says so; the protocol's do.
  const target = targetFrom(flags, ADAPTER_COVERAGE);
  let result: AdapterMbtResult;
  try {
    result = await runAdapterMbt({ ...target, command: flags.adapter, runs, seed, maxCommands, timeoutMs, isolation: flags.isolation !== false, ...(flags.path === undefined ? {} : { path: flags.path }) });
  } catch (e) {
    if (e instanceof AdapterError) throw new UsageError(e.message);
    if (e instanceof RangeError && flags.path !== undefined) throw new UsageError(`--path: ${e.message}`);
    throw e;
  }
  const f = result.failure;
  const replay = f === undefined ? undefined : replayLine(flags, result.seed, f.path);
  const out = (line: string): boolean => process.stdout.write(`${line}\n`);
  if (flags.json === true) {
    const trace = f === undefined ? [] : f.actions.map((a) => actionLabel(f.model, a));
    out(JSON.stringify({ verdict: result.verdict, runs: result.runs, seed: result.seed, adapter: result.adapter, observes: result.observes, path: f?.path ?? null, property: f?.property ?? null, trace, traceLength: trace.length, ...(f === undefined ? {} : { message: f.message, commands: f.commands, config: f.config, replay }) }, null, 2));
    return f === undefined ? EXIT.ok : EXIT.violation;
  }
  const what = 'config' in target ? describeConfig(target.config) : `random configurations, variant ${target.variant}, faults ${target.faults?.join(',') ?? 'random'}`;
  out(`pagecheck mbt --adapter: ${result.adapter}, observing ${result.observes.join(', ')}; ${what}; seed ${result.seed}${flags.seed === undefined ? ' (the default)' : ''}`);
  if (f === undefined) {
    out(`pass: ${result.runs} runs; the adapter accepted exactly what the spec enables, reported the spec's state after every step${flags.isolation === false ? ' (Isolation not checked: --no-isolation)' : ', and Isolation held'}`);
    return EXIT.ok;
  }
  out(`FAIL at run ${result.runs}: ${f.property}; shrunk in ${f.shrinks} steps to ${f.commands.length} commands (${f.actions.length} enabled)`);
  if (!('config' in target)) out(`configuration: ${describeConfig(f.config)}`);
  const built = run(f.model, f.actions);
  if ('trace' in built) {
    out('');
    out(formatTrace(f.model, built.trace, { color: shouldColor(process.stdout), ...(f.property === 'Isolation' ? { violation: 'Isolation' } : {}) }));
    out('');
  }
  out(f.message);
  out(`replay: ${replay ?? ''}`);
  return EXIT.violation;
}

/** Registers the command. */
export function register(program: Command): void {
  addModelOptions(
    program
      .command('mbt')
      .description('model-based test of the page pool against the spec (fast-check); a failure prints as a shrunk trace with its replay line'),
  )
    .option('--no-isolation', "do not hold the spec's state to Isolation after every step: for a variant whose spec itself leaks (buggy; owner-check with token slots, whose stubs leave P's stale data), where refinement and enabledness are what is tested")
    .option('--random', `random configurations (up to 6 pages, 1 to 4 requests, prefixes) instead of one; faults random unless --faults (${FAULTS.join(', ')}); with --page-size N of 2 or more, token slots, N per page (lengths in tokens), in the order --allocator names`)
    .option('--runs <n>', 'number of runs (default 1000)')
    .option('--seed <s>', `fast-check seed, 0 to 2147483647 (default ${DEFAULT_SEED})`)
    .option('--path <path>', 'replay exactly the counterexample at this path (printed on failure; use with the same --seed)')
    .option('--max-commands <n>', 'longest command sequence of a run (default 40)')
    .option('--json', 'print the result as JSON')
    .option('--adapter <command>', 'test an implementation in another process instead of the pool: the command line of its adapter (docs/ADAPTER.md), e.g. "python3 examples/adapters/python/adapter.py"')
    .option('--adapter-timeout <ms>', 'longest wait for one answer of the adapter (default 5000)')
    .action(async (flags: MbtFlags) => {
      const adapter = flags.adapter;
      process.exitCode = adapter === undefined ? mbtCommand(flags) : await mbtAdapterCommand({ ...flags, adapter });
    });
}
