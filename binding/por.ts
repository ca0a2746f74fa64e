/**
 * Partial-order reduction for the spec (issue 26, item 1; the argument in full is
 * docs/POR.md): ample sets from the footprints of `spec/footprint.ts` and the property
 * reads of `spec/property-reads.ts`. The processes are the requests: an ample set is every
 * enabled action of one request `r`, taken alone, when
 *
 * 1. every kind of action that `r` can take in its phase is local: it reads and writes
 *    only `r`'s own variables and the pages of `r`'s table, and no kind of action present
 *    in the model reads with reach `any` a page variable it writes, or writes with reach
 *    `any` one it reads; or it is not local but disabled by its local guard (the part of
 *    its guard that reads only `r`'s own variables, `grow`'s). A local kind's guard reads
 *    only what no other request writes, so the actions of `r` enabled now stay enabled,
 *    and those disabled stay disabled, whatever the other requests do;
 * 2. where those kinds touch pages, every page of `r`'s table is `r`'s alone: held by `r`,
 *    on no free list, in no other request's table, save the tables of requests that can
 *    no longer touch a page they do not hold ({@link harmlessPhases}: under `hardened`'s
 *    `release-checks-holder`, a stale second release). Another request reaches a page only
 *    through its own table, the free list or the prefix cache (the reaches of the
 *    footprints), so it can neither touch such a page nor make it reachable; this
 *    condition is kept by every action of another request, and every action of `r` is
 *    independent of every action another request can take before `r` acts again
 *    (stubborn-set condition D1, with D2 from 1);
 * 3. no action of `r` enabled now is visible to a property still open: a property reads
 *    none of what it writes, the phases it can move `r` between are the same to the
 *    property, and it sets no flag bit the property reads. A monotone invariant (once
 *    false, false for good) is visible to nothing: no action can hide its violation.
 *
 * The state graph must be acyclic (every action moves a request forward: its phase, a
 * counter, a flag, a cache entry it fills once). Then each state's ample set keeps, from
 * it, a path to every deadlock, to a violation of every open invariant and to every value
 * of every open witness that the whole graph reaches (induction on the longest path from
 * a state; docs/POR.md). Retraction makes the graph cyclic (`retract`, `resume`,
 * `retract`, ...): there the model offers no reduction ({@link porOffReason}).
 */
import type { ModelProperty, Reducer, Reduction } from '../checker/model.ts';
import { ACTION_KINDS, type Action, type ActionKind } from '../spec/actions.ts';
import { freeCopies } from '../spec/allocator.ts';
import { FOOTPRINTS, type Accesses, type Footprint, type Reach } from '../spec/footprint.ts';
import { readsOf, setsOf, writesOf } from '../spec/footprint-of.ts';
import { bodyLabel, NO_PAGE, type Model } from '../spec/model.ts';
import { propertyReads, type PropertyReads } from '../spec/property-reads.ts';
import { holderOf, PHASES, phaseOf, tablePage, type Phase, type State } from '../spec/state.ts';

/** Why partial-order reduction is off for `m`, or `undefined` where the model offers it. */
export function porOffReason(m: Model): string | undefined {
  if (m.retraction) return 'retraction makes the state graph cyclic (retract, resume, retract, ...), and the reduction is sound here only on an acyclic graph (docs/POR.md)';
  return undefined;
}

const PH = PHASES.length;

/** A kind's accesses under one model: what it reads, and what it writes there (narrowed by a mechanism, `writesOf`). */
interface Effective {
  readonly reads: Accesses;
  readonly writes: Accesses;
}

/** The variables of `accesses` with one of the reaches `reaches`. */
const at = (accesses: Accesses, ...reaches: Reach[]): string[] => Object.entries(accesses).flatMap(([v, reach]) => (reaches.includes(reach) ? [v] : []));

/** Whether a footprint stays within its request's own variables and table (condition 1, first half). */
function ownAndTable(k: Effective): boolean {
  return [...Object.values(k.reads), ...Object.values(k.writes)].every((reach) => reach === 'own' || reach === 'table' || reach === 'held');
}

/** Whether `k` (local) conflicts with `other`'s accesses of reach `any` (condition 1, second half). */
function conflictsWithAny(k: Effective, other: Effective): boolean {
  const anyReads = at(other.reads, 'any');
  const anyWrites = at(other.writes, 'any');
  const writes = Object.keys(k.writes);
  const reads = Object.keys(k.reads);
  return writes.some((v) => anyReads.includes(v) || anyWrites.includes(v)) || reads.some((v) => anyWrites.includes(v));
}

/** The set of `phase` among those `reads` tells apart (-1: none of them). */
function classOf(reads: PropertyReads, phase: Phase): number {
  return reads.phases.findIndex((set) => set.includes(phase));
}

/** Whether kind `k`, taken from `phase`, can change the property that reads `reads` (condition 3). */
export function visibleTo(k: Pick<Footprint, 'moves' | 'sets' | 'writes'>, phase: Phase, reads: PropertyReads | undefined): boolean {
  if (reads === undefined) return true;
  if (reads.monotone === true) return false;
  const to = k.moves[phase] ?? [];
  if (to.some((p) => classOf(reads, p) !== classOf(reads, phase))) return true;
  if ((k.sets & reads.flags) !== 0) return true;
  return Object.keys(k.writes).some((v) => (reads.vars as readonly string[]).includes(v));
}

/** What the reduction knows of a model before any state: per action its request and kind, per phase whether a request there may be reduced to, and visibility. */
interface Statics {
  readonly reqOf: Uint16Array;
  readonly kindOf: Uint8Array;
  /** Per phase: 0, a request there is never an ample set; 1, it is; 2, it is when its pages are its own alone. */
  readonly candidate: Uint8Array;
  /** Per phase: the local guards of the kinds there that are not local, each of which must be false. */
  readonly blockers: readonly (readonly NonNullable<Footprint['localGuard']>[])[];
  /** Per property (the model's order), per kind and phase: whether the kind from that phase can change it. */
  readonly visible: readonly Uint8Array[];
  /** Per phase: whether a request there leaves every other request's pages alone ({@link harmlessPhases}). */
  readonly harmless: Uint8Array;
}

function staticsOf(m: Model, actions: readonly Action[], properties: readonly ModelProperty[]): Statics {
  const present = ACTION_KINDS.filter((k) => actions.some((a) => a.kind === k));
  const eff = (k: ActionKind): Effective => ({ reads: readsOf(m, k), writes: writesOf(m, k) });
  const local = (k: ActionKind): boolean => ownAndTable(eff(k)) && present.every((o) => !conflictsWithAny(eff(k), eff(o)));
  const pages = (k: ActionKind): boolean => [...Object.values(eff(k).reads), ...Object.values(eff(k).writes)].some((reach) => reach === 'table' || reach === 'held');
  const candidate = new Uint8Array(PH);
  const blockers = PHASES.map((phase, ph) => {
    const at = present.filter((k) => FOOTPRINTS[k].moves[phase] !== undefined);
    const others = at.filter((k) => !local(k));
    if (at.length === others.length || others.some((k) => FOOTPRINTS[k].localGuard === undefined)) return [];
    candidate[ph] = at.some((k) => local(k) && pages(k)) ? 2 : 1;
    return others.map((k) => FOOTPRINTS[k].localGuard!);
  });
  const visible = properties.map((p) => {
    const reads = propertyReads(p.name);
    const bits = new Uint8Array(ACTION_KINDS.length * PH);
    ACTION_KINDS.forEach((k, kk) => PHASES.forEach((phase, ph) => (bits[kk * PH + ph] = visibleTo({ ...FOOTPRINTS[k], sets: setsOf(m, k), writes: writesOf(m, k) }, phase, reads) ? 1 : 0)));
    return bits;
  });
  return {
    reqOf: Uint16Array.from(actions, (a) => a.r),
    kindOf: Uint8Array.from(actions, (a) => ACTION_KINDS.indexOf(a.kind)),
    candidate,
    blockers,
    visible,
    harmless: harmlessPhases(present, eff, local),
  };
}

/**
 * Per phase, whether a request there cannot touch a page of its table that another
 * request holds alone, from now on: no kind it can take in this phase or any it can move
 * to writes a page of its table but the ones it holds (a release that checks the holder,
 * an insert), nor reads there what a local kind writes. Its table then does not keep
 * another request's pages from being that request's alone (condition 2).
 */
function harmlessPhases(present: readonly ActionKind[], eff: (k: ActionKind) => Effective, local: (k: ActionKind) => boolean): Uint8Array {
  const written = new Set(present.filter(local).flatMap((k) => at(eff(k).writes, 'table', 'held')));
  const harmless = new Uint8Array(PH);
  PHASES.forEach((phase, ph) => {
    const reach = new Set<Phase>([phase]);
    for (const p of reach) for (const k of present) for (const to of FOOTPRINTS[k].moves[p] ?? []) reach.add(to);
    const kinds = present.filter((k) => [...reach].some((p) => FOOTPRINTS[k].moves[p] !== undefined));
    harmless[ph] = kinds.every((k) => at(eff(k).writes, 'table').length === 0 && at(eff(k).reads, 'table').every((v) => !written.has(v))) ? 1 : 0;
  });
  return harmless;
}

/** The reduction of `m` (whose actions are `actions` and properties `properties`, as the checked model has them), or `undefined` where it is off ({@link porOffReason}). */
export function reductionOf(m: Model, actions: readonly Action[], properties: readonly ModelProperty[]): Reduction | undefined {
  if (porOffReason(m) !== undefined) return undefined;
  const statics = staticsOf(m, actions, properties);
  return {
    reducer: (open) => {
      const visible = new Uint8Array(ACTION_KINDS.length * PH);
      statics.visible.forEach((bits, k) => {
        if (open[k] === true) for (let i = 0; i < bits.length; i++) visible[i] = visible[i]! | bits[i]!;
      });
      return new RequestReducer(m, statics, visible);
    },
  };
}

/** The ample sets of one level: the enabled actions of the first request that conditions 1 to 3 allow, else every successor. */
class RequestReducer implements Reducer {
  /** Per request, its enabled actions in the state at hand. */
  private readonly count: Int32Array;
  /** Per page, the request whose table holds it, -2 for more than one, -1 for none; valid while `owned` is true. */
  private readonly owner: Int32Array;
  private owned = false;

  constructor(
    private readonly m: Model,
    private readonly statics: Statics,
    /** Per kind and phase: whether it can change an open property. */
    private readonly visible: Uint8Array,
  ) {
    this.count = new Int32Array(m.n);
    this.owner = new Int32Array(m.pages);
  }

  ample(s: State, actions: Uint8Array, from: number, to: number, keep: Int32Array): number {
    const { reqOf, candidate } = this.statics;
    const total = to - from;
    const count = this.count;
    count.fill(0);
    for (let k = from; k < to; k++) count[reqOf[actions[k]!]!]!++;
    this.owned = false;
    for (let r = 0; r < this.m.n; r++) {
      if (count[r] === 0) continue;
      // Only this request can act: nothing to leave out.
      if (count[r] === total) return total;
      const ph = phaseOf(this.m, s, r);
      const c = candidate[ph]!;
      if (c === 0 || this.blocked(s, r, ph) || this.anyVisible(actions, from, to, r, ph) || (c === 2 && !this.alone(s, r))) continue;
      let j = 0;
      for (let k = from; k < to; k++) if (reqOf[actions[k]!] === r) keep[j++] = k - from;
      return j;
    }
    return total;
  }

  /** Whether the local guard of a kind that is not local allows it for `r` in phase `ph`: another request may then enable it. */
  private blocked(s: State, r: number, ph: number): boolean {
    for (const guard of this.statics.blockers[ph]!) if (guard(this.m, s, r)) return true;
    return false;
  }

  /** Whether some enabled action of `r`, from phase `ph`, can change an open property. */
  private anyVisible(actions: Uint8Array, from: number, to: number, r: number, ph: number): boolean {
    const { reqOf, kindOf } = this.statics;
    for (let k = from; k < to; k++) {
      const a = actions[k]!;
      if (reqOf[a] === r && this.visible[kindOf[a]! * PH + ph] === 1) return true;
    }
    return false;
  }

  /** Condition 2: every page of `r`'s table is held by `r`, on no free list, and in no other request's table. */
  private alone(s: State, r: number): boolean {
    const m = this.m;
    if (!this.owned) this.mapOwners(s);
    const label = bodyLabel(r);
    for (let i = 0; i < m.len[r]!; i++) {
      const p = tablePage(m, s, r, i);
      if (p === NO_PAGE) continue;
      const owner = this.owner[p]!;
      // -1: no table that counts holds it but `r`'s, whose phase may itself not count (it is then no ample set's anyway).
      if ((owner !== r && owner !== -1) || holderOf(m, s, p) !== label || freeCopies(m, s, p) > 0) return false;
    }
    return true;
  }

  /** Which request's table holds each page of `s`. */
  private mapOwners(s: State): void {
    const m = this.m;
    const owner = this.owner;
    owner.fill(-1);
    for (let r = 0; r < m.n; r++) {
      // A request that can no longer touch another's pages through its table does not count.
      if (this.statics.harmless[phaseOf(m, s, r)] === 1) continue;
      for (let i = 0; i < m.len[r]!; i++) {
        const p = tablePage(m, s, r, i);
        if (p === NO_PAGE) continue;
        owner[p] = owner[p] === -1 || owner[p] === r ? r : -2;
      }
    }
    this.owned = true;
  }
}
