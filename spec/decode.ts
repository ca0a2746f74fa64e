/**
 * Decoding of model configurations, from JSON files and command-line flags alike, with
 * Schema from `effect`. Every problem is reported as the field's path and the value
 * found, so that the user can fix the input without reading code.
 */
import * as Either from 'effect/Either';
import * as ParseResult from 'effect/ParseResult';
import * as Schema from 'effect/Schema';
import { crossCheck, show } from './config-checks.ts';
import { MECHANISMS } from './hardening.ts';
import { ALLOCATORS, DEFAULT_FAULTS, FAULTS, LENGTH_RULES, LIMITS, requestName, VARIANTS, type Config, type Fault } from './config.ts';

/** A whole number in `[min, max]`, with a message that names the value found. */
export const WholeNumber = (min: number, max: number, what: string) => {
  const message = (issue: ParseResult.ParseIssue) => ({
    message: `expected ${what}: a whole number from ${min} to ${max}, got ${show(issue.actual)}`,
    override: true,
  });
  return Schema.Number.annotations({ message })
    .pipe(Schema.filter((x) => Number.isInteger(x) && x >= min && x <= max))
    .annotations({ message });
};

const literalMessage = (allowed: readonly string[]) => (issue: ParseResult.ParseIssue) => ({
  message: `expected one of ${allowed.join(', ')}, got ${show(issue.actual)}`,
  override: true,
});

/** A variant name. */
export const VariantSchema = Schema.Literal(...VARIANTS).annotations({ message: literalMessage(VARIANTS) });

/** An allocation order's name. */
export const AllocatorSchema = Schema.Literal(...ALLOCATORS).annotations({ message: literalMessage(ALLOCATORS) });

/** A length rule's name. */
export const LengthRuleSchema = Schema.Literal(...LENGTH_RULES).annotations({ message: literalMessage(LENGTH_RULES) });

/** The longest prompt, and the highest prefill limit, in tokens: a token count is two bytes in the model. */
const MAX_TOKENS = 0xffff;

/** A mechanism of `hardened`'s name. */
export const MechanismSchema = Schema.Literal(...MECHANISMS).annotations({ message: literalMessage(MECHANISMS) });

/** A fault name. */
export const FaultSchema = Schema.Literal(...FAULTS).annotations({ message: literalMessage(FAULTS) });

const NameSchema = Schema.String.pipe(
  Schema.filter((x) => /^[A-Za-z][A-Za-z0-9_]{0,15}$/.test(x), {
    message: (issue) => `expected a name of letters, digits and _ starting with a letter, got ${show(issue.actual)}`,
  }),
);

// A prefix name may extend another with a slash (`sys/doc` extends `sys`): the radix tree's nested prefixes (spec/nesting.ts).
const PrefixNameSchema = Schema.String.pipe(
  Schema.filter((x) => /^[A-Za-z][A-Za-z0-9_]{0,15}(\/[A-Za-z][A-Za-z0-9_]{0,15})*$/.test(x), {
    message: (issue) => `expected a prefix name of letters, digits and _ starting with a letter, or names joined by / (sys/doc extends sys), got ${show(issue.actual)}`,
  }),
);

const RequestSchema = Schema.Struct({
  name: Schema.optionalWith(NameSchema, { exact: true }),
  length: WholeNumber(1, MAX_TOKENS, 'a length in tokens'),
  prefix: Schema.optionalWith(PrefixNameSchema, { exact: true }),
}).annotations({ message: (issue) => ({ message: `expected a request such as {"length": 2}, got ${show(issue.actual)}`, override: false }) });

/** The configuration as a user writes it: names, variant and faults may be left out. */
export const ConfigSchema = Schema.Struct({
  pages: WholeNumber(1, LIMITS.maxPages, 'a number of pages'),
  prefillLimit: WholeNumber(0, MAX_TOKENS, 'a prefill limit in tokens'),
  requests: Schema.Array(RequestSchema).annotations({
    message: (issue) => `expected a list of requests, got ${show(issue.actual)}`,
  }),
  variant: Schema.optionalWith(VariantSchema, { exact: true }),
  faults: Schema.optionalWith(
    Schema.Array(FaultSchema).annotations({ message: (issue) => ({ message: `expected a list of faults, got ${show(issue.actual)}`, override: false }) }),
    { exact: true },
  ),
  allocator: Schema.optionalWith(AllocatorSchema, { exact: true }),
  pageSize: Schema.optionalWith(WholeNumber(1, 4096, 'a page size in tokens'), { exact: true }),
  lengthRule: Schema.optionalWith(LengthRuleSchema, { exact: true }),
  eviction: Schema.optionalWith(Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${show(issue.actual)}` }), { exact: true }),
  decodeSteps: Schema.optionalWith(WholeNumber(1, LIMITS.maxDecodeSteps, 'a number of decode steps'), { exact: true }),
  tableGrowth: Schema.optionalWith(Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${show(issue.actual)}` }), { exact: true }),
  retraction: Schema.optionalWith(Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${show(issue.actual)}` }), { exact: true }),
  radix: Schema.optionalWith(Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${show(issue.actual)}` }), { exact: true }),
  sourcePages: Schema.optionalWith(Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${show(issue.actual)}` }), { exact: true }),
  without: Schema.optionalWith(
    Schema.Array(MechanismSchema).annotations({ message: (issue) => ({ message: `expected a list of hardened's mechanisms, got ${show(issue.actual)}`, override: false }) }),
    { exact: true },
  ),
  draft: Schema.optionalWith(Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${show(issue.actual)}` }), { exact: true }),
  stateSlots: Schema.optionalWith(Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${show(issue.actual)}` }), { exact: true }),
  loadback: Schema.optionalWith(Schema.Boolean.annotations({ message: (issue) => `expected true or false, got ${show(issue.actual)}` }), { exact: true }),
  prefixPages: Schema.optionalWith(
    Schema.Record({ key: PrefixNameSchema, value: WholeNumber(1, LIMITS.maxPages, 'a prefix length in pages') }).annotations({
      message: (issue) => ({ message: `expected an object of prefix lengths in pages such as {"sys": 2}, got ${show(issue.actual)}`, override: false }),
    }),
    { exact: true },
  ),
}).annotations({
  message: (issue) => ({
    message: `expected a configuration object such as {"pages": 3, "prefillLimit": 2, "requests": [{"length": 2}]}, got ${show(issue.actual)}`,
    override: false,
  }),
});

/** One problem with an input: where, and what is wrong. */
export interface InputIssue {
  /** The field, as a path such as `requests[1].length`. */
  readonly path: string;
  /** What is wrong, naming the value found. */
  readonly message: string;
}

/** A configuration that could not be decoded. */
export class ConfigError extends Error {
  /** Every problem found. */
  readonly issues: readonly InputIssue[];
  constructor(issues: readonly InputIssue[]) {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** Formats a path such as `["requests", 1, "length"]` as `requests[1].length`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), '');
}

/** The issues of a failed Schema decode, one per field. */
export function schemaIssues(error: ParseResult.ParseError): InputIssue[] {
  return ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => ({ path: formatPath(i.path), message: i.message }));
}

/** Decodes a configuration; variant defaults to `buggy` and faults to the variant's own. */
export function decodeConfig(input: unknown): Either.Either<Config, ConfigError> {
  const decoded = Schema.decodeUnknownEither(ConfigSchema, { errors: 'all', onExcessProperty: 'error' })(input);
  if (Either.isLeft(decoded)) return Either.left(new ConfigError(schemaIssues(decoded.left)));
  const c = decoded.right;
  const issues = crossCheck(c);
  if (issues.length > 0) return Either.left(new ConfigError(issues));
  const variant = c.variant ?? 'buggy';
  const faults: readonly Fault[] = c.faults ?? DEFAULT_FAULTS[variant];
  // Only lengths above the default are kept, so that a configuration that names none and one that names 1 are the same.
  const longPrefixes = Object.entries(c.prefixPages ?? {}).filter(([, k]) => k > 1);
  return Either.right({
    pages: c.pages,
    prefillLimit: c.prefillLimit,
    requests: c.requests.map((q, i) => ({
      name: q.name ?? requestName(i),
      length: q.length,
      ...(q.prefix === undefined ? {} : { prefix: q.prefix }),
    })),
    variant,
    faults: FAULTS.filter((f) => faults.includes(f)),
    ...(c.allocator === undefined ? {} : { allocator: c.allocator }),
    ...(c.pageSize === undefined ? {} : { pageSize: c.pageSize }),
    ...(c.lengthRule === undefined || c.lengthRule === 'gt' ? {} : { lengthRule: c.lengthRule }),
    ...(c.eviction === undefined ? {} : { eviction: c.eviction }),
    ...(c.decodeSteps === undefined || c.decodeSteps === 1 ? {} : { decodeSteps: c.decodeSteps }),
    ...(c.tableGrowth === true ? { tableGrowth: true } : {}),
    ...(c.retraction === true ? { retraction: true } : {}),
    ...(c.radix === true ? { radix: true } : {}),
    ...(c.sourcePages === true ? { sourcePages: true } : {}),
    // In the catalogue's order, each once: two spellings of one set are one configuration.
    ...(c.without === undefined || c.without.length === 0 ? {} : { without: MECHANISMS.filter((k) => c.without!.includes(k)) }),
    ...(c.draft === true ? { draft: true } : {}),
    ...(c.stateSlots === true ? { stateSlots: true } : {}),
    ...(c.loadback === true ? { loadback: true } : {}),
    ...(longPrefixes.length === 0 ? {} : { prefixPages: Object.fromEntries(longPrefixes) }),
  });
}

/** Decodes a configuration or throws a {@link ConfigError}. */
export function configFrom(input: unknown): Config {
  const result = decodeConfig(input);
  if (Either.isLeft(result)) throw result.left;
  return result.right;
}
