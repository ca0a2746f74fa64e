/**
 * A counterexample to induction read back from z3's model in the spec's words: the state
 * before (which satisfies the invariant), the step, what changed, and the conjunct that
 * no longer holds. Elements are named as the bounded search names them (`p0`, `r1`,
 * `g0`); a model of the unbounded sorts (`Page!val!0`) is renamed the same way.
 */
import { match } from 'ts-pattern';
import type { Model } from 'z3-solver';
import type { ZConjunct } from './conjuncts.ts';
import type { ObligationName } from './obligations.ts';
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

/** `Page!val!3` → `p3`; bounded names stay as they are. */
function rename(text: string): string {
  return text.replace(/\b(Page|Req|Grp|Slot)!val!(\d+)/g, (_, sort: string, i: string) => `${{ Page: 'p', Req: 'r', Grp: 'g', Slot: 'k' }[sort] ?? '?'}${i}`);
}

/** Reads the model back into a {@link Counterexample}. */
export function readCounterexample(c: CtiInput): Counterexample {
  const { v, model } = c;
  const val = (t: Z): string => rename(model.eval(t, true).toString());
  const truth = (t: Z): boolean => val(t) === 'true';
  const universe = (sort: Z['sort']): Z[] => {
    const known = v.elements.get(String(sort.name()));
    if (known !== undefined && known.length > 0) return [...known];
    const u = model.sortUniverse(sort);
    return Array.from({ length: u.length() }, (_, i) => u.get(i) as Z);
  };
  const slot0 = val(v.slot0);
  const slot1 = val(v.slot1);
  const slots = universe(v.Slot).sort((a, b) => rank(val(a)) - rank(val(b)));
  function rank(name: string): number {
    return name === slot0 ? 0 : name === slot1 ? 1 : 2;
  }
  const slotName = (k: Z): string => ({ [slot0]: 'slot 0', [slot1]: 'slot 1' })[val(k)] ?? `slot ${val(k)}`;
  const label = (t: Z, as: 'data' | 'holder' | 'tag'): string => {
    const text = val(t);
    if (text === 'none') return { data: 'nothing', holder: 'nobody (free)', tag: 'none' }[as];
    const body = /^\(body (\S+)\)$/.exec(text);
    if (body) return as === 'data' ? `${body[1]}'s data` : `${body[1]}`;
    const prefix = /^\(prefix (\S+) (\S+)\)$/.exec(text);
    if (prefix) {
      // page 0 as the spec names a one-page prefix's; another page with its position
      const pos = v.prefixPos(t);
      const page = val(pos) === slot0 ? `prefix ${prefix[1]}` : `prefix ${prefix[1]}[${slotName(pos)}]`;
      return { data: `${page}'s data`, holder: `the cache entry of ${page}`, tag: page }[as];
    }
    return text;
  };
  const labels = (): Z[] => [v.none, ...universe(v.Req).map((q) => v.body(q)), ...universe(v.Grp).flatMap((g) => slots.map((k) => v.prefix(g, k)))];

  const requestLine = (s: ZState, q: Z): string => {
    const table = slots.filter((k) => truth(v.inTable(q, k))).map((k) => `${slotName(k)} → ${val(at(s.table, q, k))}`);
    const flags = [truth(at(s.hit, q)) ? 'hit' : '', truth(at(s.inserted, q)) ? 'inserted' : ''].filter(Boolean);
    const read = labels().filter((l) => truth(at(s.read, q, l)));
    const records = slots
      .filter((k) => truth(v.inTable(q, k)) && truth(v.isRd(at(s.rec, q, k))))
      .map((k) => `${slotName(k)} ${label(v.rdLabel(at(s.rec, q, k)), 'data')}${truth(v.rdMisplaced(at(s.rec, q, k))) ? ' (written for another position)' : ''}`);
    return [
      `request ${val(q)}: ${val(at(s.phase, q))}`,
      `length ${val(v.len(q))}${truth(v.hasPrefix(q)) ? `, prefix ${val(v.group(q))}` : ''}${flags.length ? `, prefix pages shared (${flags.join(', ')})` : ''}`,
      `table ${table.join(', ') || 'empty'}`,
      `has read ${read.map((l) => label(l, 'data')).join(', ') || 'nothing'}`,
      ...(records.length ? [`read at ${records.join(', ')}`] : []),
      ...(val(at(s.steps, q)) !== '0' ? [`${val(at(s.steps, q))} decode steps taken`] : []),
    ].join('; ');
  };
  const pageLine = (s: ZState, p: Z): string =>
    `page ${val(p)}: held by ${label(at(s.holder, p), 'holder')}; holds ${label(at(s.data, p), 'data')}${val(at(s.data, p)) === 'none' ? '' : ` (for ${slotName(at(s.dataPos, p))})`}; tag ${label(at(s.tag, p), 'tag')}`;

  const step = c.action === 'init' ? 'init' : `${c.action}(${val(c.r)})`;
  const requests = universe(v.Req);
  const pages = universe(v.Page);
  const story: string[] = [];
  if (c.action === 'init') {
    story.push(`the initial state breaks ${c.conjunct.name}:`, ...requests.map((q) => `  ${requestLine(c.pre, q)}`), ...pages.map((p) => `  ${pageLine(c.pre, p)}`));
  } else {
    const limit = c.action === 'prefill' || c.action === 'stub' ? ` (prefill limit ${val(v.limit)})` : '';
    story.push(`before ${step}, a state that satisfies the invariant${limit}:`);
    story.push(...requests.map((q) => `  ${requestLine(c.pre, q)}`), ...pages.map((p) => `  ${pageLine(c.pre, p)}`));
    story.push(`${step}:${narrate(c, val, label, slots, slotName)}`);
    const changed = [
      ...requests.map((q) => [requestLine(c.pre, q), requestLine(c.post, q)] as const),
      ...pages.map((p) => [pageLine(c.pre, p), pageLine(c.post, p)] as const),
    ].filter(([a, b]) => a !== b);
    story.push('after it:', ...(changed.length ? changed.map(([, b]) => `  ${b}`) : ['  nothing changed']));
  }
  const witnesses: Record<string, string> = {};
  c.conjunct.vars.forEach(([kind, name], k) => {
    const w = c.witnesses[k];
    if (w === undefined) return;
    witnesses[name] = kind === 'Label' ? label(w, 'data') : kind === 'Slot' ? slotName(w).replace(/^slot /, '') : val(w);
  });
  if (c.conjunct.name === 'Isolation' && c.witnesses[0] !== undefined && c.witnesses[1] !== undefined) {
    // what the reader read there, which is what makes it a leak
    witnesses['label'] = label(v.rdLabel(at(c.post.rec, c.witnesses[0], c.witnesses[1])), 'data');
  }
  const instance = Object.entries(witnesses).map(([name, value]) => `${name} ${value}`).join(', ');
  story.push(`${c.conjunct.name} fails (${instance})${c.conjunct.name === 'Isolation' ? `: request ${witnesses['reader'] ?? '?'} has read ${witnesses['label'] ?? '?'} at position ${witnesses['position'] ?? '?'}, which is not its own there` : ''}.`);
  return { violated: c.conjunct.name, step, witnesses, story };
}

/** One sentence on what the step did, in the protocol's terms. */
function narrate(
  c: CtiInput,
  val: (t: Z) => string,
  label: (t: Z, as: 'data' | 'holder' | 'tag') => string,
  slots: readonly Z[],
  slotName: (k: Z) => string,
): string {
  const { v, pre, post } = c;
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
