/**
 * D's metadata slot (fault `aux-torn`, `aux.ts`): who holds it, the `bootstrap_room` it
 * holds, and whose first output token (the payload) it holds; each read and set through
 * the accessors below. One slot: the smallest pool in which a slot is reused.
 */
import type { Model } from './model.ts';
import type { State } from './state.ts';
import { requireField } from './layout.ts';
import { get, put } from './state-bytes.ts';

/** Which slot variable. */
type SlotVariable = 'auxHolder' | 'auxRoom' | 'auxPayload';

const read = (m: Model, s: State, name: SlotVariable): number => {
  const f = m.layout.fields[name];
  return f === undefined ? 0 : get(s, f.at, f.width);
};

const write = (m: Model, t: State, name: SlotVariable, label: number): void => {
  const f = requireField(m.layout, name);
  put(t, f.at, f.width, label);
};

/** Who holds the metadata slot (a request's label; 0 = free, and always 0 without `aux-torn`). */
export function auxHolderOf(m: Model, s: State): number {
  return read(m, s, 'auxHolder');
}

/** The slot's `bootstrap_room`: 0 (not yet written) or the label of the request whose room landed. */
export function auxRoomOf(m: Model, s: State): number {
  return read(m, s, 'auxRoom');
}

/** Whose payload (first output token) the slot holds: the last one that landed (0 = never written). */
export function auxPayloadOf(m: Model, s: State): number {
  return read(m, s, 'auxPayload');
}

/** The slot is held by `label` (0: free). */
export function setAuxHolder(m: Model, t: State, label: number): void {
  write(m, t, 'auxHolder', label);
}

/** The slot's room becomes `label` (0: reset, "not yet written"). */
export function setAuxRoom(m: Model, t: State, label: number): void {
  write(m, t, 'auxRoom', label);
}

/** The slot's payload becomes `label`'s. */
export function setAuxPayload(m: Model, t: State, label: number): void {
  write(m, t, 'auxPayload', label);
}
