/**
 * `mbt --adapter`: the model-based test of an implementation in another process. fast-check
 * generates interleavings of the spec's actions (the same mix as the pool's test: a quarter
 * named actions, enabled or not, the rest the k-th enabled one, commands.ts); each is sent
 * to the adapter, and its answer is held against the spec after every step: it must accept
 * exactly what the spec enables, report the state the spec is in (as far as it observes
 * it), and `Isolation` must hold. A failing run is shrunk by fast-check and run once more
 * by hand to name what ran; an adapter that fails as a program ends the test with an
 * {@link AdapterError} instead.
 */
import fc from 'fast-check';
import { compile, initial, type ActionKind, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { configArbitrary, LIFE_DECODE_STEPS, MAX_RANDOM_REQUESTS, MbtViolation, splitPath, type LifeOptions, type MbtFailure, type PoolAllocator } from '../../impl/index.ts';
import { commandsArbitrary, type Commands, type Real, type Side } from './commands.ts';
import { ADAPTER_FAULTS, ADAPTER_LIFE_FAULTS, ADAPTER_VARIANTS, LIFE_VERSION, lifeFlags } from './coverage.ts';
import { AdapterError, AdapterProcess } from './process.ts';
import { PROTOCOL_VERSION, type Observable } from './protocol.ts';
import { resetConfig } from './reset.ts';

/** What to test. */
export interface AdapterMbtOptions {
  /** The adapter's command line. */
  readonly command: string;
  /** One configuration; random small ones when left out. */
  readonly config?: Config;
  /** For random configurations: the variant. */
  readonly variant?: Variant;
  /** For random configurations: the faults. */
  readonly faults?: readonly Fault[];
  /** For random configurations: the allocation orders drawn (`sorted` when left out). */
  readonly allocators?: readonly PoolAllocator[];
  /** For random configurations: token slots, lengths in tokens. */
  readonly slots?: boolean;
  /** With `slots`: the token slots per page drawn (`mbt --page-size N` gives N). */
  readonly slotSizes?: readonly number[];
  /** For random configurations: a request's life on D (decode steps, growth, retraction, as `life` draws them); off when left out. Needs protocol version 2. */
  readonly life?: LifeOptions;
  /** Runs. */
  readonly runs: number;
  /** fast-check's seed. */
  readonly seed: number;
  /** A counterexample's path to replay. */
  readonly path?: string;
  /** Longest command sequence. */
  readonly maxCommands: number;
  /** Longest wait for one answer, in milliseconds. */
  readonly timeoutMs: number;
  /** Whether `Isolation` is held on the spec's state after every step (default true). */
  readonly isolation?: boolean;
}

/** A shrunk counterexample: the same record as the pool's model-based test gives. */
export type AdapterFailure = MbtFailure;

/** The outcome. */
export interface AdapterMbtResult {
  /** `pass` or `fail`. */
  readonly verdict: 'pass' | 'fail';
  /** Runs done. */
  readonly runs: number;
  /** The seed. */
  readonly seed: number;
  /** What the adapter said it is. */
  readonly adapter: string;
  /** The fields it observes. */
  readonly observes: readonly Observable[];
  /** The counterexample. */
  readonly failure?: AdapterFailure;
  /** How many times the spec took each action kind over the runs (shrinking included): what the runs exercised. */
  readonly exercised: Readonly<Partial<Record<ActionKind, number>>>;
}

/** A session with one adapter: its process, what it observes, and the first failure of it as a program, which ends the test. */
class Session {
  fatal: AdapterError | undefined;
  /** The action kinds the spec took, counted over the runs. */
  readonly exercised: Partial<Record<ActionKind, number>> = {};
  constructor(
    readonly real: Real,
    private readonly timeoutMs: number,
  ) {}

  /** Runs `work` on the adapter, remembering a failure of the adapter as a program. */
  async guarded<T>(work: () => Promise<T>): Promise<T> {
    if (this.fatal !== undefined) throw this.fatal;
    try {
      return await work();
    } catch (e) {
      if (e instanceof AdapterError) this.fatal = e;
      throw e;
    }
  }

  /** Resets the adapter for a run of `config`: the spec side starts in its initial state. */
  async setup(config: Config): Promise<Side> {
    const m = compile(config);
    await this.guarded(() => this.real.proc.ask({ type: 'reset', config: resetConfig(config) }, this.timeoutMs));
    return { m, s: initial(m), taken: [] };
  }

  /** Runs the commands that apply, in order. */
  async runAll(commands: Commands, model: Side): Promise<void> {
    try {
      for (const c of commands) {
        if (!c.check(model)) continue;
        await this.guarded(() => c.run(model, this.real));
      }
    } finally {
      for (const a of model.taken) this.exercised[a.kind] = (this.exercised[a.kind] ?? 0) + 1;
    }
  }
}

/** The configurations to draw from: the one given, or random ones with the protocol's first faults (and with `life`, retraction's). */
function configsOf(options: AdapterMbtOptions): fc.Arbitrary<Config> {
  if (options.config !== undefined) return fc.constant(options.config);
  const draw = (v: Variant): fc.Arbitrary<Config> => configArbitrary(v, options.faults, options.allocators, false, options.slots, undefined, options.slotSizes, options.life);
  const drawn = options.variant === undefined ? fc.constantFrom(...ADAPTER_VARIANTS).chain(draw) : draw(options.variant);
  const faults = options.life === undefined ? ADAPTER_FAULTS : [...ADAPTER_FAULTS, ...ADAPTER_LIFE_FAULTS];
  return drawn.map((c) => ({ ...c, faults: c.faults.filter((f) => faults.includes(f)) }));
}

/** The parts of a request's life on D the runs may have, as flags: those of the configuration, or with random ones those `life` may switch on. */
function lifeOf(options: AdapterMbtOptions): string[] {
  if (options.config !== undefined) return lifeFlags(options.config);
  const life = options.life;
  if (life === undefined) return [];
  return lifeFlags({ decodeSteps: Math.max(...(life.decodeSteps ?? LIFE_DECODE_STEPS)), tableGrowth: life.tableGrowth !== false, retraction: life.retraction !== false });
}

/** The versioning rule (coverage.ts): a configuration with a request's life needs an adapter that answered version 2; an {@link AdapterError} (exit 2) names the flags otherwise. */
function refuseOlder(answered: number, life: readonly string[], command: string): void {
  if (life.length === 0 || answered >= LIFE_VERSION) return;
  throw new AdapterError(
    `adapter "${command}" answered hello with protocol ${answered}; ${life.join(', ')} (a request's life on D) need${life.length === 1 ? 's' : ''} protocol ${LIFE_VERSION} (docs/ADAPTER.md): a version-${answered} adapter is not sent them. Leave out ${life.join(' and ')}, or implement version ${LIFE_VERSION}`,
  );
}

/** The shrunk case run once more, by hand, to learn what ran and what the spec took. */
async function failureOf(session: Session, config: Config, commands: Commands, details: fc.RunDetails<[Config, Commands]>): Promise<AdapterFailure> {
  const model = await session.setup(config);
  const ran: string[] = [];
  let error: unknown = details.errorInstance;
  for (const c of commands) {
    if (!c.check(model)) continue;
    try {
      await c.run(model, session.real);
      ran.push(String(c));
    } catch (e) {
      ran.push(String(c));
      if (e instanceof AdapterError) throw e;
      error = e;
      break;
    }
  }
  const replay = /replayPath="([^"]*)"/.exec(String(commands))?.[1];
  return {
    property: error instanceof MbtViolation ? error.property : 'Refinement',
    message: error instanceof Error ? error.message : String(error),
    config,
    model: model.m,
    actions: model.taken,
    commands: ran,
    path: replay === undefined || replay === '' ? (details.counterexamplePath ?? '') : `${details.counterexamplePath ?? ''}@${replay}`,
    shrinks: details.numShrinks,
  };
}

/** Runs the test; the adapter is started once, reset before every run, and always reaped. */
export async function runAdapterMbt(options: AdapterMbtOptions): Promise<AdapterMbtResult> {
  const proc = new AdapterProcess(options.command);
  try {
    const hello = await proc.ask({ type: 'hello', protocol: PROTOCOL_VERSION }, options.timeoutMs);
    const life = lifeOf(options);
    refuseOlder(hello.protocol, life, options.command);
    const session = new Session({ proc, observes: new Set(hello.observes), timeoutMs: options.timeoutMs, isolation: options.isolation ?? true }, options.timeoutMs);
    const requests = options.config === undefined ? MAX_RANDOM_REQUESTS : Math.max(1, options.config.requests.length);
    const [path, replayPath] = splitPath(options.path);
    const property = fc.asyncProperty(configsOf(options), commandsArbitrary(requests, options.maxCommands, replayPath, life.length > 0), async (config, commands) => {
      await session.runAll(commands, await session.setup(config));
    });
    const details = await fc.check(property, { numRuns: options.runs, seed: options.seed, ...(path === undefined ? {} : { path }) });
    if (session.fatal !== undefined) throw session.fatal;
    const base = { runs: details.numRuns, seed: details.seed, adapter: hello.adapter ?? options.command, observes: [...hello.observes], exercised: session.exercised };
    if (!details.failed || details.counterexample === null) return { verdict: 'pass', ...base };
    const [config, commands] = details.counterexample;
    return { verdict: 'fail', ...base, failure: await failureOf(session, config, commands, details) };
  } finally {
    if (!proc.done) {
      try {
        await proc.ask({ type: 'bye' }, Math.min(options.timeoutMs, 1000));
      } catch {
        // An adapter that does not say goodbye is killed below all the same.
      }
    }
    await proc.close();
  }
}
