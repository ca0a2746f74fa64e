/**
 * The per-page variables of a state (`state.ts` lists them): who holds a page, whose
 * content it holds and for which position, its owner tag, and with token slots how many
 * slots its content and its tag cover; each read and set through the accessors below.
 */
import type { Model } from './model.ts';
import type { State } from './state.ts';
import { get, put, absentWrite } from './state-bytes.ts';

/** Who holds page `p` (a label; 0 = free). */
export function holderOf(m: Model, s: State, p: number): number {
  const w = m.layout.widths.label;
  return get(s, m.holderAt + w * p, w);
}

/** Whose content page `p` holds (a label; 0 = never written). */
export function dataOf(m: Model, s: State, p: number): number {
  const w = m.layout.widths.label;
  return get(s, m.dataAt + w * p, w);
}

/** Page `p`'s owner tag (a label; 0 = cleared). Without an owner check the variable is absent: no page carries a tag, 0. */
export function tagOf(m: Model, s: State, p: number): number {
  const f = m.layout.fields.tag;
  return f === undefined ? 0 : get(s, f.at + f.width * p, f.width);
}

/** The table position page `p`'s content was written for (meaningless while it was never written). */
export function dataPosOf(m: Model, s: State, p: number): number {
  const w = m.layout.widths.position;
  return get(s, m.dataPosAt + w * p, w);
}

/** How many slots of page `p`, from its first, hold its content; the rest hold stale P-side data (`slots.ts`). With one slot per page the variable is absent: a written page is full. */
export function fillOf(m: Model, s: State, p: number): number {
  return m.fillAt < 0 ? m.pageSize : s[m.fillAt + p]!;
}

/** How many slots page `p`'s owner tag says were written (`tag-counts-tokens`; absent, every slot, with one slot per page or no owner check). */
export function tagFillOf(m: Model, s: State, p: number): number {
  return m.tagFillAt < 0 ? m.pageSize : s[m.tagFillAt + p]!;
}

/** Page `p` is now held by `label` (0: it is back on the free list). */
export function setHolder(m: Model, t: State, p: number, label: number): void {
  const w = m.layout.widths.label;
  put(t, m.holderAt + w * p, w, label);
}

/** Content `label`, written for table position `pos`, lands in page `p`, filling its first `slots` slots (all of them when left out; `slots.ts`). */
export function writeContent(m: Model, t: State, p: number, label: number, pos: number, slots: number = m.pageSize): void {
  const { label: lw, position: pw } = m.layout.widths;
  put(t, m.dataAt + lw * p, lw, label);
  put(t, m.dataPosAt + pw * p, pw, pos);
  if (m.fillAt >= 0) t[m.fillAt + p] = slots;
}

/** Page `p`'s owner tag becomes `label` (0: cleared), and, under `tag-counts-tokens`, the slots it says were written become `slots` (all when left out; 0 when cleared). */
export function setTag(m: Model, t: State, p: number, label: number, slots: number = m.pageSize): void {
  const f = m.layout.fields.tag;
  if (f === undefined) return absentWrite('tag', label);
  put(t, f.at + f.width * p, f.width, label);
  if (m.tagFillAt >= 0) t[m.tagFillAt + p] = label === 0 ? 0 : slots;
}

/** Whose draft-model KV page `p` holds (a label; 0 = never written; config `draft`, spec/draft.ts). Absent without `draft`: 0. */
export function draftOf(m: Model, s: State, p: number): number {
  const f = m.layout.fields.draft;
  return f === undefined ? 0 : get(s, f.at + f.width * p, f.width);
}

/** The draft part of a write lands in page `p`: its draft KV becomes `label`'s. */
export function setDraft(m: Model, t: State, p: number, label: number): void {
  const f = m.layout.fields.draft;
  if (f === undefined) return absentWrite('draft', label);
  put(t, f.at + f.width * p, f.width, label);
}
