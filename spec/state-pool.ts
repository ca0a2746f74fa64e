/**
 * D's pools of state slots and metadata rows (config `stateSlots`, `state-slots.ts`): per
 * slot and per row, who holds it and whose content it holds; per request, the slot and the
 * row it was given. Each read and set through the accessors below; absent without the
 * switch, where every read is 0.
 */
import type { Model } from './model.ts';
import type { State } from './state.ts';
import { requireField } from './layout.ts';
import { get, put } from './state-bytes.ts';

/** Which pool variable: per slot (`stateHolder`, `stateOf`), per row (`metaHolder`, `metaOf`), or per request (`stateIdx`, `metaIdx`). */
export type PoolVariable = 'stateHolder' | 'stateOf' | 'metaHolder' | 'metaOf' | 'stateIdx' | 'metaIdx';

/** Element `k` (a slot, a row or a request) of pool variable `name`; 0 where the variable is absent. */
export function poolOf(m: Model, s: State, name: PoolVariable, k: number): number {
  const f = m.layout.fields[name];
  return f === undefined ? 0 : get(s, f.at + f.width * k, f.width);
}

/** Element `k` of pool variable `name` becomes `v` (the variable must be present). */
export function setPool(m: Model, t: State, name: PoolVariable, k: number, v: number): void {
  const f = requireField(m.layout, name);
  put(t, f.at + f.width * k, f.width, v);
}
