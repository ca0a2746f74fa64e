/**
 * What went wrong, in words: for each invariant of the spec, the sentences that tell the
 * reader of a counterexample which request read whose data, or which page is held or freed
 * twice and by whom, and the page cells to highlight. Every printer shows these words.
 */
import {
  bodyLabel,
  dataOf,
  flagsOf,
  holderOf,
  isFinished,
  Integrity,
  isLive,
  Isolation,
  mayReadAt,
  Ph,
  PHASES,
  MISPLACED,
  phaseOf,
  prefixLabel,
  READ_LABEL,
  READ_UNHELD,
  readRecordOf,
  sharedPages,
  tableOf,
  type Model,
  type Property,
  type State,
  type Trace,
} from '../spec/index.ts';
import { perPageLines, perPageSentences, runsIfLong, span } from './long-lists.ts';
import { draftRead } from './explain-draft.ts';
import { slotRead } from './explain-slots.ts';
import { dataWords, holderWords, lastHolderChange, lastWrite, pageHistory, slotsRead, stateAt, stepRef, tokensWords } from './facts.ts';

/** A violation in words. */
export interface Explanation {
  /** The invariant violated. */
  readonly invariant: string;
  /** The step where it went wrong (the one to highlight); the last step when no single read is to blame. */
  readonly step: number;
  /** The pages to highlight at that step. */
  readonly pages: readonly number[];
  /** One sentence per thing that went wrong, e.g. "B read page 1, which holds A's data written at step 2." */
  readonly headline: readonly string[];
  /** The history of each page involved, for the reader who wants the why. */
  readonly details: readonly string[];
}

/** The first step at which `test` holds of the state after it, or the last step. */
function firstStepWhere(trace: Trace, test: (s: State) => boolean): number {
  for (let k = 1; k <= trace.steps.length; k++) if (test(stateAt(trace, k))) return k;
  return trace.steps.length;
}

const name = (m: Model, r: number): string => holderWords(m, bodyLabel(r));

/**
 * Isolation and Integrity: the reads the invariant's own breach names (request, table
 * position, page), each with what the page held and when that was written. The step to
 * highlight is the first at which the request's reads broke the invariant.
 */
function reads(m: Model, trace: Trace, invariant: Property): Explanation {
  const last = stateAt(trace, trace.steps.length);
  const breach = invariant.breach?.(m, last);
  // One entry per read that broke the invariant: its sentence (a stale read's, whole), or what the page held (`what`), and the page's history.
  const read: { r: number; page: number; what: string; inRun: string; stale?: string; history: string }[] = [];
  const pages: number[] = [];
  let at = trace.steps.length;
  for (const r of breach?.requests ?? []) {
    const names = (s: State): boolean => invariant.breach?.(m, s)?.requests.includes(r) ?? false;
    const k = firstStepWhere(trace, names);
    at = Math.min(at, k);
    for (const { i, page } of (breach?.pages ?? []).filter((x) => x.r === r)) {
      const rec = readRecordOf(m, last, r, i);
      const label = rec & READ_LABEL;
      const history = pageHistory(m, trace, page, k);
      if (k === at) pages.push(page);
      // With D's slots, position 0 also records the reads of the request's state slot and metadata row (explain-slots.ts).
      const slot = slotRead(m, trace, r, i, page, k);
      if (slot !== undefined) {
        read.push({ r, page, what: '', inRun: '', stale: slot, history });
        continue;
      }
      if (label === m.staleLabel) {
        read.push({ r, page, what: '', inRun: '', stale: staleRead(m, trace, r, i, page, rec), history });
        continue;
      }
      // With a draft model, the read that broke it may be the page's draft KV, not its target's (spec/draft.ts).
      const draft = draftRead(m, stateAt(trace, k - 1), page, label);
      if (draft !== undefined) {
        read.push({ r, page, what: draft, inRun: draft, history });
        continue;
      }
      const w = label === 0 ? 0 : lastWrite(m, trace, page, k - 1);
      // A run of misplaced reads is one sentence: the positions differ page by page, what went wrong does not.
      const said = (misplaced: string): string =>
        label === 0 ? 'was never written' : `holds ${dataWords(m, label)}${w > 0 || misplaced !== '' ? ' written' : ''}${misplaced}${w > 0 ? ` at step ${w}` : ''}`;
      const wrongPlace = (rec & MISPLACED) !== 0;
      read.push({ r, page, what: said(wrongPlace ? ` for another position than ${i}` : ''), inRun: said(wrongPlace ? ' for another position (not where it is read)' : ''), history });
    }
  }
  // A long breach (a request of hundreds of pages) is told in runs of pages that went wrong the same way (`long-lists.ts`); a short one read by read.
  const ids = read.map((x) => x.page);
  // A stale read's sentence names its page and tokens: it is its own run.
  const headline = runsIfLong(ids, (_, j) => read[j]!.stale ?? `${read[j]!.r} ${read[j]!.inRun}`).map((run) => {
    const x = read[run.start]!;
    if (x.stale !== undefined) return x.stale;
    return run.pages.length === 1 ? `${name(m, x.r)} read page ${x.page}, which ${x.what}.` : `${name(m, x.r)} read pages ${span(run)}, each of which ${x.inRun}.`;
  });
  const details = perPageLines(ids, (_, j) => read[j]!.history);
  if (headline.length === 0) headline.push(invariant.name === 'Isolation' ? 'a request has read data written by another request.' : 'a request read content not written for it.');
  return { invariant: invariant.name, step: at, pages, headline, details };
}

/**
 * A read of stale P-side data, at the level of token slots: which tokens the request read
 * in the page, how many of the page's slots the last write filled, and by which step.
 */
function staleRead(m: Model, trace: Trace, r: number, i: number, page: number, rec: number): string {
  const k = firstStepWhere(trace, (s) => readRecordOf(m, s, r, i) === rec);
  const { first, last, stale } = slotsRead(m, stateAt(trace, k - 1), r, i);
  const w = lastWrite(m, trace, page, k - 1);
  const by = w > 0 ? ` by ${stepRef(m, trace, w)}` : '';
  // With P's source pages, the whole page can hold another user's KV, copied from a source page P freed early (spec/source-pages.ts).
  if (dataOf(m, stateAt(trace, k - 1), page) === m.staleLabel) {
    // With `loadback`, a load from a host copy that was evicted and reused (spec/loadback.ts).
    if (w > 0 && trace.steps[w - 1]?.action.kind === 'loadBack') return `${name(m, r)} read page ${page}, which holds another user's KV, loaded${by} from a host copy that was evicted and reused while the load read it.`;
    return `${name(m, r)} read page ${page}, which holds another user's KV from P's pool, copied${by} from a source page that P had freed and reused.`;
  }
  const filled = stale - first;
  return `${name(m, r)} read ${tokensWords(first, last)} in page ${page}, but only ${filled} of its slots ${filled === 1 ? 'was' : 'were'} written for it${by}: ${tokensWords(stale, last)} ${stale === last ? 'is' : 'are'} stale P-side data (another user's).`;
}

/** ` (given to C at step 6)`: when request `r` last took page `p`, or nothing when it never did. */
function given(m: Model, trace: Trace, p: number, r: number, upTo: number): string {
  for (let k = upTo; k >= 1; k--) {
    if (holderOf(m, stateAt(trace, k), p) === bodyLabel(r) && holderOf(m, stateAt(trace, k - 1), p) !== bodyLabel(r)) {
      return ` (given to ${name(m, r)} at step ${k})`;
    }
  }
  return '';
}

/**
 * Who put page `p` back on the free list at step `k`, and whether the same request had
 * freed it before: `A freed it twice (steps 5, 7)` names the double release.
 */
function freedBy(m: Model, trace: Trace, p: number, k: number): string {
  const taken = trace.steps[k - 1];
  if (taken === undefined) return 'a release put it back on the free list';
  const frees: number[] = [];
  for (let j = 1; j <= k; j++) {
    const step = trace.steps[j - 1];
    if (step?.action.r !== taken.action.r) continue;
    if (holderOf(m, stateAt(trace, j - 1), p) !== 0 && holderOf(m, stateAt(trace, j), p) === 0) frees.push(j);
  }
  const who = name(m, taken.action.r);
  if (frees.length < 2) return `${stepRef(m, trace, k)} put it back on the free list`;
  return `${who} freed it ${frees.length === 2 ? 'twice' : `${frees.length} times`} (steps ${frees.join(', ')})`;
}

/** ExclusiveHold and Conservation: the pages that are held twice, or held and free at once, and by whom. */
function holdTroubles(m: Model, trace: Trace): { headline: string[]; details: string[]; pages: number[] } {
  const n = trace.steps.length;
  const s = stateAt(trace, n);
  const inTables = new Map<number, number[]>();
  const headline: string[] = [];
  for (let r = 0; r < m.n; r++) {
    if (!isLive(phaseOf(m, s, r))) continue;
    tableOf(m, s, r).forEach((p, i) => {
      if (i < sharedPages(m, s, r)) {
        const cache = prefixLabel(m, m.group[r] ?? 0, i);
        if (holderOf(m, s, p) !== cache) {
          headline.push(`page ${p} is ${name(m, r)}'s shared prefix page, but ${holderWords(m, cache)} does not hold it: ${holderWords(m, holderOf(m, s, p))} does.`);
        }
        return;
      }
      inTables.set(p, [...(inTables.get(p) ?? []), r]);
    });
  }
  const pages: number[] = [];
  const sentences: string[] = [];
  for (let p = 0; p < m.pages; p++) {
    const owners = inTables.get(p) ?? [];
    const h = holderOf(m, s, p);
    const since = lastHolderChange(m, trace, p, n);
    const sinceWords = since > 0 ? ` since ${stepRef(m, trace, since)}` : '';
    let sentence: string | undefined;
    const [first] = owners;
    if (owners.length >= 2) {
      sentence = `page ${p} is in the page tables of ${owners.map((r) => name(m, r)).join(' and ')} at once; ${holderWords(m, h)} holds it${sinceWords}.`;
    } else if (first !== undefined && h !== bodyLabel(first)) {
      sentence =
        h === 0
          ? `page ${p} is in ${name(m, first)}'s page table${given(m, trace, p, first, n)}, but ${freedBy(m, trace, p, since)}: it is held and free at once.`
          : `page ${p} is in ${name(m, first)}'s page table, but ${holderWords(m, h)} holds it${sinceWords}.`;
    } else if (first === undefined && h >= 1 && h <= m.n) {
      sentence = `${holderWords(m, h)} holds page ${p}, but page ${p} is in no live page table of ${holderWords(m, h)}.`;
    }
    if (sentence === undefined) continue;
    sentences.push(sentence);
    pages.push(p);
  }
  // Many pages gone wrong the same way (a double free of a long request) are told in runs (`long-lists.ts`).
  headline.push(...perPageSentences(pages, sentences));
  const details = perPageLines(pages, (p) => pageHistory(m, trace, p, n));
  return { headline, details, pages };
}

/** ExclusiveHold: the troubled pages, or a plain sentence when none can be pinned down. */
function exclusiveHold(m: Model, trace: Trace): Explanation {
  const t = holdTroubles(m, trace);
  if (t.headline.length === 0) t.headline.push('a page is held by two requests, or held and free at once.');
  return { invariant: 'ExclusiveHold', step: trace.steps.length, ...t };
}

/** Conservation: the count that does not add up, then the pages counted twice or never. */
function conservation(m: Model, trace: Trace): Explanation {
  const s = stateAt(trace, trace.steps.length);
  let free = 0;
  let held = 0;
  for (let p = 0; p < m.pages; p++) if (holderOf(m, s, p) === 0 || holderOf(m, s, p) > m.n) free++;
  for (let r = 0; r < m.n; r++) {
    if (isLive(phaseOf(m, s, r))) held += tableOf(m, s, r).length - sharedPages(m, s, r);
  }
  const t = holdTroubles(m, trace);
  const count = `free and cached pages (${free}) plus pages in live page tables (${held}) make ${free + held}, not ${m.pages}.`;
  return { invariant: 'Conservation', step: trace.steps.length, ...t, headline: [count, ...t.headline] };
}

/** ReadsOwnPages: which request read a page it did not hold, and who held it then. */
function readsOwnPages(m: Model, trace: Trace): Explanation {
  const headline: string[] = [];
  const details: string[] = [];
  const pages: number[] = [];
  let at = trace.steps.length;
  for (let r = 0; r < m.n; r++) {
    const unheld = (s: State): boolean => (flagsOf(m, s, r) & READ_UNHELD) !== 0;
    if (!unheld(stateAt(trace, trace.steps.length))) continue;
    const k = firstStepWhere(trace, unheld);
    at = Math.min(at, k);
    const before = stateAt(trace, k - 1);
    tableOf(m, before, r).forEach((p, i) => {
      const h = holderOf(m, before, p);
      if (h === bodyLabel(r) || (i < sharedPages(m, before, r) && mayReadAt(m, r, i, h))) return;
      const since = lastHolderChange(m, trace, p, k - 1);
      const who = h === 0 ? 'it is free' : `${holderWords(m, h)} holds it`;
      headline.push(`${name(m, r)} read page ${p}, which it does not hold: ${who}${since > 0 ? ` since ${stepRef(m, trace, since)}` : ''}.`);
      details.push(`page ${p}: ${pageHistory(m, trace, p, k)}.`);
      if (k === at) pages.push(p);
    });
  }
  if (headline.length === 0) headline.push('a request read a page it did not hold.');
  return { invariant: 'ReadsOwnPages', step: at, pages, headline, details };
}

/** Deadlock: which requests have not finished, though no action is enabled. */
function deadlock(m: Model, trace: Trace): Explanation {
  const last = stateAt(trace, trace.steps.length);
  let free = 0;
  for (let p = 0; p < m.pages; p++) if (holderOf(m, last, p) === 0) free++;
  const waiting: string[] = [];
  for (let r = 0; r < m.n; r++) {
    const phase = phaseOf(m, last, r);
    if (isFinished(phase)) continue;
    const need = phase === Ph.new ? `, needs ${m.promptPages[r] ?? 0} free page${m.promptPages[r] === 1 ? '' : 's'}` : '';
    waiting.push(`${name(m, r)} (${PHASES[phase] ?? phase}${need})`);
  }
  const held: number[] = [];
  for (let p = 0; p < m.pages; p++) if (holderOf(m, last, p) > m.n) held.push(p);
  const cache = held.length === 0 ? '' : `; the prefix cache holds page${held.length === 1 ? '' : 's'} ${held.join(', ')} and never evicts`;
  return {
    invariant: 'Deadlock',
    step: trace.steps.length,
    pages: held,
    headline: [`no action is enabled, but ${waiting.join(', ')} ${waiting.length === 1 ? 'has' : 'have'} not finished: ${free} page${free === 1 ? ' is' : 's are'} free${cache}.`],
    details: [],
  };
}

const EXPLAINERS: Readonly<Record<string, (m: Model, trace: Trace) => Explanation>> = {
  Deadlock: deadlock,
  Isolation: (m, trace) => reads(m, trace, Isolation),
  Integrity: (m, trace) => reads(m, trace, Integrity),
  ExclusiveHold: exclusiveHold,
  Conservation: conservation,
  ReadsOwnPages: readsOwnPages,
};

/** Explains why the last state of `trace` violates `invariant`; an invariant without an explainer gets a plain sentence. */
export function explain(m: Model, trace: Trace, invariant: string): Explanation {
  const explainer = EXPLAINERS[invariant];
  if (explainer !== undefined) return explainer(m, trace);
  return { invariant, step: trace.steps.length, pages: [], headline: [`the last state violates ${invariant}.`], details: [] };
}
