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
 *    on no free list, in no other request's table. Another request reaches a page only
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
import { FOOTPRINTS, type Footprint } from '../spec/footprint.ts';
import { bodyLabel, NO_PAGE, type Model } from '../spec/model.ts';
import { propertyReads, type PropertyReads } from '../spec/property-reads.ts';
import { holderOf, PHASES, phaseOf, tablePage, type Phase, type State } from '../spec/state.ts';

/** Why partial-order reduction is off for `m`, or `undefined` where the model offers it. */
export function porOffReason(m: Model): string | undefined {
  if (m.retraction) return 'retraction makes the state graph cyclic (retract, resume, retract, ...), and the reduction is sound here only on an acyclic graph (docs/POR.md)';
  return undefined;
}

const PH = PHASES.length;

/** Whether kind `k`'s footprint stays within its request's own variables and table (condition 1, first half). */
function ownAndTable(fp: Footprint): boolean {
  return [...Object.values(fp.reads), ...Object.values(fp.writes)].every((reach) => reach === 'own' || reach === 'table');
}

/** Whether `k` (local) conflicts with `other`'s accesses of reach `any` (condition 1, second half). */
function conflictsWithAny(k: Footprint, other: Footprint): boolean {
  const anyReads = Object.entries(other.reads).filter(([, reach]) => reach === 'any').map(([v]) => v);
  const anyWrites = Object.entries(other.writes).filter(([, reach]) => reach === 'any').map(([v]) => v);
  const writes = Object.keys(k.writes);
  const reads = Object.keys(k.reads);
  return writes.some((v) => anyReads.includes(v) || anyWrites.includes(v)) || reads.some((v) => anyWrites.includes(v));
}

/** The set of `phase` among those `reads` tells apart (-1: none of them). */
function classOf(reads: PropertyReads, phase: Phase): number {
  return reads.phases.findIndex((set) => set.includes(phase));
}

/** Whether kind `k`, taken from `phase`, can change the property that reads `reads` (condition 3). */
export function visibleTo(k: Footprint, phase: Phase, reads: PropertyReads | undefined): boolean {
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
}

function staticsOf(actions: readonly Action[], properties: readonly ModelProperty[]): Statics {
  const present = ACTION_KINDS.filter((k) => actions.some((a) => a.kind === k));
  const local = (k: ActionKind): boolean => ownAndTable(FOOTPRINTS[k]) && present.every((o) => !conflictsWithAny(FOOTPRINTS[k], FOOTPRINTS[o]));
  const pages = (k: ActionKind): boolean => [...Object.values(FOOTPRINTS[k].reads), ...Object.values(FOOTPRINTS[k].writes)].includes('table');
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
    ACTION_KINDS.forEach((k, kk) => PHASES.forEach((phase, ph) => (bits[kk * PH + ph] = visibleTo(FOOTPRINTS[k], phase, reads) ? 1 : 0)));
    return bits;
  });
  return {
    reqOf: Uint16Array.from(actions, (a) => a.r),
    kindOf: Uint8Array.from(actions, (a) => ACTION_KINDS.indexOf(a.kind)),
    candidate,
    blockers,
    visible,
  };
}

/** The reduction of `m` (whose actions are `actions` and properties `properties`, as the checked model has them), or `undefined` where it is off ({@link porOffReason}). */
export function reductionOf(m: Model, actions: readonly Action[], properties: readonly ModelProperty[]): Reduction | undefined {
  if (porOffReason(m) !== undefined) return undefined;
  const statics = staticsOf(actions, properties);
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
      if (this.owner[p] !== r || holderOf(m, s, p) !== label || freeCopies(m, s, p) > 0) return false;
    }
    return true;
  }

  /** Which request's table holds each page of `s`. */
  private mapOwners(s: State): void {
    const m = this.m;
    const owner = this.owner;
    owner.fill(-1);
    for (let r = 0; r < m.n; r++) {
      for (let i = 0; i < m.len[r]!; i++) {
        const p = tablePage(m, s, r, i);
        if (p === NO_PAGE) continue;
        owner[p] = owner[p] === -1 || owner[p] === r ? r : -2;
      }
    }
    this.owned = true;
  }
}
