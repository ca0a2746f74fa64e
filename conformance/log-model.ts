/**
 * The model a log is held against, from its `config` event and the flags, with what the
 * validator cannot hold a log against refused as bad input (naming the field), and the
 * caveats of what it reads with less than every interleaving.
 */
import { checksOwner, DEFAULT_FAULTS, FAULT_NEEDS } from '../spec/index.ts';
import { VALIDATOR_FAULTS, type ConfigEvent, type LogModel } from './events.ts';
import type { SourceLine } from './lines.ts';
import { LogInputError } from './validate-result.ts';

/** Why `torn-write` under an owner check is refused: a late write's parts can land apart, which landing it whole cannot show. */
const TORN_WITH_TAGS =
  'validate-log reads torn-write logs only without an owner check: under one, a late write\'s content and tag parts can land apart in another request\'s page (the content without the tag), which a log cannot show and landing each write whole misses; check such a configuration with `pagecheck check --faults torn-write`';

/** The model from the config event and the flags; bad input when something is missing. */
export function resolveModel(config: ConfigEvent | undefined, overrides: Partial<LogModel>, where: SourceLine): LogModel {
  const pages = overrides.pages ?? config?.pages;
  const pageSize = overrides.pageSize ?? config?.pageSize;
  // P's limit: in pages from a flag or `prefillLimit`, or in tokens from `prefillTokens`.
  const tokens = overrides.prefillLimit === undefined ? (overrides.prefillTokens ?? config?.prefillTokens) : undefined;
  const prefillLimit = overrides.prefillLimit ?? config?.prefillLimit ?? (tokens === undefined ? undefined : Math.floor(tokens / (pageSize ?? 1)));
  if (pages === undefined || prefillLimit === undefined) {
    throw new LogInputError(where, '', 'no model: the log does not begin with a config event; give --config FILE, or --pages and --prefill-limit');
  }
  const variant = overrides.variant ?? config?.variant ?? 'buggy';
  const faults = overrides.faults ?? config?.faults ?? DEFAULT_FAULTS[variant];
  const unchecked = faults.filter((f) => !VALIDATOR_FAULTS.includes(f));
  if (unchecked.length > 0) {
    throw new LogInputError(where, 'faults', `validate-log does not check logs with ${unchecked.join(', ')} yet; it checks ${VALIDATOR_FAULTS.join(', ')}`);
  }
  if (faults.includes('torn-write') && checksOwner(variant)) throw new LogInputError(where, 'faults', TORN_WITH_TAGS);
  const model: LogModel = {
    pages,
    prefillLimit,
    ...(tokens === undefined ? {} : { prefillTokens: tokens }),
    pageSize,
    variant,
    faults,
    allocator: overrides.allocator ?? config?.allocator ?? 'sorted',
    lengthRule: overrides.lengthRule ?? config?.lengthRule ?? 'gt',
    eviction: overrides.eviction ?? config?.eviction ?? false,
    tableGrowth: overrides.tableGrowth ?? config?.tableGrowth ?? false,
    retraction: overrides.retraction ?? config?.retraction ?? false,
    radix: overrides.radix ?? config?.radix ?? false,
    ...(config?.stateSlots === true ? { stateSlots: true } : {}),
    ...(config?.sourcePages === true ? { sourcePages: true } : {}),
    ...(config?.loadback === true ? { loadback: true } : {}),
    ...(config?.draft === true ? { draft: true } : {}),
    ...(config?.prefixPages === undefined ? {} : { prefixPages: config.prefixPages }),
  };
  const radix = radixIssue(model) ?? slotsIssue(model) ?? tierIssue(model);
  if (radix !== undefined) throw new LogInputError(where, radix.field, radix.message);
  return model;
}

/**
 * What validate-log cannot hold a radix log against, by field: the tree needs eviction, as
 * in the spec; and the spec refuses it under `any`. Growth and retraction are the logged
 * pool's (radix.ts's `LoggedRadixPool` is the serving pool with the tree).
 */
function radixIssue(model: LogModel): { field: string; message: string } | undefined {
  if (model.radix !== true) return undefined;
  if (!model.eviction) return { field: 'radix', message: 'radix: true needs eviction: true (the radix tree is the evicting prefix cache as a tree, as in the spec)' };
  if (model.allocator === 'any') return { field: 'allocator', message: 'allocator "any" with radix: true: the spec follows the radix tree under sorted, sglang and lifo only' };
  return undefined;
}

/** What validate-log cannot hold a log with state slots, P's source pages or an early commit against, by field: a fault of the first two without its switch (as the spec refuses it), and an early commit with the radix tree, whose logged pool keeps D's state slots and P's source pages (radix.ts) but not an early commit. */
function slotsIssue(model: LogModel): { field: string; message: string } | undefined {
  const orphan = model.faults.find((f) => FAULT_NEEDS[f] === 'stateSlots' || FAULT_NEEDS[f] === 'sourcePages');
  if (orphan !== undefined && model[FAULT_NEEDS[orphan] as 'stateSlots' | 'sourcePages'] !== true) return { field: 'faults', message: `fault ${orphan} needs ${FAULT_NEEDS[orphan]}: true in the config event` };
  if (model.radix !== true) return undefined;
  if (model.faults.includes('premature-success')) return { field: 'faults', message: 'premature-success with radix: true: validate-log follows an early commit on the serving pool without the radix tree; check such a configuration with `pagecheck check --radix --faults torn-write,premature-success`' };
  return undefined;
}

/** What validate-log cannot hold a log with the host tier or the draft model against, by field: a fault of theirs without its switch, and the configurations the spec does not model (loadback with radix or retraction, where it is inert; draft with retraction). */
function tierIssue(model: LogModel): { field: string; message: string } | undefined {
  const orphan = model.faults.find((f) => FAULT_NEEDS[f] === 'loadback' || FAULT_NEEDS[f] === 'draft');
  if (orphan !== undefined && model[FAULT_NEEDS[orphan] as 'loadback' | 'draft'] !== true) return { field: 'faults', message: `fault ${orphan} needs ${FAULT_NEEDS[orphan]}: true in the config event` };
  if (model.loadback === true && (model.radix === true || model.retraction)) return { field: 'loadback', message: `loadback: true with ${model.radix === true ? 'radix' : 'retraction'}: the spec loads a prefix back only without the radix tree and retraction (spec/loadback.ts); check such a configuration with \`pagecheck check --loadback\`` };
  if (model.draft === true && model.retraction) return { field: 'draft', message: "draft: true with retraction: the spec does not model a retracted request's draft KV (its saved copy holds the target's only); check draft without retraction with `pagecheck check --draft`" };
  return undefined;
}

/** What a verdict on this model does not cover, in words (empty when it covers every interleaving the spec has). */
export function caveatsOf(model: LogModel): string[] {
  const load = model.faults.includes('read-before-load') || model.faults.includes('host-evict-during-load') ? [LOAD_LATE] : [];
  if (!model.faults.includes('torn-write')) return load;
  const torn = 'torn-write: each write is taken to land whole, at any moment between allocate and done; without an owner check a write\'s parts are its content alone, and landing them all at once reaches every verdict that landing them apart can';
  if (!model.faults.includes('premature-success')) return [torn, ...load];
  return [torn, PREMATURE, ...load];
}

/** What a log cannot show of a load from host memory (faults `read-before-load`, `host-evict-during-load`): when its copy ran; the latest the log allows is kept. */
const LOAD_LATE =
  'loadback: a load from host memory is taken to land at its loaded line (or at the decode that waits for it), so a decode or a hostEvict before that line comes before the copy; a log shows when D acknowledged the load (loading_check), not when its copy ran, and the latest landing the log allows reaches every verdict earlier ones can';

/** What a log cannot show of a write committed before it landed (fault `premature-success`): when each part landed; the worst case is kept instead. */
const PREMATURE =
  'premature-success: a handoff before P\'s done is taken to commit the write before any of it landed (a decode before done reads what the pages held), and the write to land whole at P\'s done line (or at the next event that needs it), even after the request\'s release; a log shows when P reported success and when D committed, not when each part landed, and these are the latest landings the log allows, which reach every verdict earlier ones can';

/** Whether two config events describe the same deployment (their times aside). */
export function sameConfig(a: ConfigEvent, b: ConfigEvent): boolean {
  const { t: _a, ...x } = a;
  const { t: _b, ...y } = b;
  return JSON.stringify(x) === JSON.stringify(y);
}
