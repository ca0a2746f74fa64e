/**
 * Only live state. A variable that nothing can read again is reset to a canonical value
 * when it dies, so that two states which differ only in what nobody will ever read are
 * one state, as SPIN's data-flow optimisation makes them. The rule is one per variable,
 * stated here and applied by the one accessor that moves a request into a phase.
 *
 * - A request's page table is read by `prefill`, `stub`, `decode`, `insert` and `free`
 *   while the request is in flight, and by the invariants only while it is live. Once the
 *   request has finished (freed, its late write landed, or released a second time),
 *   only a fault that releases an old table again can read it: each fault declares
 *   whether it can (`FAULT_REREADS_FINISHED_TABLE` in `config.ts`). Without such a fault
 *   the table dies when the request finishes; after the second release it always dies.
 *   A dead table is all empty slots, as before `allocate`.
 * - What is kept although a finished request will not use it: its read set and its flags,
 *   because the invariants (`Isolation`, `ReadsOwnPages`) and witnesses (`PrefixHit`)
 *   read them in every state; page contents and tags, because a page's next holder reads
 *   them.
 *
 * A naive encoding that keeps every dead table has more states (up to about 3x on 6 to 8
 * pages); the counts of the two differ only by merging states that no action and no
 * property can tell apart.
 */
import type { Model } from './model.ts';
import { clearTable, Ph, phaseOf, setPhase, type Phase, type State } from './state.ts';

/** Whether a request in `phase` has finished: nothing of its handoff is left to happen (a legitimate end for it). */
export function isFinished(phase: number): boolean {
  return phase === Ph.freed || phase === Ph.landed || phase === Ph.released;
}

/** Whether a request's page table can never be read again once it is in `phase`. */
export function tableIsDead(m: Model, phase: number): boolean {
  if (m.keepDeadState) return false;
  return phase === Ph.released || (isFinished(phase) && !m.rereadsFinishedTable);
}

/** Moves request `r` of a state being built into `phase`, resetting what dies there. */
export function enter(m: Model, t: State, r: number, phase: Phase): void {
  setPhase(m, t, r, phase);
  if (!tableIsDead(m, phaseOf(m, t, r))) return;
  clearTable(m, t, r);
}

/** Whether every request has finished: the legitimate end of the model, where nothing more happening is right. */
export function allFinished(m: Model, s: State): boolean {
  for (let r = 0; r < m.n; r++) if (!isFinished(s[m.phaseAt + r] ?? 0)) return false;
  return true;
}
