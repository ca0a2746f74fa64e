/**
 * The validator: reads the logs as one merged stream, keeps the set of states the system
 * may be in, and applies each event to every one of them, as TLA+ trace validation does by
 * a breadth-first search constrained by the log. The set stays one state as long as every
 * hidden step commutes with what the log shows next: a write whose request still holds its
 * pages touches no one else's, and it lands when its request's next event needs it. A
 * write whose request has timed out (fault `early-free`) may land in pages now held by
 * another request; there each event on those pages forks the set: landed before it, or not
 * yet. Identical states are merged.
 *
 * Verdicts: `conforms` (the spec can produce the whole log, no invariant breaks in any state
 * it may be in), `violation` (the spec can produce the log up to an event after which some
 * state it may be in breaks an invariant), `deviation` (no state it may be in accepts an
 * event). Bad input stops the run with the file, line and field.
 */
import { Either } from 'effect';
import { DEFAULT_FAULTS, LIMITS, Ph, PHASES, type Action } from '../spec/index.ts';
import { decodeLine, VALIDATOR_FAULTS, type ConfigEvent, type LogModel, type RequestEvent } from './events.ts';
import { mergedLines, type SourceLine } from './lines.ts';
import { PageRuns } from './pages.ts';
import { LoggedPool, tableOf } from './pool.ts';
import { applyEvent, land, type EventContext, type Possible, type StepResult } from './step.ts';
import { DECODE_AGAIN, EVENT_TABLE } from './table.ts';
import { RequestWindow } from './window.ts';

/** Arrivals up to which a log keeps the spec's own trace of every request (the model held 16 before its widths grew; past it a leak is projected onto the requests involved, which stays fast on a long log). */
const SPEC_TRACE_ARRIVALS = 16;

// Phase codes read once: a namespace re-export is a getter call on every access.
const { timedOut: TIMED_OUT, freed: FREED, released: RELEASED, landed: LANDED } = Ph;

/** A problem with the input: the file, line and field, and what is wrong. */
export class LogInputError extends Error {
  constructor(where: SourceLine | undefined, field: string, message: string) {
    super(`${where === undefined ? '' : `${where.file}:${where.line}: `}${field === '' ? '' : `${field}: `}${message}`);
    this.name = 'LogInputError';
  }
}

/** What the user gave besides the logs. */
export interface ValidateOptions {
  /** The log files, merged by time. */
  readonly files: readonly string[];
  /** Lines to read instead of the files (a log built in memory). */
  readonly lines?: Iterable<SourceLine>;
  /** Model fields that override the logs' `config` event. */
  readonly overrides: Partial<LogModel>;
  /** Request slots: the most requests in flight at once. */
  readonly window: number;
  /** Most prefix groups. */
  readonly prefixes?: number;
  /** Whether decode's reads are held to `Integrity` too (every position read content written for it there); off by default, as in `check`. */
  readonly integrity?: boolean;
  /** Most states the set may hold before the run gives up. */
  readonly maxStates?: number;
  /** Called every 65,536 events. */
  readonly onProgress?: (events: number) => void;
}

/** Why one state refused the deviating event. */
export interface Refusal {
  /** The state's number in the set, 1-based. */
  readonly state: number;
  /** Why. */
  readonly why: string;
}

/** The outcome of a validation. */
export interface ValidationResult {
  /** The verdict. */
  readonly verdict: 'conforms' | 'violation' | 'deviation' | 'incomplete';
  /** Events read (the line of the verdict included). */
  readonly events: number;
  /** Requests that arrived. */
  readonly requests: number;
  /** Most states the set held at once. */
  readonly peakStates: number;
  /** The model the log was held against. */
  readonly model: LogModel | undefined;
  /** The line of the violation or deviation. */
  readonly at?: SourceLine;
  /** The invariant broken, for a violation. */
  readonly invariant?: string;
  /** What went wrong, in words. */
  readonly headline: readonly string[];
  /** For a deviation: why each state refused the event. */
  readonly refusals: readonly Refusal[];
  /** For a violation: the request whose step broke the invariant, and the pages it is about. */
  readonly victim?: { readonly id: string; readonly pages: readonly number[] };
  /** The log lines of the requests involved, in log order (the trace at any scale). */
  readonly story: ReadonlyArray<SourceLine & { readonly seq: number }>;
  /** For a log that conforms: the requests still in flight when it ends (not finished in every state it may be in), with their phase in the first; a log cut off mid-request shows here. */
  readonly unfinished?: ReadonlyArray<{ readonly id: string; readonly phase: string }>;
  /** For a log small enough for the spec: the arrivals (length, prefix) and the spec actions of the state shown. */
  readonly spec?: { readonly requests: ReadonlyArray<{ readonly id: string; readonly length: number; readonly prefix?: string }>; readonly actions: readonly Action[] };
}

/** The model from the config event and the flags; bad input when something is missing. */
function resolveModel(config: ConfigEvent | undefined, overrides: Partial<LogModel>, where: SourceLine): LogModel {
  const pages = overrides.pages ?? config?.pages;
  const prefillLimit = overrides.prefillLimit ?? config?.prefillLimit;
  if (pages === undefined || prefillLimit === undefined) {
    throw new LogInputError(where, '', 'no model: the log does not begin with a config event; give --config FILE, or --pages and --prefill-limit');
  }
  const variant = overrides.variant ?? config?.variant ?? 'buggy';
  const faults = overrides.faults ?? config?.faults ?? DEFAULT_FAULTS[variant];
  const unchecked = faults.filter((f) => !VALIDATOR_FAULTS.includes(f));
  if (unchecked.length > 0) {
    throw new LogInputError(where, 'faults', `validate-log does not check logs with ${unchecked.join(', ')} yet; it checks ${VALIDATOR_FAULTS.join(', ')}`);
  }
  return {
    pages,
    prefillLimit,
    pageSize: overrides.pageSize ?? config?.pageSize,
    variant,
    faults,
    allocator: overrides.allocator ?? config?.allocator ?? 'sorted',
    lengthRule: overrides.lengthRule ?? config?.lengthRule ?? 'gt',
    eviction: overrides.eviction ?? config?.eviction ?? false,
  };
}

const sameConfig = (a: ConfigEvent, b: ConfigEvent): boolean => {
  const { t: _a, ...x } = a;
  const { t: _b, ...y } = b;
  return JSON.stringify(x) === JSON.stringify(y);
};

/** Whether two states are the same (compared only when the set holds several). */
function samePossible(a: Possible, b: Possible): boolean {
  const p = a.pool;
  const q = b.pool;
  const eq = (x: ArrayLike<number>, y: ArrayLike<number>): boolean => {
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  };
  if (!eq(p.holder, q.holder) || !eq(p.data, q.data) || !eq(p.tag, q.tag) || !eq(p.phases, q.phases) || !eq(p.flags, q.flags) || !eq(p.readCounts, q.readCounts)) return false;
  if (a.pending.length !== b.pending.length || !a.pending.every((h, i) => h.slot === b.pending[i]?.slot)) return false;
  for (let s = 0; s < p.options.slots; s++) if (!eq(tableOf(p, s), tableOf(q, s))) return false;
  return true;
}

/** The states of `s` with each hidden step that may land on the event's pages landed before it, or not. */
function variants(ctx: EventContext, s: Possible): Possible[] {
  // Most events meet no detached write: test before building anything.
  if (!s.pending.some((h) => h.slot !== ctx.slot && s.pool.phase(h.slot) === TIMED_OUT)) return [s];
  const detached = s.pending.filter((h) => h.slot !== ctx.slot && s.pool.phase(h.slot) === TIMED_OUT);
  if (detached.length === 0) return [s];
  const touched = new Set(ctx.pages?.toArray() ?? tableOf(s.pool, ctx.slot));
  let out = [s];
  for (const h of detached) {
    if (!tableOf(s.pool, h.slot).some((p) => touched.has(p))) continue;
    out = out.flatMap((v) => {
      const landed: Possible = { pool: v.pool.fork(), pending: [...v.pending], path: v.path === undefined ? undefined : [...v.path] };
      const target = landed.pending.find((x) => x.slot === h.slot);
      return target !== undefined && land(ctx, landed, target) ? [v, landed] : [v];
    });
  }
  return out;
}

/** A line's outcome: keep reading, or the verdict. */
type Next = ValidationResult | undefined;

/** The validator's state between lines: the window, the model, the set of possible states. */
class Validator {
  private readonly window: RequestWindow;
  private readonly maxStates: number;
  private readonly prefixes: number;
  private config: ConfigEvent | undefined;
  private model: LogModel | undefined;
  private states: Possible[] = [];
  private peak = 1;
  /** Lines read. */
  events = 0;
  private readonly arrivals: Array<{ id: string; length: number; prefix?: string }> = [];

  constructor(private readonly options: ValidateOptions) {
    this.window = new RequestWindow(options.window);
    this.maxStates = options.maxStates ?? 1024;
    this.prefixes = options.prefixes ?? 64;
  }

  /** Reads one line. */
  line(line: SourceLine): Next {
    this.events++;
    if ((this.events & 0xffff) === 0) this.options.onProgress?.(this.events);
    const decoded = decodeLine(line.text);
    if (Either.isLeft(decoded)) throw new LogInputError(line, decoded.left.field, decoded.left.message);
    const event = decoded.right;
    if (event.kind === 'config') return this.configEvent(event, line);
    const model = this.model ?? this.start(line);
    const seq = this.events;
    if (event.kind === 'arrive') return this.arrive(event, { ...line, seq }, model);
    return this.step(event, { ...line, seq }, model);
  }

  /** The verdict at the end of the logs. */
  end(): ValidationResult {
    return this.result({ verdict: 'conforms', unfinished: this.unfinished(), ...this.specOf(this.states[0]) });
  }

  /** The requests whose slots are still held: not finished in every possible state, in the order they arrived. */
  private unfinished(): Array<{ id: string; phase: string }> {
    const first = this.states[0];
    const out: Array<{ id: string; phase: string; index: number }> = [];
    for (let slot = 0; slot < this.window.slots; slot++) {
      const info = this.window.info(slot);
      if (info !== undefined && !info.released) out.push({ id: info.id, phase: first === undefined ? 'new' : (PHASES[first.pool.phase(slot)] ?? 'new'), index: info.index });
    }
    return out.sort((a, b) => a.index - b.index).map(({ id, phase }) => ({ id, phase }));
  }

  private configEvent(event: ConfigEvent, line: SourceLine): Next {
    if (this.config !== undefined && !sameConfig(this.config, event)) throw new LogInputError(line, '', 'a second config event that differs from the first: the logs must describe one deployment');
    if (this.model !== undefined && this.config === undefined) throw new LogInputError(line, '', 'a config event after the first request event: it must come first');
    this.config = event;
    return undefined;
  }

  /** At the first request event: the model, and the one initial state. */
  private start(line: SourceLine): LogModel {
    const model = resolveModel(this.config, this.options.overrides, line);
    const { pages, prefillLimit, variant, faults, allocator, pageSize, lengthRule, eviction } = model;
    // Under `any` the log names the pages and the pool takes them; otherwise the pool's own order decides, and the log must agree.
    const order = allocator === 'any' ? {} : { allocator, ...(pageSize === undefined ? {} : { pageSize }) };
    const pool = new LoggedPool({ pages, prefillLimit, variant, faults, slots: this.options.window, maxLength: pages, prefixes: this.prefixes, lengthRule, eviction, ...order });
    this.states = [{ pool, pending: [], path: pages <= LIMITS.maxPages ? [] : undefined }];
    this.model = model;
    return model;
  }

  private arrive(e: Extract<RequestEvent, { kind: 'arrive' }>, line: SourceLine & { seq: number }, model: LogModel): Next {
    const known = this.window.slotOf(e.id);
    if (known >= 0) {
      // P and D may both log the arrival.
      this.window.info(known)?.lines.push(line);
      return undefined;
    }
    if (e.length === undefined && model.pageSize === undefined) throw new LogInputError(line, 'tokens', 'an arrival in tokens needs the page size: give pageSize in the config event, or --page-size');
    const length = e.length ?? Math.ceil((e.tokens ?? 1) / (model.pageSize ?? 1));
    if (length > model.pages) return this.result({ verdict: 'deviation', at: line, headline: [`${e.id} needs ${length} pages, more than the pool's ${model.pages}: the spec can never allocate it`] });
    const group = e.prefix === undefined ? -1 : this.window.groupOf(e.prefix, this.prefixes);
    if (group === -1 && e.prefix !== undefined) throw new LogInputError(line, 'prefix', `more than ${this.prefixes} distinct prefixes`);
    let slot: number;
    try {
      slot = this.window.arrive(e.id, length, group, e.tokens ?? length * (model.pageSize ?? 1));
    } catch (err) {
      throw new LogInputError(line, '', (err as Error).message);
    }
    this.window.info(slot)?.lines.push(line);
    // The spec's own trace needs every arrival, and only a log within the spec's bounds has one.
    if (this.window.arrived <= SPEC_TRACE_ARRIVALS) this.arrivals.push(e.prefix === undefined ? { id: e.id, length } : { id: e.id, length, prefix: e.prefix });
    else for (const s of this.states) s.path = undefined;
    return undefined;
  }

  /** Applies a request event to every possible state. */
  private step(e: RequestEvent, line: SourceLine & { seq: number }, model: LogModel): Next {
    const slot = this.window.slotOf(e.id);
    const info = this.window.info(slot);
    if (slot < 0 || info === undefined) {
      return this.result({ verdict: 'deviation', at: line, headline: [`${e.kind} for request ${JSON.stringify(e.id)}, which has not arrived (or finished long ago): the log must record its arrival first`] });
    }
    const rule = e.kind === 'decode' && (e.step ?? 0) > 0 ? DECODE_AGAIN : EVENT_TABLE[e.kind];
    // A request's history is its lifecycle; thousands of later decode steps would make it grow with the log.
    if (rule !== DECODE_AGAIN) info.lines.push(line);
    let pages: PageRuns | undefined;
    if ('pages' in e && e.pages !== undefined) {
      const runs = PageRuns.from(e.pages);
      if (!(runs instanceof PageRuns)) throw new LogInputError(line, runs.field, runs.message);
      pages = runs;
    }
    const ctx: EventContext = { event: e, rule, slot, info, pages, model, window: this.window, integrity: this.options.integrity === true };
    const next: Possible[] = [];
    const refusals: Refusal[] = [];
    let violation: { s: Possible; r: Extract<StepResult, { kind: 'violation' }> } | undefined;
    for (const s of this.states) {
      for (const v of variants(ctx, s)) {
        const r = applyEvent(ctx, v);
        if (r.kind === 'refused') refusals.push({ state: refusals.length + 1, why: r.why });
        else {
          if (r.kind === 'violation' && violation === undefined) violation = { s: v, r };
          if (!next.some((x) => samePossible(x, v))) next.push(v);
        }
      }
    }
    if (violation !== undefined) {
      const { invariant, headline, involved } = violation.r;
      return this.result({ verdict: 'violation', at: line, invariant, headline, story: this.storyOf(slot, involved), victim: { id: info.id, pages: violation.r.pages ?? [] }, ...this.specOf(violation.s) });
    }
    if (next.length === 0) {
      const headline = [`no state the system may be in accepts this event (${refusals.length === 1 ? 'one state' : `${refusals.length} states`})`];
      return this.result({ verdict: 'deviation', at: line, headline, refusals, story: this.storyOf(slot, []) });
    }
    this.states = next;
    if (next.length > this.peak) this.peak = next.length;
    if (next.length > this.maxStates) return this.result({ verdict: 'incomplete', at: line, headline: [`the set of possible states grew past ${this.maxStates}`] });
    if (finishedEverywhere(next, slot)) this.window.release(slot);
    return undefined;
  }

  private result(rest: Partial<ValidationResult> & Pick<ValidationResult, 'verdict'>): ValidationResult {
    return { events: this.events, requests: this.window.arrived, peakStates: this.peak, model: this.model, headline: [], refusals: [], story: [], ...rest };
  }

  /** The log lines of the slot's request and of the requests with these serials, in log order. */
  private storyOf(slot: number, serials: readonly number[]): Array<SourceLine & { seq: number }> {
    const infos = [this.window.info(slot), ...serials.map((x) => this.window.bySerial(x))];
    const seen = new Set<string>();
    const lines: Array<SourceLine & { seq: number }> = [];
    for (const info of infos) {
      if (info === undefined || seen.has(info.id)) continue;
      seen.add(info.id);
      lines.push(...info.lines);
    }
    return lines.sort((a, b) => a.seq - b.seq);
  }

  private specOf(s: Possible | undefined): Pick<ValidationResult, 'spec'> {
    return s?.path === undefined ? {} : { spec: { requests: [...this.arrivals], actions: [...s.path] } };
  }
}

/** A validation fed one line at a time (`validate-log --follow`): `line` returns the verdict as soon as the log proves one, `end` the verdict of the whole log. */
export interface LineValidator {
  /** Reads one line; a verdict once the log has proved one, else `undefined` (read on). */
  line(line: SourceLine): ValidationResult | undefined;
  /** The verdict when the log has ended without one. */
  end(): ValidationResult;
  /** Lines read so far. */
  readonly events: number;
}

/** A validator to feed line by line; `options.files` and `options.lines` are not read. */
export function lineValidator(options: ValidateOptions): LineValidator {
  return new Validator(options);
}

/** Runs the validator over the logs. */
export function validate(options: ValidateOptions): ValidationResult {
  const v = new Validator(options);
  for (const line of options.lines ?? mergedLines(options.files)) {
    const verdict = v.line(line);
    if (verdict !== undefined) return verdict;
  }
  return v.end();
}

/**
 * Whether the slot's request is finished in every possible state: only then may its slot
 * go to the next request. A state where it is not (a hidden step of it still to come)
 * still needs the slot, and its next event must find the request there.
 */
export function finishedEverywhere(states: readonly Possible[], slot: number): boolean {
  return states.every((s) => isDone(s, slot));
}

/** Whether the slot's request is finished in this state, with nothing of it pending. */
function isDone(s: Possible, slot: number): boolean {
  const phase = s.pool.phase(slot);
  const over = phase === FREED || phase === RELEASED || phase === LANDED;
  return over && !s.pending.some((h) => h.slot === slot);
}
