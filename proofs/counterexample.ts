/**
 * A counterexample to induction read back from z3's model in the spec's words: the state
 * before (which satisfies the invariant), the step, what changed, and the conjunct that
 * no longer holds. The model's values are read by `model-reader.ts`, which names elements
 * as the bounded search names them (`p0`, `r1`, `g0`).
 */
import { match } from 'ts-pattern';
import type { Model } from 'z3-solver';
import type { ZConjunct } from './conjuncts.ts';
import type { ObligationName } from './obligations.ts';
import { ModelReader, type LabelRole } from './model-reader.ts';
import { at, type Vocabulary, type Z, type ZState } from './vocabulary.ts';

/** A counterexample to induction, for people and for `--json`. */
export interface Counterexample {
  /** The conjunct that the step breaks (`Isolation` or a strengthening conjunct). */
  readonly violated: string;
  /** The step, as the spec writes it: `decode(r0)`, or `init`. */
  readonly step: string;
  /** The conjunct's instance that fails: variable name → element. */
  readonly witnesses: Readonly<Record<string, string>>;
  /** The story, one line each. */
  readonly story: readonly string[];
}

/** What the reader needs from the obligation that failed. */
export interface CtiInput {
  /** The vocabulary the model is over. */
  readonly v: Vocabulary;
  /** z3's model of the obligation's negation. */
  readonly model: Model<'main'>;
  /** The obligation. */
  readonly action: ObligationName;
  /** The acting request. */
  readonly r: Z;
  /** The state before. */
  readonly pre: ZState;
  /** The state after. */
  readonly post: ZState;
  /** The conjunct denied. */
  readonly conjunct: ZConjunct;
  /** Its witnesses. */
  readonly witnesses: readonly Z[];
}

/** Reads the model back into a {@link Counterexample}. */
export function readCounterexample(c: CtiInput): Counterexample {
  const m = new ModelReader(c.v, c.model);
  const step = c.action === 'init' ? 'init' : `${c.action}(${m.val(c.r)})`;
  const story = storyOf(c, m, step);
  const witnesses = witnessesOf(c, m);
  const instance = Object.entries(witnesses).map(([name, value]) => `${name} ${value}`).join(', ');
  story.push(`${c.conjunct.name} fails (${instance})${c.conjunct.name === 'Isolation' ? `: request ${witnesses['reader'] ?? '?'} has read ${witnesses['label'] ?? '?'} at position ${witnesses['position'] ?? '?'}, which is not its own there` : ''}.`);
  return { violated: c.conjunct.name, step, witnesses, story };
}

/** The state before, the step and what it changed, one line each (for `init`, the initial state). */
function storyOf(c: CtiInput, m: ModelReader, step: string): string[] {
  const requests = m.universe(c.v.Req);
  const pages = m.universe(c.v.Page);
  const story: string[] = [];
  if (c.action === 'init') {
    story.push(`the initial state breaks ${c.conjunct.name}:`, ...requests.map((q) => `  ${m.requestLine(c.pre, q)}`), ...pages.map((p) => `  ${m.pageLine(c.pre, p)}`));
  } else {
    const limit = c.action === 'prefill' || c.action === 'stub' ? ` (prefill limit ${m.val(c.v.limit)})` : '';
    story.push(`before ${step}, a state that satisfies the invariant${limit}:`);
    story.push(...requests.map((q) => `  ${m.requestLine(c.pre, q)}`), ...pages.map((p) => `  ${m.pageLine(c.pre, p)}`));
    story.push(`${step}:${narrate(c, m)}`);
    const changed = [
      ...requests.map((q) => [m.requestLine(c.pre, q), m.requestLine(c.post, q)] as const),
      ...pages.map((p) => [m.pageLine(c.pre, p), m.pageLine(c.post, p)] as const),
    ].filter(([a, b]) => a !== b);
    story.push('after it:', ...(changed.length ? changed.map(([, b]) => `  ${b}`) : ['  nothing changed']));
  }
  return story;
}

/** The conjunct's failing instance: each of its variables and the element z3 chose for it. */
function witnessesOf(c: CtiInput, m: ModelReader): Record<string, string> {
  const witnesses: Record<string, string> = {};
  c.conjunct.vars.forEach(([kind, name], k) => {
    const w = c.witnesses[k];
    if (w === undefined) return;
    witnesses[name] = kind === 'Label' ? m.label(w, 'data') : kind === 'Slot' ? m.slotName(w).replace(/^slot /, '') : m.val(w);
  });
  if (c.conjunct.name === 'Isolation' && c.witnesses[0] !== undefined && c.witnesses[1] !== undefined) {
    // what the reader read there, which is what makes it a leak
    witnesses['label'] = m.label(c.v.rdLabel(at(c.post.rec, c.witnesses[0], c.witnesses[1])), 'data');
  }
  return witnesses;
}

/** One sentence on what the step did, in the protocol's terms. */
function narrate(c: CtiInput, m: ModelReader): string {
  const { v, pre, post } = c;
  const val = (t: Z): string => m.val(t);
  const label = (t: Z, as: LabelRole): string => m.label(t, as);
  const slotName = (k: Z): string => m.slotName(k);
  const slots = m.slots;
  const r = val(c.r);
  const inTable = slots.filter((k) => val(v.inTable(c.r, k)) === 'true');
  const pageAt = (k: Z): Z => at(pre.table, c.r, k);
  const changedPages = (which: 'data' | 'holder'): string[] =>
    [...new Set(inTable.map((k) => val(pageAt(k))))].flatMap((name) => {
      const p = inTable.map(pageAt).find((x) => val(x) === name);
      if (p === undefined || val(at(pre[which], p)) === val(at(post[which], p))) return [];
      return [`${name} now ${which === 'data' ? 'holds' : 'held by'} ${label(at(post[which], p), which)}`];
    });
  // under torn-write prefill and stub only post the write: the request is then writing or landing
  const posted = (): boolean => ['writing', 'landing'].includes(val(at(post.phase, c.r)));
  const changedTags = (): string[] =>
    [...new Set(inTable.map((k) => val(pageAt(k))))].flatMap((name) => {
      const p = inTable.map(pageAt).find((x) => val(x) === name);
      if (p === undefined || val(at(pre.tag, p)) === val(at(post.tag, p))) return [];
      return [`${name} now tagged ${label(at(post.tag, p), 'tag')}`];
    });
  return match(c.action)
    .with('init', () => '')
    .with('allocate', () => ` D reserves pages for ${r}: ${changedPages('holder').join(', ') || 'no page changes hands'}`)
    .with('prefill', () => (posted() ? ` P posts ${r}'s write; its content and tag parts land later, one at a time, by page id` : ` P writes ${r}'s pages by id: ${changedPages('data').join(', ') || 'no content changes'}`))
    .with('stub', () => (posted() ? ` P posts a one-page dummy write for ${r}; its parts land later, by page id` : ` P writes a one-page dummy for ${r}: ${changedPages('data').join(', ') || 'no content changes'}`))
    .with('handoff', () => ` D commits ${r}`)
    .with('decode', () => {
      if (val(at(post.phase, c.r)) === 'failed') {
        const tags = inTable.map((k) => `${val(pageAt(k))} is tagged ${label(at(pre.tag, pageAt(k)), 'tag')}`);
        return ` the owner check fails (${tags.join(', ')}); ${r} fails loudly and reads nothing`;
      }
      const reads = inTable.map((k) => `page ${val(pageAt(k))} in its ${slotName(k)} holds ${label(at(pre.data, pageAt(k)), 'data')}`);
      return ` request ${r} decodes, reading every page of its table: ${reads.join('; ')}; its read set gains what they hold`;
    })
    .with('free', () => ` D releases ${r}'s own pages by id, whoever holds them: ${changedPages('holder').join(', ') || 'none changes'}`)
    .with('timeout', () => ` D times ${r} out and frees its pages: ${changedPages('holder').join(', ') || 'none changes'}`)
    .with('insert', () => ` ${r}'s first page goes to its prefix's cache entry: ${changedPages('holder').join(', ')}`)
    .with('landData', () => ` a content part of ${r}'s write lands: ${changedPages('data').join(', ') || 'no content changes'}`)
    .with('landTag', () => ` a tag part of ${r}'s write lands: ${changedTags().join(', ') || 'no tag changes'}`)
    .exhaustive();
}
