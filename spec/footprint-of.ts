/**
 * What an action kind reads, writes and sets under one model: its footprint
 * (`footprint.ts`) with the conditional accesses its configuration's layout brings, over
 * the variables the layout has. Partial-order reduction (`binding/por.ts`) and the
 * footprints' test read a kind's accesses through these, never the rows directly.
 */
import type { ActionKind } from './actions.ts';
import { FOOTPRINTS, type Accesses, type Conditional, type Footprint, type Reach } from './footprint.ts';
import type { VariableName } from './layout.ts';
import type { Model } from './model.ts';

/** `accesses` without the variables `m`'s layout does not have: an absent variable is touched by nobody, so it orders nothing. */
function present<T extends Accesses>(m: Model, accesses: T): T {
  return Object.fromEntries(Object.entries(accesses).filter(([v]) => m.layout.fields[v as VariableName] !== undefined)) as T;
}

/** `fp`'s conditional accesses that `m`'s layout brings. */
const conditionals = (m: Model, fp: Footprint): readonly Conditional[] => (fp.withVariables ?? []).filter((c) => m.layout.fields[c.variable] !== undefined);

/** `a` and `b` together: a variable both reach keeps its reach where they agree and reaches any element where they do not (the wider, without ordering the reaches). */
function union<T extends Accesses>(a: T, b: Accesses): T {
  const out: Record<string, Reach> = { ...a };
  for (const [v, reach] of Object.entries(b)) out[v] = out[v] === undefined || out[v] === reach ? reach : 'any';
  return out as T;
}

/** What kind `kind` may read under `m`: its reads, with those its layout brings, over the variables `m` has. */
export function readsOf(m: Model, kind: ActionKind): Accesses {
  const fp = FOOTPRINTS[kind];
  return present(m, conditionals(m, fp).reduce<Accesses>((acc, c) => union(acc, c.reads), fp.reads));
}

/** The flag bits kind `kind` may set under `m`: its own, with those its layout brings. */
export function setsOf(m: Model, kind: ActionKind): number {
  const fp = FOOTPRINTS[kind];
  return conditionals(m, fp).reduce((acc, c) => acc | (c.sets ?? 0), fp.sets);
}

/** What kind `kind` may write under `m`: its writes, narrowed where `m` has the mechanism that narrows them, with those its layout brings, over the variables `m` has. */
export function writesOf(m: Model, kind: ActionKind): Omit<Accesses, 'flags'> {
  const fp = FOOTPRINTS[kind];
  const base = fp.narrowed !== undefined && m.mechanism[fp.narrowed.mechanism] ? fp.narrowed.writes : fp.writes;
  return present(m, conditionals(m, fp).reduce<Omit<Accesses, 'flags'>>((acc, c) => union(acc, c.writes), base));
}
