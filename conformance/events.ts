/**
 * The log format, one JSON object per line, decoded with Schema: first the envelope (which
 * kind of event), then the fields of that kind, so that a bad line is reported by the one
 * field that is wrong. docs/LOG-FORMAT.md is the user's description of the same schema.
 * Fields the format does not know are ignored: a serving system may log more.
 */
import { Either, ParseResult, Schema } from 'effect';
import { checksOf, coveredFaults, FAULTS, formatPath, lacking, SWITCH_DOCS, SWITCHES, VARIANTS, WholeNumber, type Fault, type Variant } from '../spec/index.ts';
import { VALIDATOR_COVERAGE } from './coverage.ts';

const show = (value: unknown): string => {
  // JSON reads 1e400 as Infinity, which JSON.stringify would print as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large';
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
};

/** The largest pool a log may describe, in pages. */
export const MAX_LOG_PAGES = 1 << 24;

/** The faults whose logs the validator can hold against the spec, in the catalogue's order (conformance/coverage.ts); the part landings of `torn-write` are the spec's alone (and the pool's, which lands every write whole). */
export const VALIDATOR_FAULTS: readonly Fault[] = coveredFaults(VALIDATOR_COVERAGE);

/**
 * A `config` object's switch that the validator does not follow, turned on by its own
 * field (`tableGrowth: true`): refused by name, not ignored with the other unknown fields,
 * since a log has no events for what it adds. Derived from the coverage, so a switch the
 * spec gains is refused here too.
 */
function refusedSwitch(json: object): LineIssue | undefined {
  for (const s of SWITCHES) {
    const field = SWITCH_DOCS[s].field;
    if (field === undefined || VALIDATOR_COVERAGE.covers(s) || !Object.hasOwn(json, field) || (json as Record<string, unknown>)[field] === false) continue;
    return { field, message: `${VALIDATOR_COVERAGE.consumer} ${lacking(VALIDATOR_COVERAGE, s)}; check such a configuration with \`pagecheck check ${checksOf(s)}\`` };
  }
  return undefined;
}

/** The allocator orders a log can be held against: `sorted`, `sglang` and `lifo` (the page ids must be those the order hands out; docs/ALLOCATOR.md) and `any` (they must only be free). */
export const ALLOCATORS = ['sorted', 'sglang', 'lifo', 'any'] as const;

/** One of {@link ALLOCATORS}. */
export type Allocator = (typeof ALLOCATORS)[number];

/** Every event kind of the format, in the order a request's life goes through them. */
export const EVENT_KINDS = ['config', 'arrive', 'allocate', 'posted', 'done', 'refuse', 'handoff', 'decode', 'fail', 'timeout', 'free', 'insert', 'evict'] as const;

/** One of {@link EVENT_KINDS}. */
export type EventKind = (typeof EVENT_KINDS)[number];

const literal = <const T extends readonly string[]>(values: T) =>
  Schema.Literal(...values).annotations({
    message: (issue) => ({ message: `expected one of ${values.join(', ')}, got ${show(issue.actual)}`, override: true }),
  });

const PageId = WholeNumber(0, MAX_LOG_PAGES - 1, 'a page id');

/** A page list: ids in table order, where `[from, to]` stands for every id from `from` to `to` inclusive. */
const PageList = Schema.Array(Schema.Union(PageId, Schema.Tuple(PageId, PageId))).annotations({
  message: (issue) => ({ message: `expected a list of page ids such as [3, 4, [10, 20]], got ${show(issue.actual)}`, override: false }),
});

const Id = Schema.String.pipe(
  Schema.filter((s) => s.length > 0 && s.length <= 256, { message: (issue) => `expected a request id: a non-empty string of at most 256 characters, got ${show(issue.actual)}` }),
).annotations({ message: (issue) => ({ message: `expected a request id (a string), got ${show(issue.actual)}`, override: false }) });

const Time = Schema.Number.pipe(Schema.filter((x) => Number.isFinite(x), { message: (issue) => `expected a time: a finite number, got ${show(issue.actual)}` })).annotations({
  message: (issue) => ({ message: `expected a time: a number, got ${show(issue.actual)}`, override: false }),
});

const common = {
  id: Id,
  t: Schema.optionalWith(Time, { exact: true }),
  side: Schema.optionalWith(literal(['P', 'D'] as const), { exact: true }),
};

const withPages = { ...common, pages: PageList };
const maybePages = { ...common, pages: Schema.optionalWith(PageList, { exact: true }) };

/** The `config` event: the model the log is to be held against. */
export const ConfigEventSchema = Schema.Struct({
  kind: Schema.Literal('config'),
  t: Schema.optionalWith(Time, { exact: true }),
  pages: WholeNumber(1, MAX_LOG_PAGES, 'a number of pages'),
  pageSize: Schema.optionalWith(WholeNumber(1, 1 << 20, 'tokens per page'), { exact: true }),
  prefillLimit: WholeNumber(0, MAX_LOG_PAGES, 'a prefill limit in pages'),
  variant: Schema.optionalWith(literal(VARIANTS), { exact: true }),
  faults: Schema.optionalWith(Schema.Array(literal(FAULTS)), { exact: true }),
  allocator: Schema.optionalWith(literal(ALLOCATORS), { exact: true }),
  lengthRule: Schema.optionalWith(literal(['gt', 'ge'] as const), { exact: true }),
  eviction: Schema.optionalWith(Schema.Boolean, { exact: true }),
});

/** The schema of each event kind. */
const SCHEMAS = {
  config: ConfigEventSchema,
  arrive: Schema.Struct({
    kind: Schema.Literal('arrive'),
    ...common,
    length: Schema.optionalWith(WholeNumber(1, MAX_LOG_PAGES, 'a length in pages'), { exact: true }),
    tokens: Schema.optionalWith(WholeNumber(1, Number.MAX_SAFE_INTEGER, 'a prompt length in tokens'), { exact: true }),
    prefix: Schema.optionalWith(Schema.String, { exact: true }),
  }),
  allocate: Schema.Struct({ kind: Schema.Literal('allocate'), ...withPages }),
  posted: Schema.Struct({ kind: Schema.Literal('posted'), ...maybePages }),
  done: Schema.Struct({ kind: Schema.Literal('done'), ...common }),
  refuse: Schema.Struct({ kind: Schema.Literal('refuse'), ...common }),
  handoff: Schema.Struct({ kind: Schema.Literal('handoff'), ...common }),
  decode: Schema.Struct({ kind: Schema.Literal('decode'), ...maybePages, step: Schema.optionalWith(WholeNumber(0, Number.MAX_SAFE_INTEGER, 'a decode step'), { exact: true }) }),
  fail: Schema.Struct({ kind: Schema.Literal('fail'), ...common }),
  timeout: Schema.Struct({ kind: Schema.Literal('timeout'), ...common }),
  free: Schema.Struct({ kind: Schema.Literal('free'), ...maybePages }),
  insert: Schema.Struct({ kind: Schema.Literal('insert'), ...maybePages }),
  evict: Schema.Struct({ kind: Schema.Literal('evict'), ...maybePages }),
} as const satisfies Record<EventKind, Schema.Schema.AnyNoContext>;

/** A decoded `config` event. */
export type ConfigEvent = typeof ConfigEventSchema.Type;

/** A decoded request event (every kind but `config`), page ranges not yet expanded. */
export type RequestEvent = Exclude<{ [K in EventKind]: (typeof SCHEMAS)[K]['Type'] }[EventKind], ConfigEvent>;

/** Any decoded event. */
export type LogEvent = ConfigEvent | RequestEvent;

/** One problem with a line: the field and what is wrong with it. */
export interface LineIssue {
  /** The field, such as `pages[2]`; empty for the whole line. */
  readonly field: string;
  /** What is wrong, naming the value found. */
  readonly message: string;
}

const Envelope = Schema.Struct({ kind: literal(EVENT_KINDS) });
const options = { errors: 'first', onExcessProperty: 'ignore' } as const;
const decodeEnvelope = Schema.decodeUnknownEither(Envelope, options);
const DECODERS = Object.fromEntries(EVENT_KINDS.map((k) => [k, Schema.decodeUnknownEither(SCHEMAS[k] as Schema.Schema<LogEvent, unknown>, options)])) as Record<
  EventKind,
  (u: unknown) => Either.Either<LogEvent, ParseResult.ParseError>
>;

const firstIssue = (error: ParseResult.ParseError): LineIssue => {
  const [i] = ParseResult.ArrayFormatter.formatErrorSync(error);
  return { field: i === undefined ? '' : formatPath(i.path), message: i?.message ?? 'invalid event' };
};

/** Decodes one line of text: the event, or the field that is wrong. */
export function decodeLine(text: string): Either.Either<LogEvent, LineIssue> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return Either.left({ field: '', message: `not valid JSON (${(e as Error).message})` });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return Either.left({ field: '', message: `expected a JSON object, got ${show(json)}` });
  // The kind picks the decoder; the envelope's schema only words the error for a bad kind.
  const kind = (json as { kind?: unknown }).kind;
  const decoder = typeof kind === 'string' && Object.hasOwn(DECODERS, kind) ? DECODERS[kind as EventKind] : undefined;
  if (decoder === undefined) {
    const envelope = decodeEnvelope(json);
    return Either.left(Either.isLeft(envelope) ? firstIssue(envelope.left) : { field: 'kind', message: `unknown kind ${show(kind)}` });
  }
  const event = decoder(json);
  if (Either.isLeft(event)) return Either.left(firstIssue(event.left));
  const e = event.right;
  if (e.kind === 'config') {
    const refused = refusedSwitch(json);
    if (refused !== undefined) return Either.left(refused);
    const faults = e.faults ?? [];
    const twice = faults.findIndex((f, i) => faults.indexOf(f) !== i);
    if (twice >= 0) return Either.left({ field: `faults[${twice}]`, message: `fault ${show(faults[twice])} is named twice` });
  }
  if (e.kind === 'arrive' && (e.length === undefined) === (e.tokens === undefined)) {
    return Either.left({ field: 'length', message: 'expected exactly one of "length" (pages) and "tokens"' });
  }
  return Either.right(e);
}

/** Compresses page ids into the list form, runs of consecutive ids as ranges: what the log writer emits. */
export function compressPages(pages: ArrayLike<number>, from = 0, to = pages.length): Array<number | [number, number]> {
  const out: Array<number | [number, number]> = [];
  let i = from;
  while (i < to) {
    const start = pages[i] ?? 0;
    let j = i;
    while (j + 1 < to && (pages[j + 1] ?? 0) === (pages[j] ?? 0) + 1) j++;
    const end = pages[j] ?? 0;
    out.push(j - i >= 2 ? [start, end] : start);
    if (j - i === 1) out.push(end);
    i = j + 1;
  }
  return out;
}

/** The model a log is held against: the `config` event's fields, flags applied, defaults filled. */
export interface LogModel {
  /** D's pages. */
  readonly pages: number;
  /** Tokens per page (to turn an arrival's `tokens` into pages); unknown when neither the log nor the flags say. */
  readonly pageSize: number | undefined;
  /** The longest prompt, in pages, that P really computes. */
  readonly prefillLimit: number;
  /** The variant. */
  readonly variant: Variant;
  /** The faults switched on. */
  readonly faults: readonly Fault[];
  /** Which page ids an allocation may take. */
  readonly allocator: Allocator;
  /** When P finds a prompt too long: `gt` (longer than its limit) or `ge` (SGLang's `validate_input_length`: at least its limit), in tokens when the log gives them. */
  readonly lengthRule: 'gt' | 'ge';
  /** Whether the prefix cache evicts unlocked cached pages when an allocation finds too few free pages (the `evict` event). */
  readonly eviction: boolean;
}

/** Decodes a model given as an object (a `--config` file): the `config` event's fields, `kind` optional. */
export function decodeConfigObject(input: unknown): Either.Either<ConfigEvent, LineIssue> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return Either.left({ field: '', message: `expected a JSON object, got ${show(input)}` });
  const r = DECODERS.config({ kind: 'config', ...input });
  if (Either.isLeft(r)) return Either.left(firstIssue(r.left));
  const refused = refusedSwitch(input);
  if (refused !== undefined) return Either.left(refused);
  return r.right.kind === 'config' ? Either.right(r.right) : Either.left({ field: 'kind', message: 'expected a config' });
}
