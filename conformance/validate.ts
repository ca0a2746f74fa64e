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
import { LIMITS, PHASES } from '../spec/index.ts';
import { decodeLine, type ConfigEvent, type HostEvictEvent, type LogModel, type RequestEvent } from './events.ts';
import { mergedLines, type SourceLine } from './lines.ts';
import { caveatsOf, resolveModel, sameConfig } from './log-model.ts';
import { PageRuns } from './pages.ts';
import { LoggedPool } from './pool.ts';
import { ancestorsOf, prefixShape } from './prefix-groups.ts';
import { LoggedRadixPool } from './radix.ts';
import { finishedEverywhere, samePossible, variants } from './possible-set.ts';
import { applyEvent, type EventContext, type Possible, type StepResult } from './step.ts';
import { takeReleaseCall } from './step-release.ts';
import { hostEvicted } from './step-tier.ts';
import { DECODE_AGAIN, EVENT_TABLE, INSERT_AT_HANDOFF, INSERT_AT_HANDOFF_RADIX, type EventRule } from './table.ts';
import { LogInputError, type Refusal, type ValidateOptions, type ValidationResult } from './validate-result.ts';
import { RequestWindow } from './window.ts';

export { finishedEverywhere } from './possible-set.ts';
export { LogInputError, type Refusal, type ValidateOptions, type ValidationResult } from './validate-result.ts';

/** Arrivals up to which a log keeps the spec's own trace of every request (the model held 16 before its widths grew; past it a leak is projected onto the requests involved, which stays fast on a long log). */
const SPEC_TRACE_ARRIVALS = 16;

/** The actions whose configuration the spec's trace of a log does not rebuild (tableGrowth, retraction, decode steps): a log with them is told by its lines. */
const UNTRACED: ReadonlySet<string> = new Set(['grow', 'retract', 'resume']);

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
    if (event.kind === 'hostEvict') return this.hostEvict(event, line, model);
    // One literal of a fixed shape, not a spread (this runs a million times a log); a merged line keeps its time as before.
    const at = 'time' in line ? { ...line, seq: this.events } : { file: line.file, line: line.line, text: line.text, seq: this.events };
    return event.kind === 'arrive' ? this.arrive(event, at, model) : this.step(event, at, model);
  }

  /** The verdict at the end of the logs. */
  end(): ValidationResult {
    const caveats = this.model === undefined ? [] : caveatsOf(this.model);
    return this.result({ verdict: 'conforms', unfinished: this.unfinished(), ...(caveats.length === 0 ? {} : { caveats }), ...this.specOf(this.states[0]) });
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
    const { pages, prefillLimit, prefillTokens, variant, faults, allocator, pageSize, lengthRule, eviction, tableGrowth, retraction, radix, stateSlots, sourcePages, loadback, draft } = model;
    // Under `any` the log names the pages and the pool takes them; otherwise the pool's own order decides, and the log must agree.
    const order = allocator === 'any' ? {} : { allocator, ...(pageSize === undefined ? {} : { pageSize }) };
    const limit = prefillTokens === undefined ? {} : { prefillTokens };
    const shape = prefixShape(model, this.window, this.prefixes, line);
    const options = { pages, prefillLimit, ...limit, variant, faults, slots: this.options.window, maxLength: pages, prefixes: this.prefixes, ...shape, lengthRule, eviction, tableGrowth, retraction, stateSlots: stateSlots === true, sourcePages: sourcePages === true, loadback: loadback === true, draft: draft === true, ...order };
    // Under radix the logged pool's prefix cache is the tree (radix.ts), with the same grow, retract and resume.
    const pool = radix === true ? new LoggedRadixPool(options) : new LoggedPool(options);
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
    const group = e.prefix === undefined ? -1 : this.groupOf(e.prefix, model, line);
    const k = group < 0 ? 0 : (this.states[0]?.pool.prefixLengths[group] ?? 1);
    if (length <= k) return this.result({ verdict: 'deviation', at: line, headline: [`${e.id} has ${length} pages and a prefix of ${k}: the spec gives a request with a prefix a page of its own besides`] });
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

  /** A `hostEvict` line: about a prefix, not a request, applied to every state (step-tier.ts); a deviation when none accepts it. */
  private hostEvict(e: HostEvictEvent, line: SourceLine, model: LogModel): Next {
    const group = this.groupOf(e.prefix, model, line);
    const refusals: Refusal[] = [];
    const next = this.states.filter((s) => {
      const r = hostEvicted(s, group, e.prefix, this.window, model);
      if (r.kind === 'refused') refusals.push({ state: refusals.length + 1, why: r.why });
      return r.kind !== 'refused';
    });
    if (next.length === 0) return this.result({ verdict: 'deviation', at: line, headline: [`no state the system may be in accepts this event (${refusals.length === 1 ? 'one state' : `${refusals.length} states`})`], refusals });
    this.states = next;
    return undefined;
  }

  /** A prefix's group; under `radix` a nested name must be declared in the config's `prefixPages` (prefix-groups.ts). */
  private groupOf(prefix: string, model: LogModel, line: SourceLine): number {
    const known = this.window.groupOf(prefix, 0);
    if (known >= 0) return known;
    if (ancestorsOf(prefix, model.radix === true).length > 0) throw new LogInputError(line, 'prefix', `prefix "${prefix}" extends another: under radix a nested prefix is declared in the config event's prefixPages with its length`);
    const group = this.window.groupOf(prefix, this.prefixes);
    if (group === -1) throw new LogInputError(line, 'prefix', `more than ${this.prefixes} distinct prefixes`);
    return group;
  }

  /** Applies a request event to every possible state: the rule it follows, its pages, and a release's further allocator calls, which change nothing. */
  private step(e: RequestEvent, line: SourceLine & { seq: number }, model: LogModel): Next {
    const slot = this.window.slotOf(e.id);
    const info = this.window.info(slot);
    if (slot < 0 || info === undefined) {
      return this.result({ verdict: 'deviation', at: line, headline: [`${e.kind} for request ${JSON.stringify(e.id)}, which has not arrived (or finished long ago): the log must record its arrival first`] });
    }
    const rule = ruleOf(e, model.radix === true);
    // A request's history is its lifecycle; thousands of later decode steps would make it grow with the log.
    if (rule !== DECODE_AGAIN) info.lines.push(line);
    const pages = 'pages' in e && e.pages !== undefined ? runsOf(e.pages, 'pages', line) : undefined;
    const freed = e.kind === 'insert' && e.freed !== undefined ? runsOf(e.freed, 'freed', line) : undefined;
    // P's source pages a `posted` line names (config sourcePages): kept once, a fact of the log, the same in every state.
    const sources = e.kind === 'posted' && e.sources !== undefined ? runsOf(e.sources, 'sources', line).toArray() : undefined;
    if (sources !== undefined) info.sources = [...(info.sources ?? []), ...sources];
    // A further call of a release already taken (step-release.ts): a fact of the log, the same in every state.
    if (e.kind === 'free' && takeReleaseCall(info, pages)) return undefined;
    if (rule.role === 'action' && UNTRACED.has(rule.action)) for (const s of this.states) s.path = undefined;
    const base: EventContext = { event: e, rule, slot, info, pages, model, window: this.window, integrity: this.options.integrity === true };
    // The common line names neither: the literal as it is, not spreads of empty objects (a million a log).
    const ctx: EventContext = freed === undefined && sources === undefined ? base : { ...base, ...(freed === undefined ? {} : { freed }), ...(sources === undefined ? {} : { sources }) };
    return this.applyToAll(ctx, line);
  }

  /** The event on every possible state (and its forks): a violation in one of them, a deviation when all refuse it, else the next set. */
  private applyToAll(ctx: EventContext, line: SourceLine & { seq: number }): Next {
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
    const { slot, info } = ctx;
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


/** What a request event means: its kind's rule, except a later decode step and an insert at the handoff (the radix tree's, `radix`). */
function ruleOf(e: RequestEvent, radix: boolean): EventRule {
  if (e.kind === 'decode' && (e.step ?? 0) > 0) return DECODE_AGAIN;
  if (e.kind === 'insert' && e.at === 'handoff') return radix ? INSERT_AT_HANDOFF_RADIX : INSERT_AT_HANDOFF;
  return EVENT_TABLE[e.kind];
}

/** A logged page list (field `field`) as runs; bad input names the item that is wrong. */
function runsOf(list: ReadonlyArray<number | readonly [number, number]>, field: 'pages' | 'freed' | 'sources', line: SourceLine): PageRuns {
  const runs = PageRuns.from(list);
  if (!(runs instanceof PageRuns)) throw new LogInputError(line, runs.field.replace(/^pages/, field), runs.message);
  return runs;
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
