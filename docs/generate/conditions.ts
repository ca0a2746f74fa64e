/**
 * When does something happen? Given the set of configurations (variant and faults) in
 * which a transition was seen, finds a short description of exactly that set in the
 * words of the spec: "with early-free without silent-stub, or length-fix". The
 * description is exact, never a guess: a greedy cover by terms that each lie wholly
 * inside the set (give or take points the caller does not care about), every term tried
 * over the whole variant × fault-subset space.
 */
import { VARIANTS, type Fault, type Variant } from '../../spec/index.ts';

/** A point of the space: a variant and the faults switched on. */
export interface Point {
  /** The variant. */
  readonly variant: Variant;
  /** The faults on, in catalogue order. */
  readonly faults: readonly Fault[];
}

/**
 * The faults the space varies: the catalogue but `lock-underflow`, which acts only where
 * the prefix cache evicts; no configuration explored here turns eviction on, so its points
 * would repeat the others exactly (and the cover's terms grow threefold per fault). And
 * but `auto-truncate`, which only replaces what P does with an over-long prompt (a cut
 * prefill instead of a stub or a refusal) and adds no arrow of its own: the conditions are
 * given for the stub's semantics, and docs/SLOTS.md describes the cut (the space, and the
 * time to derive it, would double). And but `segment-overlap`, which changes which pages a
 * release frees, never a phase: it adds no arrow either (docs/ALLOCATOR.md describes it).
 * And but retraction's two, which act only with config `retraction`, outside the lifecycle
 * space: named here, so that a fault the catalogue gains later joins the space by a
 * decision, not by default.
 */
export const SPACE_FAULTS = ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'torn-write'] as const satisfies readonly Fault[];

/** Every point: each variant with each subset of {@link SPACE_FAULTS}, in a fixed order. */
export function allPoints(): readonly Point[] {
  const out: Point[] = [];
  for (const variant of VARIANTS) {
    for (let mask = 0; mask < 1 << SPACE_FAULTS.length; mask++) {
      out.push({ variant, faults: SPACE_FAULTS.filter((_, i) => (mask >> i) & 1) });
    }
  }
  return out;
}

/** A stable key for a point. */
export function pointKey(p: Point): string {
  return `${p.variant}+${p.faults.join('+')}`;
}

/**
 * A conjunction: an optional constraint on the variant, one per fault, and optionally
 * "some other fault is on" (without it, "owner-check with any fault" needs four terms).
 */
export interface Term {
  readonly variant: { readonly is: boolean; readonly name: Variant } | undefined;
  readonly faults: ReadonlyMap<Fault, boolean>;
  readonly other: boolean;
}

/** Whether a point satisfies a term. */
export function matches(t: Term, p: Point): boolean {
  if (t.variant !== undefined && (p.variant === t.variant.name) !== t.variant.is) return false;
  for (const [f, on] of t.faults) if (p.faults.includes(f) !== on) return false;
  return !t.other || p.faults.some((f) => !t.faults.has(f));
}

function size(t: Term): number {
  return (t.variant === undefined ? 0 : 1) + t.faults.size + (t.other ? 1 : 0);
}

/** Every term, the most general first: built once, as {@link cover} runs for each transition. */
let terms: readonly Term[] | undefined;
const allTerms = (): readonly Term[] => (terms ??= buildTerms());

/** Every term, the most general first. */
function buildTerms(): Term[] {
  const variants: Term['variant'][] = [undefined, ...VARIANTS.map((name) => ({ is: true, name })), ...VARIANTS.map((name) => ({ is: false, name }))];
  const out: Term[] = [];
  for (const variant of variants) {
    for (let code = 0; code < 3 ** SPACE_FAULTS.length; code++) {
      const faults = new Map<Fault, boolean>();
      SPACE_FAULTS.forEach((f, i) => {
        const digit = Math.floor(code / 3 ** i) % 3;
        if (digit > 0) faults.set(f, digit === 1);
      });
      out.push({ variant, faults, other: false }, { variant, faults, other: true });
    }
  }
  return out.sort((a, b) => size(a) - size(b));
}

/** A term in words, commas kept for between terms: `not length-fix with silent-stub and any other fault without stale-free`. */
export function words(t: Term): string {
  const on = SPACE_FAULTS.filter((f) => t.faults.get(f) === true);
  const off = SPACE_FAULTS.filter((f) => t.faults.get(f) === false);
  const withs = [...on, ...(t.other ? [on.length > 0 || off.length > 0 ? 'any other fault' : 'any fault'] : [])];
  const parts = [
    t.variant === undefined ? '' : `${t.variant.is ? '' : 'not '}${t.variant.name}`,
    withs.length === 0 ? '' : `with ${withs.join(' and ')}`,
    off.length === 0 ? '' : `without ${off.join(' and ')}`,
  ];
  return parts.filter((w) => w !== '').join(' ');
}

/**
 * Describes the points of `inside` (keys from {@link pointKey}) within `universe`, where
 * the points of `dontCare` may be counted in or out, whichever is shorter (a transition
 * out of a phase that a configuration never reaches says nothing either way):
 * `undefined` when no condition is needed, the terms joined by ", or " otherwise.
 */
export function describe(inside: ReadonlySet<string>, universe: readonly Point[], dontCare: ReadonlySet<string> = new Set()): string | undefined {
  const terms = cover(inside, universe, dontCare);
  // Only the empty term covers every point, and the greedy cover takes it first when it can.
  return terms.some((t) => size(t) === 0) ? undefined : terms.map(words).join(', or ');
}

/** Which points of a universe each term of {@link allTerms} matches, one flag per point: {@link cover} runs once per transition of the lifecycle over the same thousands of terms and 256 points, and calling {@link matches} each time took about 10 s of the document's 14 s lifecycle (issue 28). */
const matchTables = new WeakMap<readonly Point[], readonly Uint8Array[]>();

function matchTable(universe: readonly Point[]): readonly Uint8Array[] {
  let table = matchTables.get(universe);
  if (table === undefined) {
    table = allTerms().map((t) => Uint8Array.from(universe, (p) => (matches(t, p) ? 1 : 0)));
    matchTables.set(universe, table);
  }
  return table;
}

/**
 * Terms that cover every point of `inside` and no point outside it but in `dontCare`:
 * each term lies wholly inside `inside` plus `dontCare`.
 */
export function cover(inside: ReadonlySet<string>, universe: readonly Point[], dontCare: ReadonlySet<string> = new Set()): Term[] {
  // Each point's key once, not once per term: the terms number thousands.
  const keys = universe.map(pointKey);
  const isInside = keys.map((k) => inside.has(k));
  const allowed = keys.map((k, i) => isInside[i] === true || dontCare.has(k));
  const points = universe.flatMap((_, i) => (isInside[i] === true ? [i] : []));
  if (points.length === 0) throw new Error('describe: no point of the universe is inside the set');
  const terms = allTerms();
  const table = matchTable(universe);
  // A candidate covers some point inside and none outside but in dontCare.
  const candidates = table.flatMap((row, j) => {
    let some = false;
    for (let i = 0; i < universe.length; i++) {
      if (row[i] === 0) continue;
      if (allowed[i] !== true) return [];
      some ||= isInside[i] === true;
    }
    return some ? [j] : [];
  });
  const chosen: Term[] = [];
  let left = points;
  while (left.length > 0) {
    // The term that covers most of what is left; on a tie, the shorter (candidates are sorted by size).
    let best = -1;
    let bestCount = 0;
    for (const j of candidates) {
      const row = table[j]!;
      let count = 0;
      for (const i of left) count += row[i]!;
      if (count > bestCount) [best, bestCount] = [j, count];
    }
    if (best < 0) throw new Error('describe: a point is not covered by any term');
    chosen.push(terms[best]!);
    const row = table[best]!;
    left = left.filter((i) => row[i] === 0);
  }
  return chosen;
}
