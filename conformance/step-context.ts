/**
 * What applying one logged event to one possible state works with: the state (the pool,
 * the hidden steps still to happen, the spec's path so far), the event's facts that are the
 * same in every state, the outcome, and the words a refusal uses. The event kinds' own
 * rules are in the step-*.ts files; step.ts dispatches to them.
 */
import { PHASES, Ph, type Action, type ActionKind } from '../spec/index.ts';
import type { LogModel, RequestEvent } from './events.ts';
import { takeAction, type LogPool } from './pool.ts';
import type { PageRuns } from './pages.ts';
import type { EventRule } from './table.ts';
import type { RequestInfo, RequestWindow } from './window.ts';

/** A hidden step that has not happened yet: one of `kinds` will be taken for the request in `slot`. */
export interface Pending {
  /** The slot of its request. */
  readonly slot: number;
  /** The action kinds it may be (the spec enables one). */
  readonly kinds: readonly ActionKind[];
}

/** One state the system may be in: the pool, the hidden steps still to happen, and (for small logs) the spec actions so far. */
export interface Possible {
  /** The state. */
  readonly pool: LogPool;
  /** Hidden steps not yet taken. */
  pending: Pending[];
  /** The spec actions that led here, with requests by arrival index; dropped when the log outgrows the spec. */
  path: Action[] | undefined;
}

/** What one state made of one event. */
export type StepResult =
  | { readonly kind: 'ok' }
  | { readonly kind: 'refused'; readonly why: string }
  | { readonly kind: 'violation'; readonly invariant: string; readonly headline: readonly string[]; readonly involved: readonly number[]; readonly pages?: readonly number[] };

/** Everything about the event that is the same in every state. */
export interface EventContext {
  /** The event. */
  readonly event: RequestEvent;
  /** What it means. */
  readonly rule: EventRule;
  /** Its request's slot. */
  readonly slot: number;
  /** Its request. */
  readonly info: RequestInfo;
  /** Its page ids; `undefined` when it names none. */
  readonly pages: PageRuns | undefined;
  /** The duplicates an `insert` at the handoff names as freed (`freed`); `undefined` when it names none. */
  readonly freed?: PageRuns;
  /** The source pages a `posted` line names (`sources`, config `sourcePages`); `undefined` when it names none. */
  readonly sources?: readonly number[];
  /** The model. */
  readonly model: LogModel;
  /** The window, for names. */
  readonly window: RequestWindow;
  /** Whether `Integrity` is checked at decode (off unless asked for, as in `check`). */
  readonly integrity: boolean;
}

// Read once: a namespace re-export is a getter call on every access.
const WRITTEN = Ph.written;

/** Phase names by code, read once: a namespace re-export is a getter call on every access. */
export const PHASE_NAMES: readonly string[] = [...PHASES];

/** The state accepts the event. */
export const OK: StepResult = { kind: 'ok' };

/** The state refuses the event, for this reason. */
export const refused = (why: string): StepResult => ({ kind: 'refused', why });

/** A list of pages in words, the first few. */
export function pageWords(pages: readonly number[]): string {
  const shown = pages.slice(0, 8).join(', ');
  return pages.length <= 8 ? `[${shown}]` : `[${shown}, ... ${pages.length} pages]`;
}

/** A state in a few words for a refusal: the request's phase. */
export function phaseWords(pool: LogPool, slot: number, name: string): string {
  return `${name} is ${PHASE_NAMES[pool.phase(slot)] ?? '?'}`;
}

/** A holder label in words. */
export function holderName(ctx: EventContext, label: number): string {
  return label < 0 ? `the prefix cache` : label === 0 ? 'nobody' : ctx.window.nameOf(label);
}

/** The request's own hidden step, if one is pending. */
export function ownPending(s: Possible, slot: number): Pending | undefined {
  for (const h of s.pending) if (h.slot === slot) return h;
  return undefined;
}

/** Lands hidden step `h` in place; whether the spec enabled one of its kinds. */
export function land(ctx: { readonly window: RequestWindow }, s: Possible, h: Pending): boolean {
  const info = ctx.window.info(h.slot);
  for (const kind of h.kinds) {
    if (!takeAction(s.pool, kind, h.slot, info?.length ?? 0, info?.group ?? -1)) continue;
    s.pending = s.pending.filter((x) => x !== h);
    s.path?.push({ kind, r: info?.index ?? 0 });
    // With a draft model the spec lands an own write's draft part as a step of its own (landDraft); the pool landed it with the write.
    if ((s.pool.draft?.length ?? 0) > 0 && s.pool.phase(h.slot) === WRITTEN) s.path?.push({ kind: 'landDraft', r: info?.index ?? 0 });
    return true;
  }
  return false;
}

/** Whether the logged pages are the table entries `[from, to)`, in table order. */
export function samePages(pool: LogPool, slot: number, pages: PageRuns, from: number, to: number): boolean {
  return pages.equalsRow(pool.pageTable(slot), from, to);
}
