/**
 * How a state stores its small integers: little-endian, in the width the layout gives a
 * variable (one byte or two, `layout.ts`). The accessors of the `state-*.ts` files read and
 * write through these, so a value too wide for its field throws instead of wrapping.
 */
import type { State } from './state.ts';

/** The little-endian value of width `w` (1 or 2) at `at`. */
export function get(s: State, at: number, w: number): number {
  return w === 1 ? s[at]! : s[at]! | (s[at + 1]! << 8);
}

/** Writes `v` little-endian in width `w` (1 or 2) at `at`; a value too wide for its field is a bug, and throws. */
export function put(t: State, at: number, w: number, v: number): void {
  if (v >>> (8 * w) !== 0) throw new Error(`state: value ${v} does not fit ${w} byte${w === 1 ? '' : 's'} at offset ${at}`);
  t[at] = v & 0xff;
  if (w === 2) t[at + 1] = v >>> 8;
}

/** Writes into a variable that may be absent: a write of 0 (its only value there) changes nothing, any other is a bug. */
export function absentWrite(name: string, v: number): void {
  if (v !== 0) throw new Error(`state: ${name} is absent under this configuration, and cannot be set to ${v}`);
}
