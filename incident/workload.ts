/**
 * The workload of an incident replay: the deployment's sizes (page, prefill memory, decode
 * pool, all in tokens) and the requests, either drawn from a weighted mix of length ranges
 * or listed one by one. Read from a JSON file with Schema, so that a bad file is rejected
 * with the field's path and the value found; `examples/workload.json` shows every field.
 */
import * as Either from 'effect/Either';
import * as ParseResult from 'effect/ParseResult';
import * as Schema from 'effect/Schema';
import { formatPath, WholeNumber } from '../spec/index.ts';

/** The incident's deployment: 64-token pages, P holds 681,280 tokens, D the advertised 1,048,576. */
export const INCIDENT_SIZES = { pageTokens: 64, prefillTokens: 681_280, poolTokens: 1_048_576 } as const;

/** How lengths spread between `minTokens` and `maxTokens`. */
export const SPREADS = ['uniform', 'log-uniform'] as const;

/** One of {@link SPREADS}. */
export type Spread = (typeof SPREADS)[number];

/** One kind of request in a mix: a share of the traffic and its length range, in tokens. */
export interface MixEntry {
  /** Printed in the report: `chat`, `document`, ... */
  readonly name: string;
  /** Relative share; weights need not sum to 1. */
  readonly weight: number;
  /** Shortest prompt, in tokens. */
  readonly minTokens: number;
  /** Longest prompt, in tokens; equal to `minTokens` for an exact length. */
  readonly maxTokens: number;
  /** `log-uniform` (default): many short, a long tail, as prompt lengths are in practice. */
  readonly spread: Spread;
}

/** A validated workload; the command line's flags have already been applied. */
export interface Workload {
  /** Tokens per KV page. */
  readonly pageTokens: number;
  /** The longest prompt P really computes, in tokens (a whole number of pages). */
  readonly prefillTokens: number;
  /** D's KV pool, in tokens (a whole number of pages): the advertised context. */
  readonly poolTokens: number;
  /** How many requests to replay. */
  readonly requests: number;
  /** How many requests may be in flight at once. */
  readonly inFlight: number;
  /** Where lengths come from: a mix, or an explicit list replayed in order (and cycled). */
  readonly source: { readonly kind: 'mix'; readonly mix: readonly MixEntry[] } | { readonly kind: 'list'; readonly tokens: readonly number[] };
}

/**
 * The default mix: 80% chats (200–8,000 tokens), 16.25% documents (8,001–681,279), 0.5% at
 * exactly 681,280 (the boundary: P's memory, to the token), 0.25% at exactly 681,281 (one
 * token over), 3% over-long (681,282–1,048,576, uniform up to the advertised context).
 */
export const DEFAULT_MIX: readonly MixEntry[] = [
  { name: 'chat', weight: 80, minTokens: 200, maxTokens: 8_000, spread: 'log-uniform' },
  { name: 'document', weight: 16.25, minTokens: 8_001, maxTokens: 681_279, spread: 'log-uniform' },
  { name: 'boundary', weight: 0.5, minTokens: 681_280, maxTokens: 681_280, spread: 'uniform' },
  { name: 'one-over', weight: 0.25, minTokens: 681_281, maxTokens: 681_281, spread: 'uniform' },
  { name: 'over-long', weight: 3, minTokens: 681_282, maxTokens: 1_048_576, spread: 'uniform' },
];

/** Defaults of the fields a file or the flags may leave out. */
export const WORKLOAD_DEFAULTS = { requests: 100_000, inFlight: 64 } as const;

/** Bounds on what a run may ask for, so that a typo cannot exhaust memory. */
export const WORKLOAD_LIMITS = { maxRequests: 10_000_000, maxInFlight: 4_096, maxTokens: 16_777_216, maxPageTokens: 65_536 } as const;

const show = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
};

const Tokens = (what: string) => WholeNumber(1, WORKLOAD_LIMITS.maxTokens, what);

const weightMessage = (issue: ParseResult.ParseIssue) => ({
  message: `expected a weight: a number greater than 0, got ${show(issue.actual)}`,
  override: true,
});
const Weight = Schema.Number.annotations({ message: weightMessage })
  .pipe(Schema.filter((x) => Number.isFinite(x) && x > 0))
  .annotations({ message: weightMessage });

const SpreadSchema = Schema.Literal(...SPREADS).annotations({
  message: (issue) => ({ message: `expected one of ${SPREADS.join(', ')}, got ${show(issue.actual)}`, override: true }),
});

const MixEntrySchema = Schema.Struct({
  name: Schema.optionalWith(Schema.String, { exact: true }),
  weight: Weight,
  minTokens: Tokens('a prompt length in tokens'),
  maxTokens: Tokens('a prompt length in tokens'),
  spread: Schema.optionalWith(SpreadSchema, { exact: true }),
}).annotations({
  message: (issue) => ({
    message: `expected a mix entry such as {"weight": 80, "minTokens": 200, "maxTokens": 8000}, got ${show(issue.actual)}`,
    override: false,
  }),
});

/** The workload file as a user writes it; every field may be left out. */
export const WorkloadSchema = Schema.Struct({
  description: Schema.optionalWith(Schema.String, { exact: true }),
  requests: Schema.optionalWith(WholeNumber(1, WORKLOAD_LIMITS.maxRequests, 'a number of requests'), { exact: true }),
  inFlight: Schema.optionalWith(WholeNumber(1, WORKLOAD_LIMITS.maxInFlight, 'a number of requests in flight'), { exact: true }),
  pageTokens: Schema.optionalWith(WholeNumber(1, WORKLOAD_LIMITS.maxPageTokens, 'tokens per page'), { exact: true }),
  prefillTokens: Schema.optionalWith(Tokens('the prefill memory in tokens'), { exact: true }),
  poolTokens: Schema.optionalWith(Tokens('the decode pool in tokens'), { exact: true }),
  mix: Schema.optionalWith(
    Schema.Array(MixEntrySchema).annotations({ message: (issue) => ({ message: `expected a list of mix entries, got ${show(issue.actual)}`, override: false }) }),
    { exact: true },
  ),
  lengths: Schema.optionalWith(
    Schema.Array(Tokens('a prompt length in tokens')).annotations({
      message: (issue) => ({ message: `expected a list of prompt lengths in tokens, got ${show(issue.actual)}`, override: false }),
    }),
    { exact: true },
  ),
}).annotations({
  message: (issue) => ({
    message: `expected a workload object such as {"requests": 100000, "mix": [{"weight": 80, "minTokens": 200, "maxTokens": 8000}]}, got ${show(issue.actual)}`,
    override: false,
  }),
});

/** One problem with a workload: the field's path and what is wrong with it. */
export interface WorkloadIssue {
  /** Such as `mix[1].maxTokens`; empty for the whole file. */
  readonly path: string;
  /** What is wrong, naming the value found. */
  readonly message: string;
}

/** Overrides from the command line; they win over the file's fields. */
export interface WorkloadOverrides {
  /** `--requests N`. */
  readonly requests?: number;
  /** `--in-flight K`. */
  readonly inFlight?: number;
}

/** Checks what the schema cannot see field by field: ranges against each other and against the pool. */
function crossCheck(w: typeof WorkloadSchema.Type): WorkloadIssue[] {
  const issues: WorkloadIssue[] = [];
  const page = w.pageTokens ?? INCIDENT_SIZES.pageTokens;
  const prefill = w.prefillTokens ?? INCIDENT_SIZES.prefillTokens;
  const pool = w.poolTokens ?? INCIDENT_SIZES.poolTokens;
  // Over-long is decided in pages by the pool; whole pages keep "longer than N tokens" exact.
  if (prefill % page !== 0) issues.push({ path: 'prefillTokens', message: `expected a whole number of ${page}-token pages, got ${prefill}` });
  if (pool % page !== 0) issues.push({ path: 'poolTokens', message: `expected a whole number of ${page}-token pages, got ${pool}` });
  if (w.mix !== undefined && w.lengths !== undefined) issues.push({ path: '', message: 'give either "mix" or "lengths", not both' });
  if (w.mix?.length === 0) issues.push({ path: 'mix', message: 'expected at least one mix entry, got []' });
  if (w.lengths?.length === 0) issues.push({ path: 'lengths', message: 'expected at least one prompt length, got []' });
  w.mix?.forEach((e, i) => {
    if (e.minTokens > e.maxTokens) issues.push({ path: `mix[${i}].maxTokens`, message: `expected at least minTokens (${e.minTokens}), got ${e.maxTokens}` });
    if (e.maxTokens > pool) issues.push({ path: `mix[${i}].maxTokens`, message: `${e.maxTokens} tokens is more than the pool's ${pool}; such a request can never be allocated` });
  });
  w.lengths?.forEach((t, i) => {
    if (t > pool) issues.push({ path: `lengths[${i}]`, message: `${t} tokens is more than the pool's ${pool}; such a request can never be allocated` });
  });
  return issues;
}

/** Decodes a workload (file contents, or `{}` for the default) and applies the command line's overrides. */
export function decodeWorkload(input: unknown, overrides: WorkloadOverrides = {}): Either.Either<Workload, readonly WorkloadIssue[]> {
  const decoded = Schema.decodeUnknownEither(WorkloadSchema, { errors: 'all', onExcessProperty: 'error' })(input);
  if (Either.isLeft(decoded)) {
    return Either.left(ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => ({ path: formatPath(i.path), message: i.message })));
  }
  const w = decoded.right;
  const issues = crossCheck(w);
  if (issues.length > 0) return Either.left(issues);
  const source: Workload['source'] =
    w.lengths !== undefined
      ? { kind: 'list', tokens: w.lengths }
      : {
          kind: 'mix',
          mix: (w.mix ?? DEFAULT_MIX).map((e, i) => ({
            name: e.name ?? `mix[${i}]`,
            weight: e.weight,
            minTokens: e.minTokens,
            maxTokens: e.maxTokens,
            spread: e.spread ?? 'log-uniform',
          })),
        };
  return Either.right({
    pageTokens: w.pageTokens ?? INCIDENT_SIZES.pageTokens,
    prefillTokens: w.prefillTokens ?? INCIDENT_SIZES.prefillTokens,
    poolTokens: w.poolTokens ?? INCIDENT_SIZES.poolTokens,
    requests: overrides.requests ?? w.requests ?? (w.lengths !== undefined ? w.lengths.length : WORKLOAD_DEFAULTS.requests),
    inFlight: overrides.inFlight ?? w.inFlight ?? WORKLOAD_DEFAULTS.inFlight,
    source,
  });
}

/** The default workload: the incident's sizes and {@link DEFAULT_MIX}, with the given overrides. */
export function defaultWorkload(overrides: WorkloadOverrides = {}): Workload {
  const decoded = decodeWorkload({}, overrides);
  if (Either.isLeft(decoded)) throw new Error(`the default workload does not decode: ${decoded.left.map((i) => i.message).join('; ')}`);
  return decoded.right;
}
