/**
 * What a consumer of the spec covers, declared as a whitelist of features (`features.ts`)
 * in the consumer's own folder, and everything that follows from it: which configurations
 * it refuses, the one-line refusal (the flag, what the consumer lacks, and the
 * `pagecheck check` that checks it instead), the faults and action kinds it draws or
 * obligates, and the "not covered" lines of a proof. A feature the catalogues gain is on
 * no whitelist, so every consumer refuses it until its declaration names it.
 */
import { ACTION_KINDS, type ActionKind } from './actions.ts';
import { ALLOCATORS, FAULT_NEEDS, FAULTS, VARIANTS, type Allocator, type Config, type Fault, type Variant } from './config.ts';
import { bringersOf, checksOf, FEATURES, featuresOf, flagOf, kindsBroughtBy, partsOf, SWITCHES, wordsOf, type Feature, type Switch } from './features.ts';

/** A consumer's declaration: the features it follows, by kind, and in its own words what it does instead of some it does not. */
export interface CoverageDeclaration {
  /** The variants it follows. */
  readonly variants: readonly Variant[];
  /** The allocation orders it follows. */
  readonly allocators: readonly Allocator[];
  /** The switches it follows. */
  readonly switches: readonly Switch[];
  /** The faults it follows. */
  readonly faults: readonly Fault[];
  /** The action kinds it has. */
  readonly actions: readonly ActionKind[];
  /** For a feature it does not follow, what it does instead ("lands every write whole"); the refusal says so. */
  readonly instead?: Readonly<Partial<Record<Feature, string>>>;
}

/** A consumer's coverage: its name, its declaration, and whether it covers a feature. */
export interface Coverage extends CoverageDeclaration {
  /** The consumer, as a refusal names it: "the pool". */
  readonly consumer: string;
  /** Whether it follows feature `f`. */
  readonly covers: (f: Feature) => boolean;
}

/** The coverage of `consumer` as `declaration` states it; throws when it explains a feature it covers. */
export function coverage(consumer: string, declaration: CoverageDeclaration): Coverage {
  const covered = new Set<Feature>([
    ...declaration.variants.map((v): Feature => `variant:${v}`),
    ...declaration.allocators.map((a): Feature => `allocator:${a}`),
    ...declaration.switches,
    ...declaration.faults.map((f): Feature => `fault:${f}`),
    ...declaration.actions.map((k): Feature => `action:${k}`),
  ]);
  for (const f of Object.keys(declaration.instead ?? {}) as Feature[]) {
    if (covered.has(f)) throw new Error(`coverage of ${consumer}: says what it does instead of ${f}, which it covers`);
  }
  return { ...declaration, consumer, covers: (f) => covered.has(f) };
}

/** The first feature of `config` that `c` does not cover, or `undefined` when it covers them all. */
export function uncoveredIn(c: Coverage, config: Config): Feature | undefined {
  return featuresOf(config).find((f) => !c.covers(f));
}

/** The names `c` covers among the members of `f`'s kind ("sorted, sglang, lifo"), for the refusal of a named one; `undefined` for a switch or an action. */
function alternatives(c: Coverage, f: Feature): string | undefined {
  const p = partsOf(f);
  const names = p.kind === 'variant' ? VARIANTS : p.kind === 'allocator' ? ALLOCATORS : p.kind === 'fault' ? FAULTS : undefined;
  if (names === undefined) return undefined;
  const kept = names.filter((n) => c.covers(`${p.kind}:${n}` as Feature));
  return kept.length === 0 ? `it follows no ${p.kind}` : `it follows ${p.kind}${kept.length === 1 ? '' : 's'} ${kept.join(', ')}`;
}

/** What `c` lacks of feature `f`, after its name: "lands every write whole: it has no fault torn-write (actions landData, landTag)". */
export function lacking(c: Coverage, f: Feature): string {
  const instead = c.instead?.[f] ?? c.instead?.[insteadFrom(c, f) ?? f];
  return instead === undefined ? `has no ${wordsOf(f)}` : `${instead}: it has no ${wordsOf(f)}`;
}

/** The feature whose words say what `c` does instead of `f`, when `f` has none: the switch a fault acts under, or the feature that brings an action, where `c` does not cover that either. */
function insteadFrom(c: Coverage, f: Feature): Feature | undefined {
  const p = partsOf(f);
  const from = p.kind === 'fault' ? FAULT_NEEDS[p.name] : p.kind === 'action' ? bringersOf(p.name).find((b) => !c.covers(b)) : undefined;
  return from !== undefined && !c.covers(from) ? from : undefined;
}

/** The one-line refusal of feature `f` by `c`: the flag, what `c` lacks, what it has of that kind, and the check that checks it instead. */
export function refusal(c: Coverage, f: Feature): string {
  const others = alternatives(c, f);
  return `${flagOf(f)}: ${c.consumer} ${lacking(c, f)}${others === undefined ? '' : `; ${others}`}; check it with \`pagecheck check ${checksOf(f)}\``;
}

/** The refusal of the first feature of `config` that `c` does not cover, or `undefined` when it covers them all. */
export function refusalOf(c: Coverage, config: Config): string | undefined {
  const f = uncoveredIn(c, config);
  return f === undefined ? undefined : refusal(c, f);
}

/** A guard for the action kinds a consumer has: it narrows a kind to them, so that the consumer's code matches exhaustively over its own kinds and a kind the spec gains needs no edit there (it is refused). */
export function kindsGuard<const K extends ActionKind>(kinds: readonly K[]): (k: ActionKind) => k is K {
  const has = new Set<ActionKind>(kinds);
  return (k): k is K => has.has(k);
}

/** The faults `c` follows, in the catalogue's order. */
export function coveredFaults(c: Coverage): Fault[] {
  return FAULTS.filter((f) => c.covers(`fault:${f}`));
}

/** The action kinds `c` has, in `ACTION_KINDS`' order. */
export function coveredKinds(c: Coverage): ActionKind[] {
  return ACTION_KINDS.filter((k) => c.covers(`action:${k}`));
}

/** The variants `c` follows, in `VARIANTS`' order. */
export function coveredVariants(c: Coverage): Variant[] {
  return VARIANTS.filter((v) => c.covers(`variant:${v}`));
}

/**
 * What `c` does not cover, grouped as a reader wants it: each switch with the actions it
 * brings and the faults that act under it, then each other fault, order and variant, then
 * each action that nothing above accounts for. One entry per group: the feature that leads
 * it and the words of the whole group.
 */
export function notCovered(c: Coverage): { readonly feature: Feature; readonly words: string }[] {
  const out: { feature: Feature; words: string }[] = [];
  const told = new Set<Feature>();
  for (const s of SWITCHES.filter((x) => !c.covers(x))) {
    const faults = FAULTS.filter((f) => FAULT_NEEDS[f] === s && !c.covers(`fault:${f}`));
    for (const f of [...faults.map((x): Feature => `fault:${x}`), ...kindsBroughtBy(s).map((k): Feature => `action:${k}`)]) told.add(f);
    out.push({ feature: s, words: wordsOf(s, faults.length === 0 ? [] : [`fault${faults.length === 1 ? '' : 's'} ${faults.join(', ')}`]) });
  }
  for (const f of FEATURES.filter((x) => !c.covers(x) && !told.has(x) && partsOf(x).kind !== 'switch')) {
    const p = partsOf(f);
    // An action is accounted for by the switch or fault that brings it, when that is not covered either.
    if (p.kind === 'action' && bringersOf(p.name).some((b) => !c.covers(b))) continue;
    out.push({ feature: f, words: wordsOf(f) });
  }
  return out;
}

/** What `c` does not cover, one line each as a proof prints it under its verdict: the group, what `c` does instead, and the bounded search that checks it. */
export function notCoveredLines(c: Coverage): string[] {
  return notCovered(c).map((g) => `not covered: ${g.words}: ${c.consumer} ${c.instead?.[g.feature] ?? 'has none'}; \`pagecheck check ${checksOf(g.feature)}\` checks it by bounded search.`);
}
