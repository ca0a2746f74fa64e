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
 * Which variables die with the table is a column of the layout table (`diesWithTable` in
 * `layout.ts`); {@link enter} resets every such variable of the request, so a variable
 * added there dies with no change here.
 *
 * A naive encoding that keeps every dead table has more states (up to about 3x on 6 to 8
 * pages); the counts of the two differ only by merging states that no action and no
 * property can tell apart.
 */
import type { Model } from './model.ts';
import { Ph, phaseOf, setPhase, type Phase, type State } from './state.ts';

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
  resetDead(m, t, r);
}

/** Resets request `r`'s variables that die with its table to all-ones, the empty table's value. */
function resetDead(m: Model, t: State, r: number): void {
  const dying = m.layout.dying;
  for (let k = 0; k < dying.length; k++) {
    const f = dying[k]!;
    // A loop, not fill(): a builtin call costs more than the few bytes of a table.
    for (let i = f.starts![r]!, end = i + f.width * m.len[r]!; i < end; i++) t[i] = 0xff;
  }
}

/** Whether every request has finished: the legitimate end of the model, where nothing more happening is right. */
export function allFinished(m: Model, s: State): boolean {
  for (let r = 0; r < m.n; r++) if (!isFinished(phaseOf(m, s, r))) return false;
  return true;
}
