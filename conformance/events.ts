/**
 * The log format, one JSON object per line, decoded with Schema: first the envelope (which
 * kind of event), then the fields of that kind, so that a bad line is reported by the one
 * field that is wrong. docs/LOG-FORMAT.md is the user's description of the same schema.
 * Fields the format does not know are ignored: a serving system may log more.
 */
import { Either, ParseResult, Schema } from 'effect';
import { coveredFaults, WholeNumber, type Fault } from '../spec/index.ts';
import { VALIDATOR_COVERAGE } from './coverage.ts';
import { decodeConfigEvent, type ConfigEvent } from './config-event.ts';
import { fastDecode } from './fast-decode.ts';
import { firstIssue, Id, literal, MAX_LOG_PAGES, PageList, show, Time, type LineIssue } from './schema-parts.ts';

export { ALLOCATORS, ConfigEventSchema, decodeConfigObject, limitTokensOf, type Allocator, type ConfigEvent, type LogModel } from './config-event.ts';
export { MAX_LOG_PAGES, type LineIssue } from './schema-parts.ts';

/**
 * The faults whose logs the validator can hold against the spec, in the catalogue's order
 * (conformance/coverage.ts). `torn-write` is among them for the variants without an owner
 * check only (validate.ts refuses it with one): there a write's parts are its content
 * alone, and landing each write whole reaches every verdict its parts could
 * (docs/LOG-FORMAT.md says why).
 */
export const VALIDATOR_FAULTS: readonly Fault[] = coveredFaults(VALIDATOR_COVERAGE);

/** Every event kind of the format, in the order a request's life goes through them. */
export const EVENT_KINDS = ['config', 'arrive', 'allocFail', 'allocate', 'posted', 'load', 'done', 'loaded', 'abort', 'refuse', 'abortCommit', 'handoff', 'grow', 'decode', 'fail', 'retract', 'offload', 'resume', 'timeout', 'free', 'slotFree', 'sourceFree', 'insert', 'evict', 'hostEvict'] as const;

/** One of {@link EVENT_KINDS}. */
export type EventKind = (typeof EVENT_KINDS)[number];

/** Where in a request's life the prefix cache took its pages: at the handoff (`cache_unfinished_req`) or at its end (`cache_finished_req`). */
export const INSERT_POINTS = ['handoff', 'finish'] as const;

const common = {
  id: Id,
  t: Schema.optionalWith(Time, { exact: true }),
  side: Schema.optionalWith(literal(['P', 'D'] as const), { exact: true }),
};

const withPages = { ...common, pages: PageList };
const maybePages = { ...common, pages: Schema.optionalWith(PageList, { exact: true }) };
/** A state slot or metadata row id (config `stateSlots`): SGLang's `MambaPool` index or metadata buffer index. */
const SlotId = WholeNumber(0, Number.MAX_SAFE_INTEGER, 'a slot index');
const maybeSlot = Schema.optionalWith(SlotId, { exact: true });
const maybeTokens = Schema.optionalWith(WholeNumber(1, Number.MAX_SAFE_INTEGER, 'a length in tokens'), { exact: true });
const plain = <K extends string>(kind: K) => Schema.Struct({ kind: Schema.Literal(kind), ...common });
const paged = <K extends string>(kind: K) => Schema.Struct({ kind: Schema.Literal(kind), ...maybePages });

/** The schema of each request event kind. */
const SCHEMAS = {
  arrive: Schema.Struct({
    kind: Schema.Literal('arrive'),
    ...common,
    length: Schema.optionalWith(WholeNumber(1, MAX_LOG_PAGES, 'a length in pages'), { exact: true }),
    tokens: maybeTokens,
    prefix: Schema.optionalWith(Schema.String, { exact: true }),
  }),
  allocFail: Schema.Struct({ kind: Schema.Literal('allocFail'), ...common, tokens: maybeTokens }),
  // `stateSlot`, `metadataRow`: the ids D took for the request (config `stateSlots`).
  allocate: Schema.Struct({ kind: Schema.Literal('allocate'), ...withPages, stateSlot: maybeSlot, metadataRow: maybeSlot }),
  // D posted a load from host memory into the request's prefix pages (config `loadback`; `init_load_back` → `load_back`): `pages` are those pages.
  load: paged('load'),
  // `sources`: P's own pages the chunk is read from (config `sourcePages`).
  posted: Schema.Struct({ kind: Schema.Literal('posted'), ...maybePages, sources: Schema.optionalWith(PageList, { exact: true }) }),
  done: plain('done'),
  // The load from host memory was acknowledged (`loading_check`): it has landed by now.
  loaded: plain('loaded'),
  abort: plain('abort'),
  refuse: plain('refuse'),
  abortCommit: paged('abortCommit'),
  handoff: plain('handoff'),
  grow: paged('grow'),
  decode: Schema.Struct({ kind: Schema.Literal('decode'), ...maybePages, step: Schema.optionalWith(WholeNumber(0, Number.MAX_SAFE_INTEGER, 'a decode step'), { exact: true }) }),
  fail: plain('fail'),
  retract: paged('retract'),
  offload: plain('offload'),
  resume: Schema.Struct({ kind: Schema.Literal('resume'), ...maybePages, tokens: maybeTokens }),
  timeout: paged('timeout'),
  free: paged('free'),
  // D returned the request's state slot to its pool (config `stateSlots`).
  slotFree: Schema.Struct({ kind: Schema.Literal('slotFree'), ...common, stateSlot: SlotId }),
  // P released the request's source pages (config `sourcePages`): `pages` are P's own page ids.
  sourceFree: paged('sourceFree'),
  // `freed`: the duplicates an insert at the handoff freed (cache_unfinished_req, under radix).
  insert: Schema.Struct({ kind: Schema.Literal('insert'), ...maybePages, at: Schema.optionalWith(literal(INSERT_POINTS), { exact: true }), freed: Schema.optionalWith(PageList, { exact: true }) }),
  evict: paged('evict'),
} as const satisfies Record<Exclude<EventKind, 'config' | 'hostEvict'>, Schema.Schema.AnyNoContext>;

/** Host memory ran short and `evict_host` freed the host copy of prefix `prefix` (config `loadback`): about a prefix, not a request, so without `id`. */
export const HostEvictSchema = Schema.Struct({
  kind: Schema.Literal('hostEvict'),
  t: Schema.optionalWith(Time, { exact: true }),
  side: Schema.optionalWith(literal(['P', 'D'] as const), { exact: true }),
  prefix: Schema.String,
});

/** A decoded `hostEvict` event. */
export type HostEvictEvent = typeof HostEvictSchema.Type;

/** A decoded request event (every kind but `config` and `hostEvict`), page ranges not yet expanded. */
export type RequestEvent = { [K in keyof typeof SCHEMAS]: (typeof SCHEMAS)[K]['Type'] }[keyof typeof SCHEMAS];

/** Any decoded event. */
export type LogEvent = ConfigEvent | HostEvictEvent | RequestEvent;

const Envelope = Schema.Struct({ kind: literal(EVENT_KINDS) });
const options = { errors: 'first', onExcessProperty: 'ignore' } as const;
const decodeEnvelope = Schema.decodeUnknownEither(Envelope, options);
const DECODERS = Object.fromEntries(Object.keys(SCHEMAS).map((k) => [k, Schema.decodeUnknownEither(SCHEMAS[k as keyof typeof SCHEMAS] as Schema.Schema<RequestEvent, unknown>, options)])) as Record<
  keyof typeof SCHEMAS,
  (u: unknown) => Either.Either<RequestEvent, ParseResult.ParseError>
>;

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
  if (kind === 'config') return decodeConfigEvent(json);
  if (kind === 'hostEvict') return decodeHostEvict(json);
  const fast = fastDecode(json as Record<string, unknown>);
  return fast !== undefined ? Either.right(fast) : decodeBySchema(json);
}

const decodeHostEvictEither = Schema.decodeUnknownEither(HostEvictSchema, options);

/** Decodes a `hostEvict` object: the event, or the field that is wrong. */
function decodeHostEvict(json: object): Either.Either<HostEvictEvent, LineIssue> {
  const r = decodeHostEvictEither(json);
  return Either.isLeft(r) ? Either.left(firstIssue(r.left)) : Either.right(r.right);
}

/** Decodes a request event's object by its kind's schema alone, without the fast path (fast-decode.ts is held to this). */
export function decodeBySchema(json: object): Either.Either<RequestEvent, LineIssue> {
  const kind = (json as { kind?: unknown }).kind;
  const decoder = typeof kind === 'string' && Object.hasOwn(DECODERS, kind) ? DECODERS[kind as keyof typeof SCHEMAS] : undefined;
  if (decoder === undefined) {
    const envelope = decodeEnvelope(json);
    return Either.left(Either.isLeft(envelope) ? firstIssue(envelope.left) : { field: 'kind', message: `unknown kind ${show(kind)}` });
  }
  const event = decoder(json);
  if (Either.isLeft(event)) return Either.left(firstIssue(event.left));
  const e = event.right;
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
