/**
 * The checks of test/spec/footprint.test.ts: each action kind's footprint
 * (`spec/footprint.ts`) and each property's reads (`spec/property-reads.ts`) held to the
 * spec's own `step` and predicates, element by element of the layout table. Each check
 * returns the problems it found as sentences (empty: none), so that the test prints the
 * first and the counts.
 */
import { FOOTPRINTS, type Reach } from '../../spec/footprint.ts';
import { readsOf, setsOf, writesOf } from '../../spec/footprint-of.ts';
import { propertyReads, type PropertyReads } from '../../spec/property-reads.ts';
import { actionLabel, allActions, bodyLabel, freeCopies, holderOf, initial, isLive, NO_PAGE, PHASES, phaseOf, flagsOf, step, tableIsDead, tablePage, type Action, type Field, type Model, type Property, type State } from '../../spec/index.ts';
import { keyOf } from '../checker/orbits.ts';

/** One byte of the state: its variable and which element of it (a page, a request, a prefix, a list entry). */
interface ByteOf {
  readonly field: Field;
  /** The element: a page, a request, a prefix group or a list entry (for a per-position variable, its request). */
  readonly elem: number;
  /** The bytes of the element. */
  readonly from: number;
  readonly to: number;
}

/** Per byte of `m`'s states, its variable and element. */
export function bytesOf(m: Model): ByteOf[] {
  const out: ByteOf[] = [];
  for (const field of m.layout.order) {
    if (field.starts !== undefined) {
      for (let r = 0; r < m.n; r++) {
        const from = field.starts[r]!;
        const to = from + field.width * m.len[r]!;
        for (let b = from; b < to; b++) out[b] = { field, elem: r, from, to };
      }
      continue;
    }
    for (let b = field.at; b < field.at + field.bytes; b++) {
      const elem = Math.floor((b - field.at) / field.width);
      out[b] = { field, elem, from: field.at + elem * field.width, to: field.at + (elem + 1) * field.width };
    }
  }
  return out;
}

/** The pages in request `r`'s table in `s`. */
function tablePages(m: Model, s: State, r: number): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < m.len[r]!; i++) {
    const p = tablePage(m, s, r, i);
    if (p !== NO_PAGE) out.add(p);
  }
  return out;
}

/** Whether element `elem` of a variable lies within `reach` for an action of request `r` in state `s`. */
function within(m: Model, s: State, r: number, scope: Field['row']['scope'], elem: number, reach: Reach): boolean {
  if (reach === 'any') return true;
  if (scope === 'request' || scope === 'position') return reach === 'own' && elem === r;
  if (scope !== 'page') return false;
  if (reach === 'table') return tablePages(m, s, r).has(elem);
  if (reach === 'held') return tablePages(m, s, r).has(elem) && holderOf(m, s, elem) === bodyLabel(r);
  if (reach === 'free') return freeCopies(m, s, elem) > 0;
  if (reach === 'cached') return holderOf(m, s, elem) > m.n;
  return false;
}

/** What action `a` changed from `s` to `t` that its footprint does not declare; empty when every change is declared. */
export function undeclaredWrites(m: Model, map: readonly ByteOf[], s: State, a: Action, t: State): string[] {
  const fp = FOOTPRINTS[a.kind];
  const out: string[] = [];
  const say = (what: string): number => out.push(`${actionLabel(m, a)}: ${what}`);
  const from = PHASES[phaseOf(m, s, a.r)]!;
  const moves = fp.moves[from];
  if (moves === undefined) say(`enabled in phase ${from}, not among its moves`);
  else if (!moves.includes(PHASES[phaseOf(m, t, a.r)]!)) say(`moves ${from} to ${PHASES[phaseOf(m, t, a.r)]}, not declared`);
  for (let b = 0; b < s.length; b++) {
    if (s[b] === t[b]) continue;
    const { field, elem } = map[b]!;
    const name = field.name;
    if (name === 'phase') {
      if (elem !== a.r) say(`changes request ${elem}'s phase`);
      continue;
    }
    if (name === 'flags') {
      if (elem !== a.r || (flagsOf(m, t, elem) & ~flagsOf(m, s, elem) & ~setsOf(m, a.kind)) !== 0 || (flagsOf(m, s, elem) & ~flagsOf(m, t, elem)) !== 0) say(`changes flags ${flagsOf(m, s, elem)} -> ${flagsOf(m, t, elem)} of request ${elem}`);
      continue;
    }
    // The reset of a dead table (liveness.ts), implied by the move.
    if (field.row.diesWithTable && elem === a.r && tableIsDead(m, phaseOf(m, t, a.r)) && t[b] === 0xff) continue;
    const writes = writesOf(m, a.kind);
    const reach = writes[name as keyof typeof writes];
    if (reach === undefined || !within(m, s, a.r, field.row.scope, elem, reach)) say(`writes ${name}[${elem}], declared ${reach ?? 'nowhere'}`);
  }
  return out;
}

/** Which bytes of `s` an action of request `r` of kind `kind` declares it reads: its phase, and each declared read within its reach. */
function readMask(m: Model, map: readonly ByteOf[], s: State, a: Action): Uint8Array {
  const reads = readsOf(m, a.kind);
  const keep = new Uint8Array(s.length);
  for (let b = 0; b < s.length; b++) {
    const { field, elem } = map[b]!;
    if (field.name === 'phase') keep[b] = elem === a.r ? 1 : 0;
    else {
      const reach = reads[field.name as keyof typeof reads];
      keep[b] = reach !== undefined && within(m, s, a.r, field.row.scope, elem, reach) ? 1 : 0;
    }
  }
  return keep;
}

/**
 * Action `a` in `s`, and again in `s` with every element it does not declare it reads
 * taken from `other` (another reachable state): its enabledness must be the same, what it
 * changed must change alike, and nothing else may change but its declared writes.
 */
export function undeclaredReads(m: Model, map: readonly ByteOf[], s: State, other: State, a: Action): string[] {
  const keep = readMask(m, map, s, a);
  const mixed = s.slice();
  for (let b = 0; b < s.length; b++) if (keep[b] === 0) mixed[b] = other[b]!;
  const t = step(m, s, a);
  let u: State | undefined;
  try {
    u = step(m, mixed, a);
  } catch (e) {
    return [`${actionLabel(m, a)}: throws once undeclared reads change: ${String(e)}`];
  }
  if ((t === undefined) !== (u === undefined)) return [`${actionLabel(m, a)}: enabledness depends on an undeclared read`];
  if (t === undefined || u === undefined) return [];
  const writes = writesOf(m, a.kind);
  for (let b = 0; b < s.length; b++) {
    const { field } = map[b]!;
    const declared = field.name === 'phase' || field.name === 'flags' || field.row.diesWithTable || writes[field.name as keyof typeof writes] !== undefined;
    if (t[b] !== s[b] ? u[b] === t[b] : u[b] === mixed[b] || (declared && u[b] === t[b])) continue;
    return [`${actionLabel(m, a)}: its effect on ${field.name}[${map[b]!.elem}] depends on an undeclared read`];
  }
  return [];
}

/** An action's local guard (`localGuard`): true where the action is enabled, and the same when everything but its request's own variables is replaced by `other`'s. */
export function localGuardProblems(m: Model, map: readonly ByteOf[], s: State, other: State, a: Action): string[] {
  const guard = FOOTPRINTS[a.kind].localGuard;
  if (guard === undefined) return [];
  const out: string[] = [];
  if (step(m, s, a) !== undefined && !guard(m, s, a.r)) out.push(`${actionLabel(m, a)}: enabled where its local guard is false`);
  const mixed = s.slice();
  for (let b = 0; b < s.length; b++) {
    const { field, elem } = map[b]!;
    const own = (field.row.scope === 'request' || field.row.scope === 'position') && elem === a.r;
    if (!own) mixed[b] = other[b]!;
  }
  if (guard(m, mixed, a.r) !== guard(m, s, a.r)) out.push(`${actionLabel(m, a)}: its local guard reads another request's variables, or a page's`);
  return out;
}

/** The class of `phase` among `reads`' sets: the set's index, or -1 for the phases in none. */
function classOf(reads: PropertyReads, phase: number): number {
  return reads.phases.findIndex((set) => set.includes(PHASES[phase]!));
}

/** Whether the transition `s` to `t` changes something that `reads` declares (a dead request's dying variables aside). */
export function touches(m: Model, map: readonly ByteOf[], reads: PropertyReads, s: State, t: State): boolean {
  for (let r = 0; r < m.n; r++) {
    if (classOf(reads, phaseOf(m, s, r)) !== classOf(reads, phaseOf(m, t, r))) return true;
    if (((flagsOf(m, s, r) ^ flagsOf(m, t, r)) & reads.flags) !== 0) return true;
  }
  for (let b = 0; b < s.length; b++) {
    if (s[b] === t[b]) continue;
    const { field, elem } = map[b]!;
    if (!reads.vars.includes(field.name as PropertyReads['vars'][number])) continue;
    // A request's table (and saved copy) is read only while it is live.
    if (field.row.diesWithTable && !isLive(phaseOf(m, s, elem)) && !isLive(phaseOf(m, t, elem))) continue;
    return true;
  }
  return false;
}

/** Properties whose value changed from `s` to `t` though nothing they declare they read did, or monotone ones that became true again. */
export function undeclaredPropertyReads(m: Model, map: readonly ByteOf[], properties: readonly Property[], s: State, a: Action, t: State): string[] {
  const out: string[] = [];
  for (const p of properties) {
    const reads = propertyReads(p.name);
    if (reads === undefined) {
      out.push(`${p.name}: declares no reads`);
      continue;
    }
    const before = p.holds(m, s);
    const after = p.holds(m, t);
    if (reads.monotone === true && !before && after) out.push(`${p.name}: monotone, but ${actionLabel(m, a)} makes it hold again`);
    if (before !== after && !touches(m, map, reads, s, t)) out.push(`${p.name}: changed by ${actionLabel(m, a)}, which changes nothing it declares it reads`);
  }
  return out;
}

/** Up to `budget` reachable states of `m`, breadth-first (all of them with `Infinity`). */
export function explore(m: Model, budget: number): State[] {
  const actions = allActions(m);
  const seen = new Set<string>([keyOf(initial(m))]);
  const states = [initial(m)];
  for (let k = 0; k < states.length && states.length < budget; k++) {
    for (const a of actions) {
      const t = step(m, states[k]!, a);
      if (t === undefined || seen.has(keyOf(t))) continue;
      seen.add(keyOf(t));
      states.push(t);
    }
  }
  return states;
}
