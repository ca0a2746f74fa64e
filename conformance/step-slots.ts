/**
 * D's state slots and metadata rows in a log (config `stateSlots`, slot-ledger.ts): the ids
 * an `allocate` names, what the commit read from its row (`handoff`), what each decode step
 * reads from its state slot, and the line that returns the slot (`slotFree`). A read of
 * another request's state or first token is `Isolation` at its line, as a read of another
 * request's page is (the spec records both at table position 0, spec/state-slots.ts); one
 * never written is `Integrity` with `--integrity`.
 */
import type { LogPool } from './pool.ts';
import type { SlotPick } from './slot-ledger.ts';
import { OK, phaseWords, refused, type EventContext, type StepResult } from './step-context.ts';

/** The ids a logged `allocate` names for its state slot and metadata row. */
export function pickOf(ctx: EventContext): SlotPick {
  const e = ctx.event;
  if (e.kind !== 'allocate') return {};
  return { ...(e.stateSlot === undefined ? {} : { state: e.stateSlot }), ...(e.metadataRow === undefined ? {} : { row: e.metadataRow }) };
}

/** Before an allocation: why the state cannot take the logged ids (one is held), or `undefined`; ids without `stateSlots` are bad input's (log-model.ts). */
export function slotsRefusal(ctx: EventContext, pool: LogPool): StepResult | undefined {
  const why = pool.slots?.refusalOf(pickOf(ctx));
  return why === undefined ? undefined : refused(`allocate(${ctx.info.id}): ${why}`);
}

/** What a read of `label` from the request's slot `what` breaks: `Isolation` (another's), `Integrity` (never written, with `--integrity`), or nothing. */
function slotRead(ctx: EventContext, pool: LogPool, label: number, what: string, content: string): StepResult {
  const own = pool.serial(ctx.slot);
  if (label === own) return OK;
  const name = ctx.info.id;
  if (label !== 0) return { kind: 'violation', invariant: 'Isolation', headline: [`${name} read ${what}, which holds ${ctx.window.nameOf(label)}'s ${content}.`], involved: [label] };
  if (!ctx.integrity) return OK;
  return { kind: 'violation', invariant: 'Integrity', headline: [`${name} read ${what}, never written during its hold: its answer is garbage (nothing leaked).`], involved: [] };
}

/** After the commit (`handoff`): what it read from the request's metadata row. */
export function afterCommit(ctx: EventContext, pool: LogPool): StepResult {
  const slots = pool.slots;
  if (slots === undefined) return OK;
  return slotRead(ctx, pool, slots.rowReadOf(ctx.slot), 'its metadata row', 'first output token');
}

/** At a decode step (the first, or a later one, which reads it again): what it reads from the request's state slot now. */
export function stateAtDecode(ctx: EventContext, pool: LogPool): StepResult {
  const slots = pool.slots;
  if (slots === undefined) return OK;
  return slotRead(ctx, pool, slots.stateRead(ctx.slot), `state slot ${slots.stateSlotOf(ctx.slot)}`, 'state');
}

/** A `slotFree` line: the request's state slot is the one it names, and the spec has released it by now. */
export function slotFreed(ctx: EventContext, pool: LogPool): StepResult {
  const slots = pool.slots;
  const e = ctx.event;
  if (slots === undefined || e.kind !== 'slotFree') return refused('slotFree needs stateSlots: true in the config event');
  const name = ctx.info.id;
  const k = slots.stateSlotOf(ctx.slot);
  if (k !== e.stateSlot) return refused(`${name}'s state slot is ${k < 0 ? 'none' : k}; the log says ${e.stateSlot}`);
  if (slots.holdsState(ctx.slot, pool.serial(ctx.slot))) return refused(`${name} still holds state slot ${k}: ${phaseWords(pool, ctx.slot, name)}, and the spec returns the slot at its release (free or timeout)${slots.freesAtCommit ? ' or its commit' : ''}`);
  return OK;
}
