/**
 * The adapter protocol's messages (docs/ADAPTER.md), both ways: what pagecheck sends, and
 * the answers it accepts, decoded with Schema so that an adapter printing something else
 * gets a message naming the field and the value.
 */
import { Either, ParseResult, Schema } from 'effect';
import { formatPath } from '../../spec/index.ts';
import type { ResetConfig } from './reset.ts';

/** The protocol's newest version, sent in the handshake; an adapter answers with the version it speaks. */
export const PROTOCOL_VERSION = 2;

/** The versions an adapter may answer with: 1 (the handoff), 2 and a request's life on D (coverage.ts). */
export const PROTOCOL_VERSIONS = [1, 2] as const;

/** The state fields an adapter may say it observes. */
export const OBSERVABLES = ['holder', 'data', 'tag', 'phase', 'table', 'read', 'free'] as const;

/** One of {@link OBSERVABLES}. */
export type Observable = (typeof OBSERVABLES)[number];

/** What pagecheck sends. */
export type Message =
  | { readonly type: 'hello'; readonly protocol: number }
  | { readonly type: 'reset'; readonly config: ResetConfig }
  | { readonly type: 'action'; readonly kind: string; readonly request: string }
  | { readonly type: 'bye' };

const Name = Schema.NullOr(Schema.String);

const PageSchema = Schema.Struct({
  id: Schema.Number,
  holder: Schema.optionalWith(Name, { exact: true }),
  data: Schema.optionalWith(Name, { exact: true }),
  tag: Schema.optionalWith(Name, { exact: true }),
});

const RequestSchema = Schema.Struct({
  phase: Schema.optionalWith(Schema.String, { exact: true }),
  table: Schema.optionalWith(Schema.Array(Schema.Number), { exact: true }),
  read: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
});

/** The abstract state an adapter reports: what it can see of pages, requests and the free list. */
export const ObservedSchema = Schema.Struct({
  pages: Schema.optionalWith(Schema.Array(PageSchema), { exact: true }),
  requests: Schema.optionalWith(Schema.Record({ key: Schema.String, value: RequestSchema }), { exact: true }),
  free: Schema.optionalWith(Schema.Array(Schema.Number), { exact: true }),
});

/** A decoded observation. */
export type Observed = typeof ObservedSchema.Type;

const HelloSchema = Schema.Struct({
  type: Schema.Literal('hello'),
  protocol: Schema.Literal(...PROTOCOL_VERSIONS),
  adapter: Schema.optionalWith(Schema.String, { exact: true }),
  observes: Schema.Array(Schema.Literal(...OBSERVABLES)),
});
const ReadySchema = Schema.Struct({ type: Schema.Literal('ready') });
const StateSchema = Schema.Struct({ type: Schema.Literal('state'), accepted: Schema.Boolean, state: ObservedSchema });
const ByeSchema = Schema.Struct({ type: Schema.Literal('bye') });

/** The answer each message expects. */
export const ANSWERS = { hello: HelloSchema, reset: ReadySchema, action: StateSchema, bye: ByeSchema } as const;

/** The answer to a message of type `T`. */
export type Answer<T extends keyof typeof ANSWERS> = (typeof ANSWERS)[T]['Type'];

/** Decodes an answer line; the problem in words (naming the field) when it is not the expected answer. */
export function decodeAnswer<T extends keyof typeof ANSWERS>(type: T, text: string): Either.Either<Answer<T>, string> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return Either.left(`not valid JSON: ${JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text)}`);
  }
  if (typeof json === 'object' && json !== null && (json as { type?: unknown }).type === 'error') {
    return Either.left(`the adapter reported an error: ${JSON.stringify((json as { message?: unknown }).message ?? json)}`);
  }
  const decoded = Schema.decodeUnknownEither(ANSWERS[type] as unknown as Schema.Schema<Answer<T>, unknown>, { errors: 'first' })(json);
  if (Either.isRight(decoded)) return Either.right(decoded.right);
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(decoded.left);
  const field = issue === undefined ? '' : formatPath(issue.path);
  return Either.left(`expected a "${String(type === 'action' ? 'state' : type === 'reset' ? 'ready' : type)}" answer; ${field === '' ? '' : `${field}: `}${issue?.message ?? 'invalid'} in ${JSON.stringify(text.slice(0, 200))}`);
}
