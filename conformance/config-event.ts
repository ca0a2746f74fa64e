/**
 * The log's `config` event, and the model a log is held against once the flags are
 * applied. Its one rule of units is the log format's (docs/LOG-FORMAT.md): a field named
 * for pages counts pages (`pages`, `prefillLimit`), a field named for tokens counts
 * tokens (`pageSize`, `prefillTokens`); P's limit is given in exactly one of the two.
 */
import { Either, Schema } from 'effect';
import { checksOf, FAULTS, lacking, SWITCH_DOCS, SWITCHES, VARIANTS, WholeNumber, type Fault, type Variant } from '../spec/index.ts';
import { VALIDATOR_COVERAGE } from './coverage.ts';
import { firstIssue, literal, MAX_LOG_PAGES, show, Time, type LineIssue } from './schema-parts.ts';

/** The allocator orders a log can be held against: `sorted`, `sglang` and `lifo` (the page ids must be those the order hands out; docs/ALLOCATOR.md) and `any` (they must only be free). */
export const ALLOCATORS = ['sorted', 'sglang', 'lifo', 'any'] as const;

/** One of {@link ALLOCATORS}. */
export type Allocator = (typeof ALLOCATORS)[number];

/** The `config` event: the model the log is to be held against. */
export const ConfigEventSchema = Schema.Struct({
  kind: Schema.Literal('config'),
  t: Schema.optionalWith(Time, { exact: true }),
  pages: WholeNumber(1, MAX_LOG_PAGES, 'a number of pages'),
  pageSize: Schema.optionalWith(WholeNumber(1, 1 << 20, 'tokens per page'), { exact: true }),
  prefillLimit: Schema.optionalWith(WholeNumber(0, MAX_LOG_PAGES, 'a prefill limit in pages'), { exact: true }),
  prefillTokens: Schema.optionalWith(WholeNumber(0, Number.MAX_SAFE_INTEGER, 'a prefill limit in tokens'), { exact: true }),
  variant: Schema.optionalWith(literal(VARIANTS), { exact: true }),
  faults: Schema.optionalWith(Schema.Array(literal(FAULTS)), { exact: true }),
  allocator: Schema.optionalWith(literal(ALLOCATORS), { exact: true }),
  lengthRule: Schema.optionalWith(literal(['gt', 'ge'] as const), { exact: true }),
  eviction: Schema.optionalWith(Schema.Boolean, { exact: true }),
  tableGrowth: Schema.optionalWith(Schema.Boolean, { exact: true }),
  retraction: Schema.optionalWith(Schema.Boolean, { exact: true }),
  radix: Schema.optionalWith(Schema.Boolean, { exact: true }),
  stateSlots: Schema.optionalWith(Schema.Boolean, { exact: true }),
  sourcePages: Schema.optionalWith(Schema.Boolean, { exact: true }),
  loadback: Schema.optionalWith(Schema.Boolean, { exact: true }),
  draft: Schema.optionalWith(Schema.Boolean, { exact: true }),
  prefixPages: Schema.optionalWith(Schema.Record({ key: Schema.String, value: WholeNumber(1, MAX_LOG_PAGES, 'a prefix length in pages') }), { exact: true }),
});

/** A decoded `config` event. */
export type ConfigEvent = typeof ConfigEventSchema.Type;

/** The model a log is held against: the `config` event's fields, flags applied, defaults filled. */
export interface LogModel {
  /** D's pages. */
  readonly pages: number;
  /** Tokens per page (to turn an arrival's `tokens` into pages); unknown when neither the log nor the flags say. */
  readonly pageSize: number | undefined;
  /** The longest prompt, in pages, that P really computes. */
  readonly prefillLimit: number;
  /** The same limit in tokens, where the log gave it so (`prefillTokens`); `prefillLimit × pageSize` otherwise. */
  readonly prefillTokens?: number;
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
  /** Whether a decode step may take a page for its token (the `grow` event, SGLang's `alloc_decode`). */
  readonly tableGrowth: boolean;
  /** Whether D may retract a running request and resume it (the `retract` and `resume` events). */
  readonly retraction: boolean;
  /** Whether the prefix cache is a radix tree (SGLang's `RadixCache`): the handoff inserts the prefix (`insert` with `at: "handoff"`), an `evict` frees leaves; off when left out. */
  readonly radix?: boolean;
  /** Whether D's state slots and metadata rows are modelled (the `allocate` line's `stateSlot` and `metadataRow`, the `slotFree` event); off when left out. */
  readonly stateSlots?: boolean;
  /** Whether P's source pages are modelled (the `posted` line's `sources`, the `sourceFree` event); off when left out. */
  readonly sourcePages?: boolean;
  /** Whether D's prefix cache has a host tier that loads a prefix back (the `load`, `loaded` and `hostEvict` events); off when left out. */
  readonly loadback?: boolean;
  /** Whether every page holds a draft model's KV beside the target's, which P's write carries and decode reads; off when left out. */
  readonly draft?: boolean;
  /** Per prefix name, its length in pages where it is more than one (under `radix` a nested name `a/b` extends `a`); every other prefix is one page. */
  readonly prefixPages?: Readonly<Record<string, number>>;
}

/** P's limit in tokens: `prefillTokens` where given, else `prefillLimit` pages of the page size (1 token a page when none is known). */
export function limitTokensOf(model: LogModel): number {
  return model.prefillTokens ?? model.prefillLimit * (model.pageSize ?? 1);
}

/** The checks a `config` event needs beyond its fields' types: a fault named twice, P's limit given twice. */
export function configIssue(e: ConfigEvent): LineIssue | undefined {
  const faults = e.faults ?? [];
  const twice = faults.findIndex((f, i) => faults.indexOf(f) !== i);
  if (twice >= 0) return { field: `faults[${twice}]`, message: `fault ${show(faults[twice])} is named twice` };
  if (e.prefillLimit !== undefined && e.prefillTokens !== undefined) return { field: 'prefillTokens', message: 'expected P\'s limit once: "prefillLimit" (pages) or "prefillTokens" (tokens), not both' };
  return undefined;
}

const decodeConfig = Schema.decodeUnknownEither(ConfigEventSchema, { errors: 'first', onExcessProperty: 'ignore' });

/**
 * A `config` object's switch that the validator does not follow, turned on by its own
 * field (`prefixPages`): refused by name, not ignored with the other unknown fields, since
 * a log has no events for what it adds. Derived from the coverage, so a switch the spec
 * gains is refused here too.
 */
function refusedSwitch(json: object): LineIssue | undefined {
  for (const s of SWITCHES) {
    const field = SWITCH_DOCS[s].field;
    if (field === undefined || VALIDATOR_COVERAGE.covers(s) || !Object.hasOwn(json, field) || (json as Record<string, unknown>)[field] === false) continue;
    return { field, message: `${VALIDATOR_COVERAGE.consumer} ${lacking(VALIDATOR_COVERAGE, s)}; check such a configuration with \`pagecheck check ${checksOf(s)}\`` };
  }
  return undefined;
}

/** Decodes a `config` event given as an object: its fields, or the field that is wrong. */
export function decodeConfigEvent(json: object): Either.Either<ConfigEvent, LineIssue> {
  const refused = refusedSwitch(json);
  if (refused !== undefined) return Either.left(refused);
  const r = decodeConfig(json);
  if (Either.isLeft(r)) return Either.left(firstIssue(r.left));
  const issue = configIssue(r.right);
  return issue === undefined ? Either.right(r.right) : Either.left(issue);
}

/** Decodes a model given as an object (a `--config` file): the `config` event's fields, `kind` optional. */
export function decodeConfigObject(input: unknown): Either.Either<ConfigEvent, LineIssue> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return Either.left({ field: '', message: `expected a JSON object, got ${show(input)}` });
  return decodeConfigEvent({ kind: 'config', ...input });
}
