/**
 * The flags that describe a model, shared by every command that builds one: a JSON
 * configuration file (`--config`) and flags that override its fields. Both go through
 * the same Schema decode, so a bad value gets the same message wherever it came from.
 */
import * as Either from 'effect/Either';
import type { Command } from 'commander';
import { decodeConfig, FAULTS, MECHANISMS, type Config } from '../spec/index.ts';
import { FIELD_FLAGS, FLAG_OF } from '../spec/config-flags.ts';
import { UsageError } from './errors.ts';

export { configArgs, prefixPagesFlag } from '../spec/config-flags.ts';
import { readJsonFile } from './read-input.ts';

/** Re-exported from read-input.ts, where every input file is read. */
export { jsonDepth, MAX_JSON_BYTES, MAX_JSON_DEPTH, readJsonFile } from './read-input.ts';

/** The raw model flags as commander hands them over. */
export interface ModelFlags {
  /** `--config FILE`. */
  readonly config?: string;
  /** `--variant`. */
  readonly variant?: string;
  /** `--pages`. */
  readonly pages?: string;
  /** `--prefill-limit`. */
  readonly prefillLimit?: string;
  /** `--requests 2,3:sys`. */
  readonly requests?: string;
  /** `--faults a,b` or `none`. */
  readonly faults?: string;
  /** `--allocator sorted|sglang|lifo|any`. */
  readonly allocator?: string;
  /** `--page-size S`. */
  readonly pageSize?: string;
  /** `--length-rule gt|ge`. */
  readonly lengthRule?: string;
  /** `--eviction`. */
  readonly eviction?: boolean;
  /** `--decode-steps N`. */
  readonly decodeSteps?: string;
  /** `--prefix-pages sys=2,doc=3`. */
  readonly prefixPages?: string;
  /** `--table-growth`. */
  readonly tableGrowth?: boolean;
  /** `--retraction`. */
  readonly retraction?: boolean;
  /** `--radix`. */
  readonly radix?: boolean;
  /** `--source-pages`. */
  readonly sourcePages?: boolean;
  /** `--without revoke-writer,hold-source`. */
  readonly without?: string;
  /** `--draft`. */
  readonly draft?: boolean;
  /** `--state-slots`. */
  readonly stateSlots?: boolean;
  /** `--loadback`. */
  readonly loadback?: boolean;
}

/** Adds the model flags to a command. */
export function addModelOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'model configuration (JSON); flags override its fields')
    .option('--variant <name>', 'buggy | length-fix | owner-check | hardened (default buggy)')
    .option('--pages <n>', "number of D's KV pages")
    .option('--prefill-limit <n>', 'longest prompt, in tokens, that P computes (tokens are pages at the default page size 1)')
    .option('--requests <lengths>', 'request lengths in tokens (pages at page size 1), named A, B, ...; LEN:PREFIX shares a prompt prefix (e.g. 2,3:sys); under --radix PARENT/NAME extends a prefix (e.g. 2:sys,3:sys/doc)')
    .option('--faults <list>', "faults switched on, comma-separated, or 'none' (default: the variant's own)")
    .option('--allocator <order>', 'which free pages allocate hands out: sorted | sglang | lifo | any (default sorted; see docs/ALLOCATOR.md)')
    .option('--eviction', 'the prefix cache evicts an unlocked cached page when an allocation finds too few free pages (action evict)')
    .option('--page-size <tokens>', "token slots per page (default 1: whole pages); a request of T tokens has ceil(T/S) pages; also selects sglang's shortage test (alloc or alloc_extend)")
    .option('--length-rule <rule>', "when a prompt is too long for P: gt (longer than the prefill limit, the default) or ge (at least the limit, SGLang's validate_input_length)")
    .option('--decode-steps <n>', 'decode reads the whole table this many times, writing a token after each step but the first (default 1)')
    .option('--table-growth', "a decode step whose token falls past the table's last slot first takes one more page (action grow, SGLang's alloc_decode); needs --decode-steps 2 or more")
    .option('--retraction', "D may retract a running request and resume it on new pages (actions retract and resume, SGLang's retract_decode and resume_retracted_reqs)")
    .option('--radix', "the prefix cache is a radix tree (SGLang's RadixCache): a node per cached prefix page, the handoff inserts the prompt's prefix, eviction frees unlocked leaves, lock_ref per node with no clamp; needs --eviction")
    .option('--source-pages', "model P's source pages: a write's content parts copy what P's source page holds when they land (fault source-early-free)")
    .option('--without <mechanisms>', "hardened without these of its mechanisms, comma-separated: the counterexample each one stops (docs/VARIANTS.md)")
    .option('--draft', "speculative decoding: every page holds a draft model's KV beside the target's, landed by a transfer part of its own (action landDraft) and read by decode with it (fault draft-stale)")
    .option('--state-slots', "model D's state slot and metadata row per request: taken at allocation, written with the transfer, read at commit and every decode step (faults state-slot-reuse, metadata-collision)")
    .option('--loadback', "D's prefix cache has a host tier: a prefix found only in host memory is loaded back into pages of the request's own (action loadBack, SGLang's HiRadixCache.init_load_back; faults host-evict-during-load, read-before-load); needs a request with a prefix")

    .option('--prefix-pages <list>', 'length in pages of each named prompt prefix, NAME=PAGES comma-separated (e.g. sys=2; default 1 page each; a prefix is longer than the one it extends, e.g. sys/doc=2)');
}

/** Whether any model flag (or `--config`) was given. */
export function modelFlagsGiven(flags: ModelFlags): boolean {
  return flags.config !== undefined || Object.keys(FIELD_FLAGS).some((field) => flags[field as keyof ModelFlags] !== undefined);
}

/** A flag's text as a number when it is one, so that the schema names the bad value as typed. */
function numberish(text: string): number | string {
  // A number too large for a double stays text, so that the message shows it as typed, not as null.
  return /^-?\d+(\.\d+)?$/.test(text.trim()) && Number.isFinite(Number(text)) ? Number(text) : text;
}

/** A comma-separated list of names for `flag`; an empty list, or an empty name in it, is refused (the schema checks the names). */
function parseNameList(flag: string, text: string, known: readonly string[], what: string): string[] {
  const names = text.split(',').map((f) => f.trim());
  if (text.trim() === '' || names.includes('')) throw new UsageError(`${flag}: expected ${what}, comma-separated (${known.join(', ')}), got ${JSON.stringify(text)}`);
  return names;
}

/** A `--faults` list: `none` is the explicit word for no faults; an empty list is refused, not read as none. */
export function parseFaultList(text: string, known: readonly string[]): string[] {
  const list = text.trim();
  if (list === 'none') return [];
  const names = list.split(',').map((f) => f.trim());
  if (list === '' || names.includes('')) {
    throw new UsageError(`--faults: expected fault names, comma-separated, or 'none' for no faults (${known.join(', ')}), got ${JSON.stringify(text)}`);
  }
  return names;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `2,3:sys` as request objects; a part with more than one `:` is an error, not silently cut short. */
function parseRequests(text: string): unknown[] {
  return text.split(',').map((part) => {
    const fields = part.split(':');
    if (fields.length > 2) {
      throw new UsageError(`--requests: ${JSON.stringify(part)} has ${fields.length - 1} colons; expected LEN or LEN:PREFIX (e.g. 2,3:sys)`);
    }
    const [len = '', prefix] = fields;
    return prefix === undefined ? { length: numberish(len) } : { length: numberish(len), prefix: prefix.trim() };
  });
}

/** `sys=2,doc=3` as an object of prefix lengths; the schema checks the names and numbers, this only the shape. */
function parsePrefixPages(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of text.split(',')) {
    const fields = part.split('=');
    const [name = '', pages = ''] = fields.map((f) => f.trim());
    if (fields.length !== 2 || name === '' || pages === '') {
      throw new UsageError(`--prefix-pages: ${JSON.stringify(part)} is not NAME=PAGES; expected a list such as sys=2 or sys=2,doc=3`);
    }
    if (name in out) throw new UsageError(`--prefix-pages: prefix ${JSON.stringify(name)} is given twice`);
    out[name] = numberish(pages);
  }
  return out;
}

/** Decodes the model flags (and the file they name) into a configuration, or throws a {@link UsageError}. */
export function configFromFlags(flags: ModelFlags, defaults: Partial<Record<string, unknown>> = {}): Config {
  const fromFile = flags.config === undefined ? {} : readJsonFile(flags.config, 'configuration file');
  if (typeof fromFile !== 'object' || fromFile === null || Array.isArray(fromFile)) {
    throw new UsageError(`configuration file ${flags.config}: expected a JSON object, got ${JSON.stringify(fromFile)}`);
  }
  const input: Record<string, unknown> = { ...defaults, ...fromFile };
  const fromFlags = new Set<string>();
  const set = (key: string, value: unknown): void => {
    input[key] = value;
    fromFlags.add(key);
  };
  if (flags.pages !== undefined) set('pages', numberish(flags.pages));
  if (flags.prefillLimit !== undefined) set('prefillLimit', numberish(flags.prefillLimit));
  if (flags.requests !== undefined) set('requests', parseRequests(flags.requests));
  if (flags.variant !== undefined) set('variant', flags.variant);
  if (flags.allocator !== undefined) set('allocator', flags.allocator.trim());
  if (flags.pageSize !== undefined) set('pageSize', numberish(flags.pageSize));
  if (flags.lengthRule !== undefined) set('lengthRule', flags.lengthRule.trim());
  if (flags.eviction === true) set('eviction', true);
  if (flags.decodeSteps !== undefined) set('decodeSteps', numberish(flags.decodeSteps));
  if (flags.tableGrowth === true) set('tableGrowth', true);
  if (flags.retraction === true) set('retraction', true);
  if (flags.radix === true) set('radix', true);
  if (flags.sourcePages === true) set('sourcePages', true);
  if (flags.without !== undefined) set('without', parseNameList('--without', flags.without, MECHANISMS, "hardened's mechanisms"));
  if (flags.draft === true) set('draft', true);
  if (flags.stateSlots === true) set('stateSlots', true);
  if (flags.loadback === true) set('loadback', true);
  // The flag's lengths join the file's: a prefix the flag names gets the flag's length.
  if (flags.prefixPages !== undefined) set('prefixPages', { ...(isRecord(input.prefixPages) ? input.prefixPages : {}), ...parsePrefixPages(flags.prefixPages) });
  if (flags.faults !== undefined) {
    set('faults', parseFaultList(flags.faults, FAULTS));
  }
  const decoded = decodeConfig(input);
  if (Either.isRight(decoded)) return decoded.right;
  const lines = decoded.left.issues.map((issue) => {
    const field = issue.path.split(/[.[]/)[0] ?? '';
    const where = fromFlags.has(field)
      ? `${FLAG_OF[field] ?? field}${issue.path.slice(field.length)}`
      : flags.config !== undefined && field !== ''
        ? `${flags.config}: ${issue.path}`
        : issue.path || '(configuration)';
    return `${where}: ${issue.message}`;
  });
  // One problem, one line; several, one line each under the heading.
  throw new UsageError(lines.length === 1 ? `invalid model configuration: ${lines[0]}` : `invalid model configuration:\n  ${lines.join('\n  ')}`);
}
