/**
 * Decoding of model configurations, from JSON files and command-line flags alike, with
 * Schema from `effect`. Every problem is reported as the field's path and the value
 * found, so that the user can fix the input without reading code.
 */
import * as Either from 'effect/Either';
import * as ParseResult from 'effect/ParseResult';
import * as Schema from 'effect/Schema';
import { ACTION_KINDS, kindPresent } from './actions.ts';
import { LIFO_MAX_PAGES } from './allocator.ts';
import { checksOwner } from './behaviour.ts';
import { ALLOCATORS, DEFAULT_FAULTS, FAULTS, LENGTH_RULES, LIMITS, requestName, VARIANTS, type Config, type Fault } from './config.ts';

const show = (value: unknown): string => {
  // JSON reads 1e400 as Infinity, which JSON.stringify would print as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large';
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
};

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

/** The most token slots per page whose fill a state can count (one byte per page). */
const MAX_SLOTS = 255;

/** A fault name. */
export const FaultSchema = Schema.Literal(...FAULTS).annotations({ message: literalMessage(FAULTS) });

const NameSchema = Schema.String.pipe(
  Schema.filter((x) => /^[A-Za-z][A-Za-z0-9_]{0,15}$/.test(x), {
    message: (issue) => `expected a name of letters, digits and _ starting with a letter, got ${show(issue.actual)}`,
  }),
);

const RequestSchema = Schema.Struct({
  name: Schema.optionalWith(NameSchema, { exact: true }),
  length: WholeNumber(1, MAX_TOKENS, 'a length in tokens'),
  prefix: Schema.optionalWith(NameSchema, { exact: true }),
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
  prefixPages: Schema.optionalWith(
    Schema.Record({ key: NameSchema, value: WholeNumber(1, LIMITS.maxPages, 'a prefix length in pages') }).annotations({
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

/** Checks what a schema cannot see field by field: lengths against the pool, counts against the encoding. */
function crossCheck(input: typeof ConfigSchema.Type): InputIssue[] {
  const issues: InputIssue[] = [];
  const n = input.requests.length;
  if (n === 0) issues.push({ path: 'requests', message: 'expected at least one request, got []' });
  if (n > LIMITS.maxRequests) {
    issues.push({ path: 'requests', message: `the state encoding supports at most ${LIMITS.maxRequests} requests, got ${n}` });
  }
  const names = new Set<string>();
  const size = input.pageSize ?? 1;
  const inPages = (tokens: number): string => (size === 1 ? `${tokens} pages` : `${tokens} tokens (${Math.ceil(tokens / size)} pages of ${size})`);
  input.requests.forEach((q, i) => {
    const name = q.name ?? requestName(i);
    if (names.has(name)) issues.push({ path: `requests[${i}].name`, message: `duplicate request name ${show(name)}` });
    names.add(name);
    const pages = Math.ceil(q.length / size);
    if (pages > input.pages) {
      issues.push({
        path: `requests[${i}].length`,
        message: `${inPages(q.length)} is more than the pool's ${input.pages}; such a request can never be allocated`,
      });
    }
    const k = q.prefix === undefined ? 0 : (input.prefixPages?.[q.prefix] ?? 1);
    // SGLang matches at most the prompt less one token (`_compute_max_prefix_len`): a request has a page of its own past its prefix.
    if (q.prefix !== undefined && pages <= k) {
      issues.push({
        path: `requests[${i}].length`,
        message: `a request with a prefix needs at least ${k + 1} pages (its prefix ${show(q.prefix)} of ${k} ${k === 1 ? 'page' : 'pages'} and one of its own), got ${inPages(q.length)}`,
      });
    }
  });
  for (const name of Object.keys(input.prefixPages ?? {})) {
    if (!input.requests.some((q) => q.prefix === name)) {
      issues.push({ path: `prefixPages.${name}`, message: `no request has prefix ${show(name)}; name a prefix that some request shares` });
    }
  }
  if (size > 1 && size > MAX_SLOTS) {
    issues.push({ path: 'pageSize', message: `a state counts a page's written slots in one byte: at most ${MAX_SLOTS} tokens per page, got ${size}` });
  }
  issues.push(...widthIssues(input));
  // Only a decode step after the first writes a token: with one step the table never grows, and the switch would say nothing.
  const room = Math.max(0, ...input.requests.map((q) => Math.ceil((q.length + (input.tableGrowth === true ? (input.decodeSteps ?? 1) - 1 : 0)) / size)));
  if (room > 0xffff) issues.push({ path: 'tableGrowth', message: `a table position is two bytes: a table of at most 65535 pages, got ${room}` });
  if (input.tableGrowth === true && (input.decodeSteps ?? 1) < 2) {
    issues.push({ path: 'tableGrowth', message: `the table grows only when a decode step writes a token past its last slot, and only steps after the first write one: needs decodeSteps of 2 or more, got ${input.decodeSteps ?? 1}` });
  }
  const faults = input.faults ?? [];
  if (input.retraction === true) {
    // Not modelled yet, and refused rather than half-modelled: see spec/retraction.ts.
    if (input.allocator === 'any') issues.push({ path: 'retraction', message: 'retraction is modelled with the allocators sorted, sglang and lifo; "any" would make every resume a choice of pages, not yet an action of its own' });
  }
  if (input.allocator === 'any') {
    const prefixes = input.requests.some((q) => q.prefix !== undefined);
    const on = {
      earlyFree: faults.includes('early-free'),
      prefixes,
      eviction: input.eviction === true && prefixes,
      tornWrite: faults.includes('torn-write'),
      ownerCheck: checksOwner(input.variant ?? 'buggy'),
      tableGrowth: input.tableGrowth === true,
      // Refused above under "any".
      retraction: false,
      offloadAfterFree: false,
    };
    // Every kind but allocate and grow is one action per request; their choices are counted by anyActions (grow: one per page).
    const kinds = ACTION_KINDS.filter((k) => k !== 'allocate' && k !== 'grow' && kindPresent(k, on)).length + (on.tableGrowth ? input.pages : 0);
    const inPageCounts = input.requests.map((q) => ({ ...q, length: Math.ceil(q.length / (input.pageSize ?? 1)) }));
    const actions = anyActions(input.pages, inPageCounts, input.prefixPages ?? {}, faults.includes('double-free'), kinds);
    if (actions > LIMITS.maxActions) {
      issues.push({ path: 'allocator', message: `"any" makes every choice of pages its own action: ${actions} actions here, more than the ${LIMITS.maxActions} the checker indexes; use fewer pages or shorter requests` });
    }
  }
  if (input.allocator === 'lifo' && input.pages > LIFO_MAX_PAGES) {
    issues.push({ path: 'pages', message: `allocator "lifo" keeps its free list one byte per entry: at most ${LIFO_MAX_PAGES} pages, got ${input.pages}` });
  }
  faults.forEach((f, i) => {
    if (faults.indexOf(f) !== i) issues.push({ path: `faults[${i}]`, message: `fault ${show(f)} is named twice` });
  });
  return issues;
}

/**
 * The limits of the state's widths (spec/layout.ts): labels (every request and every page
 * of every prefix) within a read record's 14 bits, page ids below the empty slot, and the
 * one-byte counts: a page's free-list copies (`sglang`, `double-free`) and a prefix's lock
 * count (eviction) grow with the requests.
 */
function widthIssues(input: typeof ConfigSchema.Type): InputIssue[] {
  const issues: InputIssue[] = [];
  const n = input.requests.length;
  const labels = n + [...new Set(input.requests.flatMap((q) => (q.prefix === undefined ? [] : [q.prefix])))].reduce((sum, name) => sum + (input.prefixPages?.[name] ?? 1), 0);
  if (labels > LIMITS.maxLabels) {
    const path = Object.keys(input.prefixPages ?? {}).length > 0 ? 'prefixPages' : 'requests';
    issues.push({ path, message: `the state encoding supports at most ${LIMITS.maxLabels} requests and prefix pages together (a read record holds a label in 14 bits), got ${labels}` });
  }
  if (input.allocator === 'sglang' && input.pages > LIMITS.maxPages - 1) {
    issues.push({ path: 'pages', message: `allocator "sglang" adds the padding page 0, and page ids are at most two bytes: at most ${LIMITS.maxPages - 1} pages, got ${input.pages}` });
  }
  const counted = input.allocator === 'sglang' || (input.faults ?? []).includes('double-free') || input.eviction === true;
  if (counted && n > LIMITS.maxCountedRequests) {
    issues.push({ path: 'requests', message: `a page's free-list copies and a prefix's lock count are one byte: at most ${LIMITS.maxCountedRequests} requests with allocator "sglang", fault "double-free" or eviction, got ${n}` });
  }
  return issues;
}

/** The number of actions under allocator `any`: every ordered choice of pages per request, and one action per other kind. */
function anyActions(
  pages: number,
  requests: readonly { readonly length: number; readonly prefix?: string | undefined }[],
  prefixPages: Readonly<Record<string, number>>,
  multiset: boolean,
  kinds: number,
): number {
  const choices = (k: number): number => {
    let c = 1;
    for (let i = 0; i < k; i++) c *= multiset ? pages : pages - i;
    return Math.max(c, 0);
  };
  let total = 0;
  for (const q of requests) total += choices(q.length) + (q.prefix === undefined ? 0 : choices(q.length - (prefixPages[q.prefix] ?? 1))) + kinds;
  return total;
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
    ...(longPrefixes.length === 0 ? {} : { prefixPages: Object.fromEntries(longPrefixes) }),
  });
}

/** Decodes a configuration or throws a {@link ConfigError}. */
export function configFrom(input: unknown): Config {
  const result = decodeConfig(input);
  if (Either.isLeft(result)) throw result.left;
  return result.right;
}
