/**
 * The features of a configuration, named once: what a consumer of the spec (the pool, the
 * scale reference, the Promela model, the proof, the log validator, the adapter protocol)
 * may follow or not. A feature is a variant, an allocation order, a switch (eviction, table
 * growth, retraction, several decode steps, token slots, prompt prefixes and their
 * lengths, the length rule), a fault, or an action kind. The list is derived from the
 * catalogues (`VARIANTS`, `ALLOCATORS`, `FAULTS`, `ACTION_KINDS`) and {@link SWITCHES}, so
 * a fault, switch or action added there is a feature at once, and every consumer that has
 * not declared it covered refuses it (`coverage.ts`). Each feature's flag, words and the
 * `pagecheck check` flags that check it are here, and nowhere else.
 */
import { ACTION_KINDS, kindPresent, OBSERVED_ONLY_KINDS, type ActionKind, type KindSwitches } from './actions.ts';
import { checksOwner } from './behaviour.ts';
import { ALLOCATORS, FAULT_NEEDS, FAULTS, VARIANTS, type Allocator, type Config, type Fault, type Variant } from './config.ts';

/** The switches of a configuration a consumer may not follow, in the order refusals name them. */
export const SWITCHES = ['eviction', 'radix', 'tableGrowth', 'retraction', 'decodeSteps', 'tokenSlots', 'prefixes', 'prefixPages', 'lengthRule', 'sourcePages', 'draft', 'stateSlots', 'loadback', 'without'] as const;

/** One of {@link SWITCHES}. */
export type Switch = (typeof SWITCHES)[number];

/** What a switch is: its flag, its words, how to check it, and when a configuration has it on. */
export interface SwitchDoc {
  /** The command-line flag that turns it on. */
  readonly flag: string;
  /** What it is, in a few words ("table growth"). */
  readonly words: string;
  /** The flags that turn it on for `pagecheck check` on the default configuration. */
  readonly checks: string;
  /** What a configuration without it does not do, for a warning ("the prefix cache does not evict here"). */
  readonly off: string;
  /** Whether `config` has it on. */
  readonly on: (config: Config) => boolean;
  /** The configuration's field that turns it on, where that is a field of its own set to `true`: a log's `config` event refuses it by name. */
  readonly field?: 'eviction' | 'radix' | 'tableGrowth' | 'retraction' | 'sourcePages' | 'draft' | 'stateSlots' | 'loadback';
}

/** Whether some request of `config` has a prompt prefix. */
const hasPrefix = (config: Config): boolean => config.requests.some((q) => q.prefix !== undefined);

/** Every switch's flag, words and test. */
export const SWITCH_DOCS: Readonly<Record<Switch, SwitchDoc>> = {
  // As the model has it: without a prefix there is nothing to evict.
  eviction: { flag: '--eviction', words: 'prefix-cache eviction', checks: '--requests 2,3:sys,2:sys --eviction', off: 'the prefix cache does not evict here', on: (c) => c.eviction === true && hasPrefix(c), field: 'eviction' },
  radix: { flag: '--radix', words: 'radix-tree prefix cache', checks: '--requests 2:sys,2:sys,1 --eviction --radix', off: 'the prefix cache is one entry per prefix here', on: (c) => c.radix === true && c.eviction === true && hasPrefix(c), field: 'radix' },
  tableGrowth: { flag: '--table-growth', words: 'table growth', checks: '--decode-steps 2 --table-growth', off: 'no page table grows here', on: (c) => c.tableGrowth === true, field: 'tableGrowth' },
  retraction: { flag: '--retraction', words: 'retraction', checks: '--retraction', off: 'D never retracts a request here', on: (c) => c.retraction === true, field: 'retraction' },
  decodeSteps: { flag: '--decode-steps', words: 'multi-step decode', checks: '--decode-steps 2', off: 'every request decodes in one step here', on: (c) => (c.decodeSteps ?? 1) > 1 },
  tokenSlots: { flag: '--page-size', words: 'token slots (pages of more than one token)', checks: '--page-size 2', off: 'every page holds one token here', on: (c) => (c.pageSize ?? 1) > 1 },
  prefixes: { flag: '--requests', words: 'prompt prefixes', checks: '--requests 2,3:sys', off: 'no request has a prompt prefix (LEN:PREFIX in --requests)', on: hasPrefix },
  prefixPages: { flag: '--prefix-pages', words: 'prefixes of more than one page', checks: '--requests 2,3:sys --prefix-pages sys=2', off: 'every prefix is one page here', on: (c) => Object.keys(c.prefixPages ?? {}).length > 0 },
  lengthRule: { flag: '--length-rule', words: 'length rule ge', checks: '--length-rule ge', off: 'the length rule is gt here', on: (c) => c.lengthRule === 'ge' },
  sourcePages: { flag: '--source-pages', words: "P's source pages", checks: '--source-pages', off: "P's source pages are not modelled here", on: (c) => c.sourcePages === true, field: 'sourcePages' },
  stateSlots: { flag: '--state-slots', words: "D's state slots and metadata rows", checks: '--state-slots', off: "D's state slots and metadata rows are not modelled here", on: (c) => c.stateSlots === true, field: 'stateSlots' },
  draft: { flag: '--draft', words: 'draft-model KV (speculative decoding)', checks: '--draft', off: "no draft model's KV is modelled here", on: (c) => c.draft === true, field: 'draft' },
  // A consumer that reads the model's mechanisms (m.mechanism) follows it as it is; one that asks the variant (hasMechanism) would give hardened all of them.
  without: { flag: '--without', words: 'hardened without some of its mechanisms', checks: '--variant hardened --without revoke-writer', off: 'hardened has all its mechanisms here', on: (c) => (c.without?.length ?? 0) > 0 },
  // As the model has it: without a prefix there is nothing in host memory to load back; not modelled with radix or retraction (spec/loadback.ts).
  loadback: { flag: '--loadback', words: 'host-cache load back', checks: '--requests 1,2:sys --loadback', off: 'no prefix is loaded back from host memory here', on: (c) => c.loadback === true && hasPrefix(c) && c.radix !== true && c.retraction !== true, field: 'loadback' },
};

/** A feature: a variant, an allocation order, a switch, a fault or an action kind. */
export type Feature = `variant:${Variant}` | `allocator:${Allocator}` | Switch | `fault:${Fault}` | `action:${ActionKind}`;

/**
 * Every feature, in the order a refusal looks for one: variant, order, switches, faults,
 * actions. Not the kinds no search takes (`OBSERVED_ONLY_KINDS`): no configuration brings
 * them, so none is refused for them; a consumer that drives them names them itself.
 */
export const FEATURES: readonly Feature[] = [
  ...VARIANTS.map((v): Feature => `variant:${v}`),
  ...ALLOCATORS.map((a): Feature => `allocator:${a}`),
  ...SWITCHES,
  ...FAULTS.map((f): Feature => `fault:${f}`),
  ...ACTION_KINDS.filter((k) => !(OBSERVED_ONLY_KINDS as readonly string[]).includes(k)).map((k): Feature => `action:${k}`),
];

/** A feature taken apart: its kind and its name. */
export type FeatureParts =
  | { readonly kind: 'variant'; readonly name: Variant }
  | { readonly kind: 'allocator'; readonly name: Allocator }
  | { readonly kind: 'switch'; readonly name: Switch }
  | { readonly kind: 'fault'; readonly name: Fault }
  | { readonly kind: 'action'; readonly name: ActionKind };

/** Feature `f` taken apart. */
export function partsOf(f: Feature): FeatureParts {
  const [kind, name] = f.split(':') as [string, string | undefined];
  if (name === undefined) return { kind: 'switch', name: f as Switch };
  return { kind, name } as FeatureParts;
}

/** The action kinds present where exactly `features` are on (kindPresent's rule, read off the features). */
function kindsUnder(features: ReadonlySet<Feature>): ActionKind[] {
  const has = (f: Feature): boolean => features.has(f);
  const on: KindSwitches = {
    earlyFree: has('fault:early-free'),
    prefixes: has('prefixes'),
    eviction: has('eviction') && has('prefixes'),
    tornWrite: has('fault:torn-write'),
    ownerCheck: VARIANTS.some((v) => checksOwner(v) && has(`variant:${v}`)),
    tableGrowth: has('tableGrowth'),
    retraction: has('retraction'),
    offloadAfterFree: has('fault:offload-after-free'),
    sourceEarlyFree: has('fault:source-early-free') && has('sourcePages'),
    auxTorn: has('fault:aux-torn'),
    draft: has('draft'),
    loadback: has('loadback') && has('prefixes'),
  };
  return ACTION_KINDS.filter((k) => kindPresent(k, on));
}

/** Every feature but the actions: the most that a configuration can switch on. */
const ALL_ON: ReadonlySet<Feature> = new Set(FEATURES.filter((f) => partsOf(f).kind !== 'action'));

/** The action kinds that feature `f` brings: present with everything on, absent with everything but `f`. */
export function kindsBroughtBy(f: Feature): ActionKind[] {
  const without = new Set(ALL_ON);
  without.delete(f);
  const rest = new Set(kindsUnder(without));
  return kindsUnder(ALL_ON).filter((k) => !rest.has(k));
}

/** The features that bring action kind `k` (none for a kind every configuration has). */
export function bringersOf(k: ActionKind): Feature[] {
  return [...ALL_ON].filter((f) => kindsBroughtBy(f).includes(k));
}

/** Features that together make action kind `k` present: its bringers, and the variant it needs when one (an owner check for `landTag`). */
function enablersOf(k: ActionKind): Feature[] {
  const by = bringersOf(k);
  if (kindsUnder(new Set(by)).includes(k)) return by;
  const variant = VARIANTS.find((v) => kindsUnder(new Set<Feature>([...by, `variant:${v}`])).includes(k));
  return variant === undefined ? by : [...by, `variant:${variant}`];
}

/** The features of `config`, in {@link FEATURES}' order: its variant and order, the switches on, its faults and the action kinds present. */
export function featuresOf(config: Config): Feature[] {
  const on = new Set<Feature>([`variant:${config.variant}`, `allocator:${config.allocator ?? 'sorted'}`]);
  for (const s of SWITCHES) if (SWITCH_DOCS[s].on(config)) on.add(s);
  for (const f of config.faults) on.add(`fault:${f}`);
  for (const k of kindsUnder(on)) on.add(`action:${k}`);
  return FEATURES.filter((f) => on.has(f));
}

/** The command-line flag that brings feature `f` ("--faults", "--table-growth"); for an action, its bringer's, or the action itself when every configuration has it. */
export function flagOf(f: Feature): string {
  const p = partsOf(f);
  if (p.kind === 'switch') return SWITCH_DOCS[p.name].flag;
  if (p.kind === 'action') {
    const by = bringersOf(p.name)[0];
    return by === undefined ? `action ${p.name}` : flagOf(by);
  }
  return p.kind === 'fault' ? '--faults' : `--${p.kind}`;
}

/** Feature `f` in words, with the action kinds it brings and any `more` in the same parenthesis: "fault torn-write (actions landData, landTag)". */
export function wordsOf(f: Feature, more: readonly string[] = []): string {
  const p = partsOf(f);
  const name = p.kind === 'switch' ? SWITCH_DOCS[p.name].words : `${p.kind} ${p.name}`;
  const kinds = p.kind === 'action' ? [] : kindsBroughtBy(f);
  const inside = [...(kinds.length === 0 ? [] : [`action${kinds.length === 1 ? '' : 's'} ${kinds.join(', ')}`]), ...more];
  return inside.length === 0 ? name : `${name} (${inside.join('; ')})`;
}

/** The flags of `pagecheck check` that turn feature `f` on in the default configuration (with the switch a fault acts under). */
export function checksOf(f: Feature): string {
  const p = partsOf(f);
  if (p.kind === 'switch') return SWITCH_DOCS[p.name].checks;
  if (p.kind === 'action') return oncePerFlag(enablersOf(p.name).map(checksOf).join(' '));
  if (p.kind !== 'fault') return `--${p.kind} ${p.name}`;
  const needs = FAULT_NEEDS[p.name];
  return `${needs === undefined ? '' : `${SWITCH_DOCS[needs].checks} `}--faults ${p.name}`;
}

/** `--flag value` groups, each flag kept at its first: the bringers of one action may name the same flag (eviction's requests, and the prefixes'). */
function oncePerFlag(flags: string): string {
  const groups = flags.split(/\s(?=--)/).filter((g) => g !== '');
  return groups.filter((g, i) => groups.findIndex((h) => h.split(' ')[0] === g.split(' ')[0]) === i).join(' ');
}
