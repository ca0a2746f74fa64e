/**
 * `mbt --adapter`: the model-based test of an implementation in another process. fast-check
 * generates interleavings of the spec's actions (the same mix as the pool's test: a quarter
 * named actions, enabled or not, the rest the k-th enabled one); each is sent to the
 * adapter, and its answer is held against the spec after every step: it must accept exactly
 * what the spec enables, report the state the spec is in (as far as it observes it), and
 * `Isolation` must hold. A failing run is shrunk by fast-check; an adapter that fails as a
 * program ends the test with an {@link AdapterError} instead.
 */
import fc from 'fast-check';
import { actionLabel, compile, enabled, initial, Isolation, requestName, step, type Action, type ActionKind, type Config, type Fault, type Model, type State, type Variant } from '../../spec/index.ts';
import { configArbitrary, MAX_RANDOM_REQUESTS, MbtViolation, splitPath, type MbtFailure } from '../../impl/index.ts';
import { compareObserved } from './compare.ts';
import { ADAPTER_FAULTS, ADAPTER_KINDS, ADAPTER_VARIANTS } from './coverage.ts';
import { AdapterError, AdapterProcess } from './process.ts';
import { PROTOCOL_VERSION, type Observable } from './protocol.ts';

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
}

/** The spec side of a run. */
interface Side {
  readonly m: Model;
  s: State;
  readonly taken: Action[];
}

/** The adapter side. */
interface Real {
  readonly proc: AdapterProcess;
  readonly observes: ReadonlySet<Observable>;
  readonly timeoutMs: number;
}

/** Sends action `a` and holds the answer against the spec; throws an {@link MbtViolation}. */
async function runAction(model: Side, real: Real, a: Action): Promise<void> {
  const { m } = model;
  const label = actionLabel(m, a);
  const next = step(m, model.s, a);
  const answer = await real.proc.ask({ type: 'action', kind: a.kind, request: m.config.requests[a.r]?.name ?? requestName(a.r) }, real.timeoutMs);
  if (answer.accepted !== (next !== undefined)) {
    throw new MbtViolation('Enabledness', `the adapter ${answer.accepted ? 'accepted' : 'refused'} ${label}; the spec ${answer.accepted ? 'does not enable it' : 'enables it'}`);
  }
  if (next === undefined) return;
  model.s = next;
  model.taken.push(a);
  const diff = compareObserved(m, next, answer.state, real.observes);
  if (diff.length > 0) throw new MbtViolation('Refinement', `after ${label} the states differ:\n  ${diff.join('\n  ')}`);
  if (!Isolation.holds(m, next)) throw new MbtViolation('Isolation', `after ${label} a request has read another request's data`);
}

/** A named action, enabled or not. */
class NamedAction implements fc.AsyncCommand<Side, Real> {
  private label: string;
  constructor(readonly action: Action) {
    this.label = `${action.kind}(${requestName(action.r)})`;
  }
  check(model: Readonly<Side>): boolean {
    return this.action.r < model.m.n;
  }
  async run(model: Side, real: Real): Promise<void> {
    this.label = actionLabel(model.m, this.action);
    await runAction(model, real, this.action);
  }
  toString(): string {
    return this.label;
  }
}

/** The k-th enabled action (modulo their number). */
class EnabledAction implements fc.AsyncCommand<Side, Real> {
  private label: string;
  constructor(readonly k: number) {
    this.label = `enabled#${k}`;
  }
  check(): boolean {
    return true;
  }
  async run(model: Side, real: Real): Promise<void> {
    const choices = enabled(model.m, model.s);
    const a = choices[this.k % choices.length];
    if (a === undefined) return;
    this.label = actionLabel(model.m, a);
    await runAction(model, real, a);
  }
  toString(): string {
    return this.label;
  }
}

type Commands = Iterable<fc.AsyncCommand<Side, Real>>;

/** Random interleavings for up to `requests` requests. */
function commandsArbitrary(requests: number, maxCommands: number, replayPath: string | undefined): fc.Arbitrary<Commands> {
  const named = fc.record({ kind: fc.constantFrom<ActionKind>(...ADAPTER_KINDS), r: fc.nat({ max: requests - 1 }) }).map((a): fc.AsyncCommand<Side, Real> => new NamedAction(a));
  const live = fc.nat({ max: 63 }).map((k): fc.AsyncCommand<Side, Real> => new EnabledAction(k));
  return fc.commands([fc.oneof({ weight: 1, arbitrary: named }, { weight: 3, arbitrary: live })], { maxCommands, size: 'max', ...(replayPath === undefined ? {} : { replayPath }) });
}

/** Runs the test; the adapter is started once, reset before every run, and always reaped. */
export async function runAdapterMbt(options: AdapterMbtOptions): Promise<AdapterMbtResult> {
  const proc = new AdapterProcess(options.command);
  let fatal: AdapterError | undefined;
  try {
    const hello = await proc.ask({ type: 'hello', protocol: PROTOCOL_VERSION }, options.timeoutMs);
    const real: Real = { proc, observes: new Set(hello.observes), timeoutMs: options.timeoutMs };
    /** Resets the adapter for a run; an adapter failure is remembered, so that the test stops on it. */
    const setup = async (config: Config): Promise<{ model: Side; real: Real }> => {
      if (fatal !== undefined) throw fatal;
      const m = compile(config);
      try {
        await proc.ask({ type: 'reset', config: { ...config, allocator: config.allocator ?? 'sorted' } }, options.timeoutMs);
      } catch (e) {
        if (e instanceof AdapterError) fatal = e;
        throw e;
      }
      return { model: { m, s: initial(m), taken: [] }, real };
    };
    const guard = async (commands: Commands, model: Side, r: Real): Promise<void> => {
      for (const c of commands) {
        if (fatal !== undefined) throw fatal;
        if (!c.check(model)) continue;
        try {
          await c.run(model, r);
        } catch (e) {
          if (e instanceof AdapterError) fatal = e;
          throw e;
        }
      }
    };
    // Random configurations draw only the faults of the protocol's first version; a fixed configuration is sent as given.
    const drawn = options.variant === undefined ? fc.constantFrom(...ADAPTER_VARIANTS).chain((v) => configArbitrary(v, options.faults)) : configArbitrary(options.variant, options.faults);
    const configs = options.config === undefined ? drawn.map((c) => ({ ...c, faults: c.faults.filter((f) => ADAPTER_FAULTS.includes(f)) })) : fc.constant(options.config);
    const requests = options.config === undefined ? MAX_RANDOM_REQUESTS : Math.max(1, options.config.requests.length);
    const [path, replayPath] = splitPath(options.path);
    const property = fc.asyncProperty(configs, commandsArbitrary(requests, options.maxCommands, replayPath), async (config, commands) => {
      const { model, real: r } = await setup(config);
      await guard(commands, model, r);
    });
    const details = await fc.check(property, { numRuns: options.runs, seed: options.seed, ...(path === undefined ? {} : { path }) });
    if (fatal !== undefined) throw fatal;
    const base = { runs: details.numRuns, seed: details.seed, adapter: hello.adapter ?? options.command, observes: [...hello.observes] };
    if (!details.failed || details.counterexample === null) return { verdict: 'pass', ...base };
    const [config, commands] = details.counterexample;
    // Run the shrunk case once more, by hand, to learn what ran and what the spec took.
    const { model } = await setup(config);
    const ran: string[] = [];
    let error: unknown = details.errorInstance;
    for (const c of commands) {
      if (!c.check(model)) continue;
      try {
        await c.run(model, real);
        ran.push(String(c));
      } catch (e) {
        ran.push(String(c));
        if (e instanceof AdapterError) throw e;
        error = e;
        break;
      }
    }
    const replay = /replayPath="([^"]*)"/.exec(String(commands))?.[1];
    const failure: AdapterFailure = {
      property: error instanceof MbtViolation ? error.property : 'Refinement',
      message: error instanceof Error ? error.message : String(error),
      config,
      model: model.m,
      actions: model.taken,
      commands: ran,
      path: replay === undefined || replay === '' ? (details.counterexamplePath ?? '') : `${details.counterexamplePath ?? ''}@${replay}`,
      shrinks: details.numShrinks,
    };
    return { verdict: 'fail', ...base, failure };
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
