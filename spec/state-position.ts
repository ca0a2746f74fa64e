/**
 * The per-position variables of a state, one value per table position of each request
 * (`state.ts` lists them): its page table, its read record, and with `retraction` its saved
 * copy; and how many leading positions it shares with the prefix cache. Each read and set
 * through the accessors below.
 */
import { NO_PAGE, prefixLength, type Model } from './model.ts';
import type { State } from './state.ts';
import { get, put } from './state-bytes.ts';
import { HIT, INSERTED, flagsOf } from './state-request.ts';
import { dataOf, tagOf, dataPosOf, fillOf, tagFillOf } from './state-page.ts';
import { depthOf } from './state-entry.ts';

/** Read record: the position was read. Records are read and written as 16-bit values; a one-byte record (labels below 64) stores these bits as {@link BYTE_READ}, {@link BYTE_MISPLACED}, {@link BYTE_LABEL}. */
export const READ = 0x8000;

/** Read record: the content read there was written for another table position. */
export const MISPLACED = 0x4000;

/** Read record: the content label read (0 = a page never written). */
export const READ_LABEL = 0x3fff;

/** A one-byte read record's {@link READ} bit, as the fast encodings store it. */
export const BYTE_READ = 0x80;

/** A one-byte read record's {@link MISPLACED} bit. */
export const BYTE_MISPLACED = 0x40;

/** A one-byte read record's label bits. */
export const BYTE_LABEL = 0x3f;

/** The read record a one-byte record stands for. */
export function recordOfByte(b: number): number {
  return ((b & 0xc0) << 8) | (b & BYTE_LABEL);
}

/** Request `r`'s read record at table position `i`: 0 when not read, else {@link READ} with the label read and {@link MISPLACED}. */
export function readRecordOf(m: Model, s: State, r: number, i: number): number {
  const w = m.layout.widths.record;
  const at = m.readAt[r]! + w * i;
  return w === 1 ? recordOfByte(s[at]!) : get(s, at, 2);
}

/** Request `r`'s read record at position `i` becomes `record`. */
export function setReadRecord(m: Model, t: State, r: number, i: number, record: number): void {
  const w = m.layout.widths.record;
  const at = m.readAt[r]! + w * i;
  if (w === 2) put(t, at, 2, record);
  else if ((record & READ_LABEL) > BYTE_LABEL) throw new Error(`state: label ${record & READ_LABEL} does not fit a one-byte read record`);
  else t[at] = ((record >>> 8) & 0xc0) | (record & BYTE_LABEL);
}

/** The `i`-th page of request `r`'s table, or {@link NO_PAGE}. */
export function tablePage(m: Model, s: State, r: number, i: number): number {
  const at = m.tableAt[r]! + m.pageBytes * i;
  const raw = m.pageBytes === 1 ? s[at]! : s[at]! | (s[at + 1]! << 8);
  return raw === (m.pageBytes === 1 ? 0xff : 0xffff) ? NO_PAGE : raw;
}

/** Sets the `i`-th page of request `r`'s table in a state being built ({@link NO_PAGE} clears the slot). */
export function setTablePage(m: Model, t: State, r: number, i: number, p: number): void {
  const at = m.tableAt[r]! + m.pageBytes * i;
  t[at] = p & 0xff;
  if (m.pageBytes === 2) t[at + 1] = (p >>> 8) & 0xff;
}

/** Clears request `r`'s whole page table in a state being built: every slot {@link NO_PAGE}. */
export function clearTable(m: Model, t: State, r: number): void {
  const at = m.tableAt[r]!;
  // A loop, not fill(): a builtin call costs more than the few bytes of a table.
  for (let i = at, end = at + m.pageBytes * m.len[r]!; i < end; i++) t[i] = 0xff;
}

/**
 * How many pages request `r`'s live table holds now: its prompt's pages, then under
 * `tableGrowth` the pages `grow` added, in order, up to the first empty position.
 */
export function tableRoom(m: Model, s: State, r: number): number {
  let room = m.promptPages[r]!;
  const len = m.len[r]!;
  while (room < len && tablePage(m, s, r, room) !== NO_PAGE) room++;
  return room;
}

/** Request `r`'s page table (empty before `allocate`). */
export function tableOf(m: Model, s: State, r: number): number[] {
  const out: number[] = [];
  const len = m.len[r]!;
  for (let i = 0; i < len; i++) {
    const p = tablePage(m, s, r, i);
    if (p !== NO_PAGE) out.push(p);
  }
  return out;
}

/** Whether request `r`'s first pages are its prefix's shared pages rather than its own. */
export function sharesFirstPage(m: Model, s: State, r: number): boolean {
  return (flagsOf(m, s, r) & (HIT | INSERTED)) !== 0;
}

/** How many leading table positions of request `r` are shared prefix pages: its prefix's length on a hit or after an insert, else 0; under `radix`, the depth of its last node (a partial match shares fewer). */
export function sharedPages(m: Model, s: State, r: number): number {
  if (m.radix) return depthOf(m, s, r);
  return sharesFirstPage(m, s, r) ? prefixLength(m, r) : 0;
}

/** What a retracted request's saved copy holds at one table position: its page's content, position, fill, tag and tag count when the copy read it. */
export interface SavedPage {
  /** The content label (0: a page never written). */
  readonly label: number;
  /** The table position the content was written for. */
  readonly pos: number;
  /** How many slots held the content. */
  readonly fill: number;
  /** The owner tag (0 without an owner check). */
  readonly tag: number;
  /** How many slots the tag says were written. */
  readonly tagFill: number;
}

/** The value of request `r`'s per-position variable `name` at position `i`, or `absent` when the variable is absent. */
function positionValue(m: Model, s: State, name: 'savedData' | 'savedPos' | 'savedTag' | 'savedFill' | 'savedTagFill', r: number, i: number, absent: number): number {
  const f = m.layout.fields[name];
  return f === undefined ? absent : get(s, f.starts![r]! + f.width * i, f.width);
}

/** Writes request `r`'s per-position variable `name` at position `i`; an absent one takes only its absent value. */
function setPositionValue(m: Model, t: State, name: 'savedData' | 'savedPos' | 'savedTag' | 'savedFill' | 'savedTagFill', r: number, i: number, v: number, absent: number): void {
  const f = m.layout.fields[name];
  if (f === undefined) {
    if (v !== absent) throw new Error(`state: ${name} is absent under this configuration, and cannot be set to ${v}`);
    return;
  }
  put(t, f.starts![r]! + f.width * i, f.width, v);
}

/** Request `r`'s saved copy at table position `i` (`retraction.ts`). */
export function savedPageOf(m: Model, s: State, r: number, i: number): SavedPage {
  return {
    label: positionValue(m, s, 'savedData', r, i, 0),
    pos: positionValue(m, s, 'savedPos', r, i, 0),
    fill: positionValue(m, s, 'savedFill', r, i, m.pageSize),
    tag: positionValue(m, s, 'savedTag', r, i, 0),
    tagFill: positionValue(m, s, 'savedTagFill', r, i, m.pageSize),
  };
}

/** The copy reads page `p` into request `r`'s saved copy at position `i`: its content, position, fill, tag and tag count. */
export function savePage(m: Model, t: State, r: number, i: number, p: number, from: State): void {
  setSavedPage(m, t, r, i, { label: dataOf(m, from, p), pos: dataPosOf(m, from, p), fill: fillOf(m, from, p), tag: tagOf(m, from, p), tagFill: tagFillOf(m, from, p) });
}

/** Request `r`'s saved copy at position `i` becomes `copy` (a field the configuration lacks takes only its absent value). */
export function setSavedPage(m: Model, t: State, r: number, i: number, copy: SavedPage): void {
  setPositionValue(m, t, 'savedData', r, i, copy.label, 0);
  setPositionValue(m, t, 'savedPos', r, i, copy.pos, 0);
  setPositionValue(m, t, 'savedFill', r, i, copy.fill, m.pageSize);
  setPositionValue(m, t, 'savedTag', r, i, copy.tag, 0);
  setPositionValue(m, t, 'savedTagFill', r, i, copy.tagFill, m.pageSize);
}

/** Request `r`'s saved copy goes back to its initial value at every position (every field 0, as in {@link initial}). */
export function clearSaved(m: Model, t: State, r: number): void {
  for (const name of ['savedData', 'savedPos', 'savedTag', 'savedFill', 'savedTagFill'] as const) {
    const f = m.layout.fields[name];
    if (f === undefined) continue;
    for (let i = f.starts![r]!, end = i + f.width * m.len[r]!; i < end; i++) t[i] = 0;
  }
}
