/**
 * What `fast-emit.ts` reads off the fast family's description (`fast-actions.ts`) before it
 * writes code: which fields and phases an action writes, whether it is quiet, its late
 * form (the same action from a late phase, with the phases it enters mapped), and whether
 * a table naming a page twice would make one byte written twice.
 */
import { isFinished } from '../spec/liveness.ts';
import { Ph, isLive, type Phase } from '../spec/state.ts';
import { FIELDS, type Effect, type FastAction, type Field } from './fast-actions.ts';
import { CONJUNCTION_READS } from './properties.ts';

/** The fields an action's effects write (a finished phase's dead table too), and the phases they enter; on time, so a late-only branch (`ifLate`) is left out. */
function writesOf(effects: readonly Effect[], fields: Set<Field> = new Set(), phases: Set<string> = new Set()): { fields: Set<Field>; phases: Set<string> } {
  for (const e of effects) {
    if ('set' in e) fields.add(e.set);
    else if ('phase' in e) {
      phases.add(e.phase);
      if (isFinished(Ph[e.phase])) fields.add('table');
    } else if ('each' in e) writesOf(e.steps, fields, phases);
    else if ('ifLate' in e) writesOf(e.else, fields, phases);
    else if ('if' in e) {
      writesOf(e.then, fields, phases);
      writesOf(e.else ?? [], fields, phases);
    }
  }
  return { fields, phases };
}

/**
 * Whether action `a` is quiet: it writes no field the conjoined invariants read, and every
 * phase it enters is live exactly when the phases it leaves are (the invariants read a
 * phase only for its liveness).
 */
export function isQuiet(a: FastAction): boolean {
  const { fields, phases } = writesOf(a.effects);
  const liveFrom = a.phases.map((p) => isLive(Ph[p]));
  const sameLiveness = [...phases].every((to) => liveFrom.every((from) => from === isLive(Ph[to as keyof typeof Ph])));
  return sameLiveness && [...fields].every((f) => !CONJUNCTION_READS.includes(f));
}

/** A dead table, as `enter` leaves it when a phase finishes the request (liveness.ts): all empty slots, unless the model keeps it there (`FastFamily`'s `clearOn`). */
export function tableDies(phase: Phase): Effect {
  return { if: `f.clearOn[Ph.${phase}] === 1`, then: [{ each: 'position', steps: [{ set: 'table', to: '0xff' }] }] };
}

/** The phase of an action's late form. */
export const lateFromOf = (a: FastAction): Phase => a.lateFrom ?? 'timedOut';

/** `effects` with each phase entered that `late` maps replaced by its late one when the request is in phase `from`, and each late-only branch taken there. */
function lateEffects(effects: readonly Effect[], late: Readonly<Partial<Record<Phase, Phase>>>, from: Phase): Effect[] {
  const cond = `phase === Ph.${from}`;
  return effects.map((e): Effect => {
    if ('phase' in e) {
      const to = late[e.phase];
      return to === undefined ? e : { if: cond, then: [{ phase: to }], else: [e] };
    }
    if ('each' in e) return { ...e, steps: lateEffects(e.steps, late, from) };
    if ('ifLate' in e) return { if: `${cond} && ${e.ifLate}`, then: e.then, else: lateEffects(e.else, late, from) };
    if ('if' in e) return { ...e, then: lateEffects(e.then, late, from), ...(e.else === undefined ? {} : { else: lateEffects(e.else, late, from) }) };
    return e;
  });
}

/** The effects the emitted code runs: the description's, with the late phases when the action has them. */
export function effectsOf(a: FastAction): readonly Effect[] {
  return a.late === undefined ? a.effects : lateEffects(a.effects, a.late, lateFromOf(a));
}

/** The emitted expression of whether a successor is quiet: `isQuiet` of the action, and of its late form (as an action of its own). */
export function quietOf(a: FastAction): string | undefined {
  const onTime = isQuiet(a);
  const from = lateFromOf(a);
  const late = a.late !== undefined && isQuiet({ ...a, phases: [from], effects: lateEffects(a.effects, a.late, from) });
  if (a.late === undefined || onTime === late) return onTime ? 'true' : undefined;
  return onTime ? `phase !== Ph.${from}` : `phase === Ph.${from}`;
}

/** Whether some page-scoped write sits in a loop over table positions, where a table that names a page twice writes one byte twice. */
export function writesPagesOfTable(effects: readonly Effect[], inTable = false): boolean {
  return effects.some((e) => {
    if ('set' in e) return inTable && FIELDS[e.set].scope === 'page';
    if ('each' in e) return writesPagesOfTable(e.steps, inTable || e.each === 'position');
    if ('if' in e || 'ifLate' in e) return writesPagesOfTable(e.then, inTable) || writesPagesOfTable(e.else ?? [], inTable);
    return false;
  });
}
