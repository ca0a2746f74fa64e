/**
 * The set of states the system may be in: when two are the same (they are then merged),
 * the forks of a hidden step that may land on an event's pages (landed before it, or not
 * yet), and when a request is finished in every one, so that its slot may go to the next.
 */
import { Ph } from '../spec/index.ts';
import { tableOf } from './pool.ts';
import { land, type EventContext, type Possible } from './step.ts';

// Phase codes read once: a namespace re-export is a getter call on every access.
const { timedOut: TIMED_OUT, freed: FREED, released: RELEASED, landed: LANDED } = Ph;

/** Whether two states are the same (compared only when the set holds several). */
export function samePossible(a: Possible, b: Possible): boolean {
  const p = a.pool;
  const q = b.pool;
  const eq = (x: ArrayLike<number>, y: ArrayLike<number>): boolean => {
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  };
  if (!eq(p.holder, q.holder) || !eq(p.data, q.data) || !eq(p.tag, q.tag) || !eq(p.phases, q.phases) || !eq(p.flags, q.flags) || !eq(p.readCounts, q.readCounts)) return false;
  if (a.pending.length !== b.pending.length || !a.pending.every((h, i) => h.slot === b.pending[i]?.slot)) return false;
  for (let s = 0; s < p.options.slots; s++) if (!eq(tableOf(p, s), tableOf(q, s))) return false;
  if (!eq(p.sourceLabel, q.sourceLabel)) return false;
  // The host tier's loads and copies, and the draft KV (tier-pool.ts): absent under radix.
  if (!eq(p.load ?? [], q.load ?? []) || !eq(p.hostReused ?? [], q.hostReused ?? []) || !eq(p.draft ?? [], q.draft ?? [])) return false;
  return p.slots === undefined || q.slots === undefined || p.slots.same(q.slots);
}

/** The states of `s` with each hidden step that may land on the event's pages landed before it, or not. */
export function variants(ctx: EventContext, s: Possible): Possible[] {
  // Most events meet no detached write: test before building anything.
  if (!s.pending.some((h) => h.slot !== ctx.slot && s.pool.phase(h.slot) === TIMED_OUT)) return [s];
  const detached = s.pending.filter((h) => h.slot !== ctx.slot && s.pool.phase(h.slot) === TIMED_OUT);
  if (detached.length === 0) return [s];
  const touched = new Set(ctx.pages?.toArray() ?? tableOf(s.pool, ctx.slot));
  let out = [s];
  for (const h of detached) {
    if (!tableOf(s.pool, h.slot).some((p) => touched.has(p))) continue;
    out = out.flatMap((v) => {
      const landed: Possible = { pool: v.pool.fork(), pending: [...v.pending], path: v.path === undefined ? undefined : [...v.path] };
      const target = landed.pending.find((x) => x.slot === h.slot);
      return target !== undefined && land(ctx, landed, target) ? [v, landed] : [v];
    });
  }
  return out;
}

/**
 * Whether the slot's request is finished in every possible state: only then may its slot
 * go to the next request. A state where it is not (a hidden step of it still to come)
 * still needs the slot, and its next event must find the request there.
 */
export function finishedEverywhere(states: readonly Possible[], slot: number): boolean {
  return states.every((s) => isDone(s, slot));
}

/** Whether the slot's request is finished in this state, with nothing of it pending. */
function isDone(s: Possible, slot: number): boolean {
  const phase = s.pool.phase(slot);
  const over = phase === FREED || phase === RELEASED || phase === LANDED;
  return over && !s.pending.some((h) => h.slot === slot);
}
