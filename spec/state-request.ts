/**
 * The per-request variables of a state (`state.ts` lists them): a request's phase and the
 * lifecycle it goes through, its flags, its read set, its decode steps and the parts of
 * P's write that have landed; each read and set through the accessors below.
 */
import type { Model } from './model.ts';
import type { State } from './state.ts';
import { get, put, absentWrite } from './state-bytes.ts';

/** The lifecycle of a request, in the order it normally goes through it. */
export const PHASES = [
  'new',
  'allocated',
  'written',
  'handedOff',
  'decoded',
  'refused',
  'failed',
  'freed',
  'timedOut',
  'landed',
  'released',
  'writing',
  'landing',
  'decoding',
  'retracted',
  'offloading',
] as const;

/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** Phase codes, as stored in the state. */
export const Ph = {
  new: 0,
  allocated: 1,
  written: 2,
  handedOff: 3,
  decoded: 4,
  refused: 5,
  failed: 6,
  freed: 7,
  timedOut: 8,
  landed: 9,
  released: 10,
  writing: 11,
  landing: 12,
  decoding: 13,
  retracted: 14,
  offloading: 15,
} as const satisfies Record<Phase, number>;

/** What each phase means; the documentation's source. */
export const PHASE_DOCS: Readonly<Record<Phase, string>> = {
  new: 'Sent by the router; nothing reserved yet.',
  allocated: 'D reserved a page table for the whole prompt and sent the page ids to P.',
  written: 'P reported Success: it wrote the prompt, or (a silent stub) one dummy page.',
  handedOff: 'D committed the transfer and will decode.',
  decoded: 'D read every page of the table; what it read is recorded.',
  refused: 'P refused the over-long request and told D; nothing was written.',
  failed: 'The owner check found a page the request did not write; the request failed loudly and read nothing.',
  freed: "D released the request's pages; their contents stay as they were.",
  timedOut: "D timed the request out and freed its pages; P's write is still in flight.",
  landed: "P's late write for a timed-out request arrived and landed by page id (under `revoke-writer`, it was dropped).",
  released: 'A second, stale release freed the old page table again.',
  writing: "P posted its write (fault `torn-write`); its content and tag parts are landing, one at a time.",
  landing: "D timed the request out while parts of P's write were still in flight; they land later, by page id.",
  decoding: 'D has taken some of its decode steps, not all; every step read, and checked, every page.',
  retracted: "D retracted the request (config `retraction`): its KV is saved in host memory and its pages are released; it waits to be resumed on new pages.",
  offloading: "D retracted the request and released its pages before the copy to host memory read them (fault `offload-after-free`); the copy is still in flight (`offload`).",
};

/** The request was allocated on its prefix's cached pages (a prefix-cache hit). */
export const HIT = 1;

/** The request's first pages, its prefix's, were inserted into the prefix cache. */
export const INSERTED = 2;

/** The request's decode read a page that it did not hold at the time. */
export const READ_UNHELD = 4;

/** D evicted a cached prefix page to make room for the request. */
export const EVICTED_FOR = 8;

/** The request was resumed after a retraction: it holds pages a second time (flag 16 is `release.ts`'s OVERLAPPED). */
export const RESUMED = 32;

/** Phases in which a request holds its page table. */
export function isLive(phase: number): boolean {
  return (phase >= Ph.allocated && phase <= Ph.failed) || phase === Ph.writing || phase === Ph.decoding;
}

/** Request `r`'s phase code. */
export function phaseOf(m: Model, s: State, r: number): number {
  return s[m.phaseAt + r]!;
}

/** Request `r`'s flags. */
export function flagsOf(m: Model, s: State, r: number): number {
  return s[m.flagsAt + r]!;
}

/** Request `r`'s read set as a number, bit `label - 1` per label read; only where the set is at most 32 bits (see {@link readsLabel} for any). */
export function observedOf(m: Model, s: State, r: number): number {
  const w = m.observedBytes;
  if (w > 4) throw new Error(`state: a read set of ${w} bytes is not a number; ask readsLabel`);
  const o = m.observedAt + w * r;
  let bits = 0;
  for (let k = 0; k < w; k++) bits |= s[o + k]! << (8 * k);
  return bits >>> 0;
}

/** Writes request `r`'s read set into a state being built, from a number (sets of at most 32 bits; its bits above the model's labels are not stored). */
export function setObserved(m: Model, t: State, r: number, bits: number): void {
  const w = m.observedBytes;
  if (w > 4) throw new Error(`state: a read set of ${w} bytes is not a number; use addObserved`);
  const o = m.observedAt + w * r;
  for (let k = 0; k < w; k++) t[o + k] = (bits >>> (8 * k)) & 0xff;
}

/** Whether request `r`'s read set holds `label` (bit `label - 1`, little-endian over its bytes). */
export function readsLabel(m: Model, s: State, r: number, label: number): boolean {
  const b = label - 1;
  return ((s[m.observedAt + m.observedBytes * r + (b >>> 3)]! >>> (b & 7)) & 1) !== 0;
}

/** Adds `label` to request `r`'s read set in a state being built. */
export function addObserved(m: Model, t: State, r: number, label: number): void {
  const b = label - 1;
  const at = m.observedAt + m.observedBytes * r + (b >>> 3);
  t[at] = t[at]! | (1 << (b & 7));
}

/** The labels in request `r`'s read set, ascending. */
export function observedLabels(m: Model, s: State, r: number): number[] {
  const out: number[] = [];
  for (let label = 1; label <= m.observedBytes * 8; label++) if (readsLabel(m, s, r, label)) out.push(label);
  return out;
}

/** How many decode steps request `r` has taken. */
export function stepsOf(m: Model, s: State, r: number): number {
  return s[m.stepsAt + r]!;
}

/** How many content parts of request `r`'s write have landed (absent without `torn-write`, where no write is in parts: 0). */
export function dataPartsOf(m: Model, s: State, r: number): number {
  const f = m.layout.fields.dataParts;
  return f === undefined ? 0 : get(s, f.at + f.width * r, f.width);
}

/** How many tag parts of request `r`'s write have landed (absent without `torn-write` and an owner check: 0). */
export function tagPartsOf(m: Model, s: State, r: number): number {
  const f = m.layout.fields.tagParts;
  return f === undefined ? 0 : get(s, f.at + f.width * r, f.width);
}

/** Request `r` enters `phase`. */
export function setPhase(m: Model, t: State, r: number, phase: Phase): void {
  t[m.phaseAt + r] = Ph[phase];
}

/** Request `r`'s flags gain `bits`. */
export function addFlags(m: Model, t: State, r: number, bits: number): void {
  t[m.flagsAt + r] = t[m.flagsAt + r]! | bits;
}

/** Clears `bits` of request `r`'s flags. */
export function clearFlags(m: Model, t: State, r: number, bits: number): void {
  t[m.flagsAt + r] = t[m.flagsAt + r]! & ~bits;
}

/** Request `r` has taken `steps` decode steps. */
export function setSteps(m: Model, t: State, r: number, steps: number): void {
  t[m.stepsAt + r] = steps;
}

/** Whether P has freed the source pages of request `r`'s write in flight (`abortSource`; absent without `sourcePages`: never). */
export function sourceFreedOf(m: Model, s: State, r: number): boolean {
  const f = m.layout.fields.sourceFreed;
  return f !== undefined && s[f.at + r] === 1;
}

/** P has freed (`true`) the source pages of request `r`'s write, or its write has landed (`false`). */
export function setSourceFreed(m: Model, t: State, r: number, freed: boolean): void {
  const f = m.layout.fields.sourceFreed;
  if (f === undefined) return absentWrite('sourceFreed', freed ? 1 : 0);
  t[f.at + r] = freed ? 1 : 0;
}

/** `count` content parts and `tagCount` tag parts of request `r`'s write have landed. */
export function setPartsLanded(m: Model, t: State, r: number, count: number, tagCount: number): void {
  const data = m.layout.fields.dataParts;
  const tag = m.layout.fields.tagParts;
  if (data === undefined) absentWrite('dataParts', count);
  else put(t, data.at + data.width * r, data.width, count);
  if (tag === undefined) absentWrite('tagParts', tagCount);
  else put(t, tag.at + tag.width * r, tag.width, tagCount);
}

/** Whether the draft part of request `r`'s write is still to land (config `draft`; absent without it: never). */
export function draftPendingOf(m: Model, s: State, r: number): boolean {
  const f = m.layout.fields.draftPending;
  return f !== undefined && s[f.at + r] === 1;
}

/** The draft part of request `r`'s write is posted (`true`) or has landed (`false`). */
export function setDraftPending(m: Model, t: State, r: number, pending: boolean): void {
  const f = m.layout.fields.draftPending;
  if (f === undefined) return absentWrite('draftPending', pending ? 1 : 0);
  t[f.at + r] = pending ? 1 : 0;
}

/** Request `r`'s load back from host memory (config `loadback`): 0 none, 1 posted and still reading the host copy, 2 landed (0 without `loadback`). */
export function loadOf(m: Model, s: State, r: number): number {
  const f = m.layout.fields.load;
  return f === undefined ? 0 : s[f.at + r]!;
}

/** Request `r`'s load back becomes `state` (0 none, 1 posted, 2 landed). */
export function setLoad(m: Model, t: State, r: number, state: number): void {
  const f = m.layout.fields.load;
  if (f === undefined) return absentWrite('load', state);
  t[f.at + r] = state;
}
