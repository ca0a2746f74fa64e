/**
 * Facts that a printer derives from a trace rather than reads from one state: which pages
 * an action wrote, which step last wrote a page, what happened to a page over time, and
 * the words for holders and contents. Every printer (text, Mermaid, HTML) and the
 * violation explanations share them, so that they all tell the same story.
 */
import { pageIds } from './long-lists.ts';
import {
  actionLabel,
  dataOf,
  dataPosOf,
  writeContent,
  fillOf,
  groupOfLabel,
  holderOf,
  labelName,
  readEnd,
  slotsReadAt,
  phaseOf,
  prefixLength,
  prefixPageOfLabel,
  Ph,
  sharedPages,
  step,
  stepsOf,
  tableOf,
  tablePage,
  view,
  writeCount,
  writePosition,
  type Action,
  type Model,
  type RequestView,
  type State,
  type Trace,
} from '../spec/index.ts';

/** What every printer needs to tell step `k`: the action, the states around it, and the acting request. */
export interface StepContext {
  /** The action taken. */
  readonly action: Action;
  /** Index of the acting request. */
  readonly r: number;
  /** State `k - 1`. */
  readonly before: State;
  /** State `k`. */
  readonly after: State;
  /** The acting request after the step, in words. */
  readonly req: RequestView | undefined;
  /** Its name. */
  readonly who: string;
  /** How many of its first pages are its prefix's shared pages (0, or its prefix's length after a hit or an insert). */
  readonly shared: number;
  /** Its page table after the step; for a step that ended the request, the table it acted on (a finished request's dead table is reset, see spec/liveness.ts). */
  readonly table: number[];
}

/** The context of step `k` (1-based), or `undefined` for state 0. */
export function stepContext(m: Model, trace: Trace, k: number): StepContext | undefined {
  const taken = trace.steps[k - 1];
  if (taken === undefined) return undefined;
  const { action } = taken;
  const r = action.r;
  const after = taken.state;
  const req = view(m, after).requests[r];
  const before = stateAt(trace, k - 1);
  const table = tableOf(m, after, r);
  return {
    action,
    r,
    before,
    after,
    req,
    who: req?.name ?? `#${r}`,
    // Under the radix tree, the depth of its path; the handoff's insert (and a release) is told from the state before it.
    shared: m.radix ? sharedPages(m, action.kind === 'handoff' || table.length === 0 ? before : after, r) : (req?.hit ?? false) || (req?.inserted ?? false) ? prefixLength(m, r) : 0,
    table: table.length === 0 ? tableOf(m, before, r) : table,
  };
}

/** State `k` of a trace: 0 is the initial state, `k` the state after step `k`. */
export function stateAt(trace: Trace, k: number): State {
  return k === 0 ? trace.initial : (trace.steps[k - 1]?.state ?? trace.initial);
}

/**
 * The pages that action `a` writes in state `s`, in ascending order. Found by taking the
 * step again on a copy whose page contents are blank: no guard reads page contents, so the
 * same step is taken, and every page that holds content afterwards was written by it. This
 * sees a write that leaves a page's content as it was (the same label written again), which
 * comparing the states before and after would miss.
 */
export function writesOf(m: Model, s: State, a: Action): number[] {
  const blank = s.slice();
  // Only the content's label is blanked: its position and filled slots stay as they were.
  for (let p = 0; p < m.pages; p++) writeContent(m, blank, p, 0, dataPosOf(m, s, p), fillOf(m, s, p));
  const after = step(m, blank, a);
  const out: number[] = [];
  if (after === undefined) return out;
  for (let p = 0; p < m.pages; p++) if (dataOf(m, after, p) !== 0) out.push(p);
  return out;
}

/** The step (1-based, at most `upTo`) that last wrote page `p`, or 0 when none did. */
export function lastWrite(m: Model, trace: Trace, p: number, upTo: number): number {
  for (let k = Math.min(upTo, trace.steps.length); k >= 1; k--) {
    const taken = trace.steps[k - 1];
    if (taken !== undefined && writesOf(m, stateAt(trace, k - 1), taken.action).includes(p)) return k;
  }
  return 0;
}

/** How many pages P wrote for request `r` at its latest `prefill` or `stub` before step `k` (a posted write: the pages of its write set, all landed by the handoff). */
export function writtenBefore(m: Model, trace: Trace, r: number, k: number): number {
  for (let j = k - 1; j >= 1; j--) {
    const taken = trace.steps[j - 1];
    if (taken === undefined || taken.action.r !== r) continue;
    if (taken.action.kind !== 'prefill' && taken.action.kind !== 'stub') continue;
    if (writeMode(m, trace, j) === 'posted') return postedPages(m, stateAt(trace, j - 1), r).length;
    return writesOf(m, stateAt(trace, j - 1), taken.action).length;
  }
  return 0;
}

/** The last step (1-based, at most `upTo`) that changed page `p`'s holder, or 0 when none did. */
export function lastHolderChange(m: Model, trace: Trace, p: number, upTo: number): number {
  for (let k = Math.min(upTo, trace.steps.length); k >= 1; k--) {
    if (holderOf(m, stateAt(trace, k - 1), p) !== holderOf(m, stateAt(trace, k), p)) return k;
  }
  return 0;
}

/** A label as a holder in a sentence: `A`, `the sys prefix cache`, or `nobody`. */
export function holderWords(m: Model, label: number): string {
  if (label === 0) return 'nobody';
  if (label <= m.n) return m.config.requests[label - 1]?.name ?? `#${label - 1}`;
  return `the ${m.groupNames[groupOfLabel(m, label)] ?? '?'} prefix cache${pageSuffix(m, label, ' (as its page ', ')')}`;
}

/** For a page of a prefix longer than one page, which page it is (`open` + index + `close`); '' otherwise. */
function pageSuffix(m: Model, label: number, open: string, close: string): string {
  const g = groupOfLabel(m, label);
  return g >= 0 && (m.prefixPages[g] ?? 1) > 1 ? `${open}${prefixPageOfLabel(m, label)}${close}` : '';
}

/** A label as content in a sentence: `A's data`, `the sys prefix's data`, or `no data`. */
export function dataWords(m: Model, label: number): string {
  if (label === 0) return 'no data';
  if (label === m.staleLabel) return "stale P-side data (another user's)";
  if (label <= m.n) return `${m.config.requests[label - 1]?.name ?? `#${label - 1}`}'s data`;
  return `the ${m.groupNames[groupOfLabel(m, label)] ?? '?'} prefix's data${pageSuffix(m, label, ' for position ', '')}`;
}

/**
 * With token slots: what request `r`'s decode step in state `s` reads in the page at table
 * position `i`: its tokens `first .. last`, of which those from `stale` on lie past the
 * page's fill, in stale P-side data (`stale > last` when none does).
 */
export function slotsRead(m: Model, s: State, r: number, i: number): { readonly first: number; readonly last: number; readonly stale: number } {
  const first = i * m.pageSize;
  const last = first + slotsReadAt(m, i, readEnd(m, s, r)) - 1;
  const p = tablePage(m, s, r, i);
  const stale = dataOf(m, s, p) === 0 ? last + 1 : first + fillOf(m, s, p);
  return { first, last, stale };
}

/** Tokens `a .. b` in words: `token 3` or `tokens 2..3`. */
export function tokensWords(a: number, b: number): string {
  return a === b ? `token ${a}` : `tokens ${a}..${b}`;
}

/** A label as a short content name for lists: `A`, `prefix sys`, or `none`. */
export function dataName(m: Model, label: number): string {
  if (label === 0) return 'none';
  if (label === m.staleLabel) return 'stale';
  if (label <= m.n) return m.config.requests[label - 1]?.name ?? `#${label - 1}`;
  return labelName(m, label);
}

/** A list of page ids in words: `page 0`, `pages 0, 1`; a long list in runs, `pages 0–179` (`long-lists.ts`). */
export function pagesWords(pages: readonly number[]): string {
  if (pages.length === 1) return `page ${pages[0]}`;
  return `pages ${pageIds(pages)}`;
}

/** A number of pages in words: `1 page`, `3 pages`. */
export function pageCount(n: number): string {
  return `${n} page${n === 1 ? '' : 's'}`;
}

/** A step in words, for references back in time: `step 5 (free(A))`. */
export function stepRef(m: Model, trace: Trace, k: number): string {
  const taken = trace.steps[k - 1];
  return taken === undefined ? `step ${k}` : `step ${k} (${actionLabel(m, taken.action)})`;
}

/**
 * What happened to page `p` up to step `upTo`, one phrase per event: who wrote it, who
 * took it, who freed it, who cached it. The last `limit` events are kept, the older ones
 * summarised, so that a long trace still gives a short history.
 */
export function pageHistory(m: Model, trace: Trace, p: number, upTo: number, limit = 6): string {
  const events: string[] = [];
  for (let k = 1; k <= Math.min(upTo, trace.steps.length); k++) {
    const taken = trace.steps[k - 1];
    if (taken === undefined) continue;
    const before = stateAt(trace, k - 1);
    const after = taken.state;
    const label = actionLabel(m, taken.action);
    const was = holderOf(m, before, p);
    const now = holderOf(m, after, p);
    if (writesOf(m, before, taken.action).includes(p)) {
      events.push(`step ${k} ${label} wrote ${dataWords(m, dataOf(m, after, p))} into it`);
    }
    if (was !== now) {
      const what =
        now === 0
          ? `freed it${dataOf(m, after, p) === 0 ? '' : `, ${dataWords(m, dataOf(m, after, p))} left in it`}`
          : now > m.n
            ? `put it in ${holderWords(m, now)}`
            : `gave it to ${holderWords(m, now)}`;
      events.push(`step ${k} ${label} ${what}`);
    } else if (taken.action.kind === 'allocate' && now > m.n && tableOf(m, after, taken.action.r).slice(0, prefixLength(m, taken.action.r)).includes(p)) {
      events.push(`step ${k} ${label} shared it with ${holderWords(m, taken.action.r + 1)} from ${holderWords(m, now)}`);
    }
  }
  const dropped = events.length - limit;
  const kept = dropped > 0 ? [`${dropped} earlier event${dropped === 1 ? '' : 's'}`, ...events.slice(dropped)] : events;
  return kept.length === 0 ? 'nothing happened to it' : kept.join('; ');
}

/** The pages an `evict` step freed from the prefix cache: the whole entry, in page-id order. */
export function evictedPages(m: Model, before: State, after: State): number[] {
  const out: number[] = [];
  for (let p = 0; p < m.pages; p++) if (holderOf(m, before, p) > m.n && holderOf(m, after, p) === 0) out.push(p);
  return out;
}

/** The pages of P's write for request `r` (its write set, in table order), whether or not they have landed. */
export function postedPages(m: Model, s: State, r: number): number[] {
  const out: number[] = [];
  const count = writeCount(m, s, r);
  for (let k = 0; k < count; k++) out.push(tablePage(m, s, r, writePosition(m, s, r, k)));
  return out;
}

/** How P's write of step `k` went: landed whole, posted to land part by part, or dropped (its writer revoked). */
export function writeMode(m: Model, trace: Trace, k: number): 'whole' | 'posted' | 'dropped' {
  const taken = trace.steps[k - 1];
  if (taken === undefined) return 'whole';
  const phase = phaseOf(m, taken.state, taken.action.r);
  if (phase === Ph.writing || phase === Ph.landing) return 'posted';
  if (phase === Ph.landed && m.mechanism['revoke-writer']) return 'dropped';
  return 'whole';
}

/** ` (step 2 of 3)` for a model that decodes in several steps, after step `k`; empty otherwise. */
export function decodeStepWords(m: Model, trace: Trace, k: number): string {
  const taken = trace.steps[k - 1];
  if (m.decodeSteps <= 1 || taken === undefined) return '';
  return ` (step ${stepsOf(m, taken.state, taken.action.r)} of ${m.decodeSteps})`;
}
