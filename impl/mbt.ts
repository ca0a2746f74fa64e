/**
 * The model-based test of the pool against the spec: fast-check generates configurations
 * and interleavings, runs them with `modelRun`, shrinks a failure, and this module turns
 * the shrunk counterexample back into spec actions, with the seed and path that replay it.
 * Used by the tests and by `pagecheck mbt`.
 */
import fc from 'fast-check';
import type { Action } from '../spec/actions.ts';
import type { Config, Fault, Variant } from '../spec/config.ts';
import { compile, type Model } from '../spec/model.ts';
import { initial } from '../spec/state.ts';
import type { PoolAllocator } from './allocator-order.ts';
import { noEvents, poolOptionsFor, realPool, type EventCounts, type PoolFactory } from './drive.ts';
import { configArbitrary, withDraft, withLoadback, withSourcePages, withStateSlots, withTorn, type LifeOptions } from './mbt-configs.ts';
import { withRadix } from './mbt-radix-configs.ts';
import { POOL_ACTION_KINDS, POOL_AUX_KINDS, POOL_DRAFT_KINDS, POOL_LIFE_KINDS, POOL_LOAD_KINDS, POOL_SOURCE_KINDS, POOL_TORN_KINDS } from './coverage.ts';
import {
  commandsArbitrary,
  MAX_RANDOM_REQUESTS,
  MbtViolation,
  type MbtModel,
  type MbtProperty,
  type MbtReal,
} from './mbt-commands.ts';

/** What to test. */
export interface MbtOptions {
  /** One fixed configuration; random small ones when left out. */
  readonly config?: Config;
  /** Random configurations from this arbitrary instead of the small ones (test/support/real-sizes.ts draws them at real sizes); `config` wins. */
  readonly configs?: fc.Arbitrary<Config>;
  /** With `configs`: the most requests one of its configurations has (default 16), which the named commands range over. */
  readonly maxRequests?: number;
  /** For random configurations: the variant (random when left out). */
  readonly variant?: Variant;
  /** For random configurations: the faults (a random subset when left out). */
  readonly faults?: readonly Fault[];
  /** For random configurations: the allocation orders drawn from (`sorted` only when left out). */
  readonly allocators?: readonly PoolAllocator[];
  /** For random configurations: whether eviction may be on (off when left out). */
  readonly eviction?: boolean;
  /** For random configurations: token slots (2 or 3 per page, lengths in tokens) instead of whole pages (off when left out). */
  readonly slots?: boolean;
  /** For random whole-page configurations with `sglang` among the orders: the page sizes drawn (1 and 4 when left out). */
  readonly pageSizes?: readonly number[];
  /** For random configurations with `slots`: the token slots per page drawn (2 and 3 when left out; `mbt --page-size N` gives N). */
  readonly slotSizes?: readonly number[];
  /** For random configurations: decode steps, growth and retraction (drawn as `life` says), with their actions among the named commands; off when left out. */
  readonly life?: LifeOptions;
  /** For random configurations: D's state slots and metadata rows in every one, their faults drawn with the others (off when left out). */
  readonly stateSlots?: boolean;
  /** For random configurations: a draft model's KV in every one (retraction off), `draft-stale` drawn with the other faults, `landDraft` among the named commands (off when left out). */
  readonly draft?: boolean;
  /** For random configurations: eviction on and the prefix cache a radix tree in every one with a prefix, its prefixes flat, longer or nested (off when left out). */
  readonly radix?: boolean;
  /** For random configurations: the host tier of D's prefix cache in every one (retraction off), its faults drawn with the others, `loadBack` and `evictHost` among the named commands (off when left out). */
  readonly loadback?: boolean;
  /** For random configurations: writes landing in parts (`torn-write`) in every one, `landData` and `landTag` among the named commands (off when left out). */
  readonly torn?: boolean;
  /** For random configurations: P's source pages in every one, `source-early-free` drawn with the other faults, `abortSource` among the named commands (off when left out). */
  readonly sourcePages?: boolean;
  /** Whether a failure is shrunk (default true); a test that only asks whether a mutant fails spares the shrinking. */
  readonly shrink?: boolean;
  /** Number of runs. */
  readonly runs: number;
  /** fast-check's seed. */
  readonly seed: number;
  /** A counterexample's path, as {@link MbtFailure.path} gives it: replays exactly that case (with the same seed). */
  readonly path?: string;
  /** Longest command sequence (default 40). */
  readonly maxCommands?: number;
  /** Whether `Isolation` is checked on the spec state (default true); off where the spec itself leaks. */
  readonly isolation?: boolean;
  /** The implementation under test (default: the real pool); tests pass mutants. */
  readonly makePool?: PoolFactory;
  /** Coverage counts to add to; a fresh set when left out. */
  readonly events?: EventCounts;
}

/** A shrunk counterexample. */
export interface MbtFailure {
  /** Which check failed. */
  readonly property: MbtProperty;
  /** What failed, in words (for a refinement failure, the fields that differ). */
  readonly message: string;
  /** The configuration of the counterexample. */
  readonly config: Config;
  /** Its compiled model. */
  readonly model: Model;
  /** The commands of the shrunk sequence that ran, as labels (disabled ones included). */
  readonly commands: readonly string[];
  /** The actions the spec took: the trace to print. */
  readonly actions: readonly Action[];
  /**
   * The path that replays it with the same seed: fast-check's path, then `@` and the
   * commands' replay path (which of the shrunk commands ran), as both are needed.
   */
  readonly path: string;
  /** Number of shrinking steps fast-check took. */
  readonly shrinks: number;
}

/** The outcome of a model-based test. */
export interface MbtResult {
  /** `pass` when every run passed. */
  readonly verdict: 'pass' | 'fail';
  /** Runs done (up to and including the first failure). */
  readonly runs: number;
  /** The seed used. */
  readonly seed: number;
  /** The counterexample, on failure. */
  readonly failure?: MbtFailure;
  /** What the runs exercised. */
  readonly events: EventCounts;
}

type Commands = Iterable<fc.Command<MbtModel, MbtReal>>;

/** A fresh model and pool for one run. */
function setup(m: Model, isolation: boolean, events: EventCounts, makePool: PoolFactory): { model: MbtModel; real: MbtReal } {
  return { model: { m, s: initial(m), taken: [], events, isolation }, real: { pool: makePool(poolOptionsFor(m)) } };
}

/** Runs the shrunk commands once more, by hand, to learn what ran and what the spec took; deterministic, so it fails as fast-check's run did. */
function replay(config: Config, commands: Commands, isolation: boolean, makePool: PoolFactory): { ran: string[]; actions: Action[]; error: unknown } {
  const m = compile(config);
  const { model, real } = setup(m, isolation, noEvents(), makePool);
  const ran: string[] = [];
  for (const c of commands) {
    if (!c.check(model)) continue;
    try {
      c.run(model, real);
      ran.push(String(c));
    } catch (e) {
      ran.push(String(c));
      return { ran, actions: model.taken, error: e };
    }
  }
  return { ran, actions: model.taken, error: undefined };
}

/** `path@replayPath` into its parts; throws a `RangeError` naming a malformed one. */
export function splitPath(text: string | undefined): [string | undefined, string | undefined] {
  if (text === undefined) return [undefined, undefined];
  const match = /^(\d+(?::\d+)*)(?:@([A-Za-z0-9+/]+:[A-Za-z0-9+/]*))?$/.exec(text.trim());
  if (!match) throw new RangeError(`expected a path such as 21:22:21@AB:C, got ${JSON.stringify(text)}`);
  return [match[1], match[2]];
}

/** fast-check's path and the commands' replay path, which fast-check prints in the commands' description. */
function joinPath(path: string, commands: Commands): string {
  const replayPath = /replayPath="([^"]*)"/.exec(String(commands))?.[1];
  return replayPath === undefined || replayPath === '' ? path : `${path}@${replayPath}`;
}

/** Whether the runs have a request's life on D (decode steps, growth, retraction), whose actions the named commands then name too. */
function livesOn(options: MbtOptions): boolean {
  const c = options.config;
  if (c === undefined) return options.life !== undefined;
  return (c.decodeSteps ?? 1) > 1 || c.tableGrowth === true || c.retraction === true;
}

/** Runs the model-based test; throws `RangeError` when `path` does not replay with this seed and these options. */
export function runMbt(options: MbtOptions): MbtResult {
  const isolation = options.isolation ?? true;
  const makePool = options.makePool ?? realPool;
  const events = options.events ?? noEvents();
  const drawn = options.configs ?? configArbitrary(options.variant, options.faults, options.allocators, options.eviction, options.slots, options.pageSizes, options.slotSizes, options.life);
  const slotted = options.stateSlots === true ? withStateSlots(drawn, options.faults) : drawn;
  const drafted = options.draft === true ? withDraft(slotted, options.faults) : slotted;
  const loaded = options.loadback === true ? withLoadback(drafted, options.faults) : drafted;
  const tornOn = options.torn === true ? withTorn(loaded, options.faults) : loaded;
  const sourced = options.sourcePages === true ? withSourcePages(tornOn, options.faults) : tornOn;
  const configs = options.config !== undefined ? fc.constant(options.config) : options.radix === true ? withRadix(sourced) : sourced;
  const random = options.configs === undefined ? MAX_RANDOM_REQUESTS : (options.maxRequests ?? 16);
  const requests = options.config === undefined ? random : Math.max(1, options.config.requests.length);
  const [path, replayPath] = splitPath(options.path);
  const drafts = (options.config?.draft ?? options.draft) === true ? POOL_DRAFT_KINDS : [];
  const loads = (options.config?.loadback ?? options.loadback) === true ? POOL_LOAD_KINDS : [];
  // Each named where its fault may be on: asked for (`torn`), or among the faults.
  const wire = (f: Fault): boolean => (options.config === undefined ? options.torn === true || options.faults?.includes(f) === true : options.config.faults.includes(f));
  const sources = (options.config?.sourcePages ?? options.sourcePages) === true ? POOL_SOURCE_KINDS : [];
  const torn = [...(wire('torn-write') ? POOL_TORN_KINDS : []), ...(wire('aux-torn') ? POOL_AUX_KINDS : []), ...sources];
  const commandsArb = commandsArbitrary(requests, options.maxCommands ?? 40, replayPath, [...POOL_ACTION_KINDS, ...(livesOn(options) ? POOL_LIFE_KINDS : []), ...drafts, ...loads, ...torn]);
  const property = fc.property(configs, commandsArb, (config, commands) => {
    const m = compile(config);
    fc.modelRun(() => setup(m, isolation, events, makePool), commands);
  });
  let details: fc.RunDetails<[Config, Commands]>;
  try {
    details = fc.check(property, { numRuns: options.runs, seed: options.seed, ...(options.shrink === false ? { endOnFailure: true } : {}), ...(path === undefined ? {} : { path }) });
  } catch (e) {
    // fast-check throws when a path does not fit the cases this seed and these options generate.
    if (options.path === undefined) throw e;
    throw new RangeError(`path ${options.path} does not replay with seed ${options.seed}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (options.path !== undefined && details.numRuns === 0) {
    throw new RangeError(`path ${options.path} selects no case with seed ${options.seed} and ${options.runs} runs`);
  }
  if (!details.failed || details.counterexample === null) {
    return { verdict: 'pass', runs: details.numRuns, seed: details.seed, events };
  }
  const [config, commands] = details.counterexample;
  const again = replay(config, commands, isolation, makePool);
  const error = again.error ?? details.errorInstance;
  const failure: MbtFailure = {
    property: error instanceof MbtViolation ? error.property : 'Refinement',
    message: error instanceof Error ? error.message : String(error),
    config,
    model: compile(config),
    commands: again.ran,
    actions: again.actions,
    path: joinPath(details.counterexamplePath ?? '', commands),
    shrinks: details.numShrinks,
  };
  return { verdict: 'fail', runs: details.numRuns, seed: details.seed, failure, events };
}
