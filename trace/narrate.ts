/**
 * Each step of a trace in words: what the action did, told as the serving stack would
 * (D gives pages, P writes, D reads), and which request variables changed. The page
 * cells themselves are shown by the printers; these words say what the cells mean.
 */
import { match } from 'ts-pattern';
import {
  dataOf,
  holderOf,
  mayReadAt,
  readEnd,
  slotsReadAt,
  stepsOf,
  tagCovers,
  tagFillOf,
  tagOf,
  view,
  type Model,
  type RequestView,
  type State,
  type Trace,
} from '../spec/index.ts';
import { pageIds, perPageWords } from './long-lists.ts';
import { dataName, pageCount, dataWords, decodeStepWords, evictedPages, holderWords, pagesWords, postedPages, slotsRead, stateAt, stepContext, tokensWords, writeMode, writesOf, writtenBefore } from './facts.ts';

const list = (items: readonly string[]): string => items.join(', ');

/** `one` for a single page, else `many`: `its contents stay` or `their contents stay`. */
const perPages = (pages: readonly unknown[], one: string, many: string): string => (pages.length === 1 ? one : many);

/** `page 0 shared from the cache entry of prefix sys`, one clause per shared prefix page. */
function sharedWords(m: Model, s: State, pages: readonly number[]): string {
  return pages.map((p) => `page ${p} shared from ${holderWords(m, holderOf(m, s, p))}`).join(', ');
}

/** The pages of `r`'s table that are its own (not the `shared` prefix pages), in table order. */
function ownPages(table: readonly number[], shared: number): number[] {
  return table.slice(shared);
}

/** What step `k` (1-based) did, in one sentence. */
export function narrate(m: Model, trace: Trace, k: number): string {
  const context = stepContext(m, trace, k);
  if (context === undefined) return 'every page is free and has never been written; every request is new.';
  const { action, r, before, after, req, who, shared, table } = context;
  // A long list names each content once, with its pages (`long-lists.ts`).
  const datas = (pages: readonly number[]): string => perPageWords(pages, (p) => dataName(m, dataOf(m, before, p)));
  return match(action.kind)
    .with('allocate', () => {
      const hit = req?.hit === true ? ` (${sharedWords(m, after, table.slice(0, shared))})` : '';
      return `D gives ${who} ${pagesWords(table)}${hit}, which ${perPages(table, 'holds', 'hold')}: ${datas(table)}.`;
    })
    .with('prefill', 'stub', (kind) => {
      const mode = writeMode(m, trace, k);
      if (mode === 'dropped') return `P's late write for ${who} arrives, but D revoked P's access when it timed ${who} out: it lands nowhere.`;
      if (mode === 'posted') {
        const posted = postedPages(m, before, r);
        const what = kind === 'stub' ? `a one-page dummy for ${who} (over the prefill limit)` : `${who}'s prompt`;
        const parts = m.ownerCheck ? 'its content and tag parts land' : 'its content parts land';
        return `P posts its write of ${what} into ${pagesWords(posted)}${req?.phase === 'landing' ? ', which D has already freed' : ''}; ${parts} one at a time.`;
      }
      return kind === 'prefill' ? prefillWords() : stubWords();
    })
    .with('handoff', () => {
      const total = ownPages(table, shared).length;
      return `P reports Success for ${who} (${writtenBefore(m, trace, r, k)} of ${total} ${total === 1 ? 'page' : 'pages'} written); D commits it.`;
    })
    .with('decode', () => {
      if (req?.phase === 'failed') {
        const foreign = table.find((p, i) => !mayReadAt(m, r, i, tagOf(m, before, p)));
        // Under tag-counts-tokens a page can carry the right tag but count too few written slots.
        const short = table.findIndex((p, i) => !tagCovers(m, before, p, slotsReadAt(m, i, readEnd(m, before, r))));
        const bad = foreign ?? (short >= 0 ? table[short] : undefined);
        const tag = bad === undefined ? 0 : tagOf(m, before, bad);
        const counted = foreign === undefined && short >= 0 ? `, counting ${tagFillOf(m, before, bad ?? 0)} written slots where ${who} reads ${slotsReadAt(m, short, readEnd(m, before, r))}` : '';
        const found = (tag === 0 ? 'has no tag' : `is tagged ${dataName(m, tag)}`) + counted;
        const at = m.decodeSteps > 1 ? ` at step ${stepsOf(m, before, r) + 1} of ${m.decodeSteps}` : '';
        return `owner check${at}: page ${bad ?? '?'} ${found}, which ${who} may not read: ${who} fails loudly and reads nothing.`;
      }
      if (m.pageSize > 1) return slotDecodeWords();
      const token = stepsOf(m, after, r) > 1 ? `; then it writes its new token into page ${table.at(-1) ?? '?'}` : '';
      return `${who} reads ${pagesWords(table)}${decodeStepWords(m, trace, k)}, which ${perPages(table, 'holds', 'hold')}: ${datas(table)}${token}.`;
    })
    .with('free', () => {
      const own = ownPages(table, shared);
      if (req?.phase === 'released') {
        const holders = perPageWords(own, (p) => holderWords(m, holderOf(m, before, p)));
        return `a stale second release frees ${who}'s old ${pagesWords(own)} again; ${perPages(own, 'it was', 'they were')} held by: ${holders}.`;
      }
      return `D frees ${who}'s ${pagesWords(own)}; ${perPages(own, 'its contents stay', 'their contents stay')} (${datas(own)}).`;
    })
    .with('timeout', () => `D times ${who} out and frees ${pagesWords(ownPages(table, shared))} while P's write is still in flight.`)
    .with('insert', () => {
      const p = table[0] ?? 0;
      if (shared <= 1) return `D puts ${who}'s page ${p} into ${holderWords(m, holderOf(m, after, p))}; it holds ${dataWords(m, dataOf(m, after, p))}.`;
      const pages = table.slice(0, shared);
      return `D puts ${who}'s ${pagesWords(pages)} into the ${m.groupNames[m.group[r] ?? 0] ?? '?'} prefix cache; they hold ${perPageWords(pages, (q) => dataWords(m, dataOf(m, after, q)))}.`;
    })
    .with('evict', () => {
      const evicted = evictedPages(m, before, after);
      const first = evicted[0] ?? -1;
      const from = holderWords(m, holderOf(m, before, first)).replace(/ \(page \d+\)$/, '');
      const still = evicted.length === 1 ? 'it still holds' : 'they still hold';
      return `D finds too few free pages for ${who} and evicts ${pagesWords(evicted)} from ${from}; ${still} ${perPageWords(evicted, (q) => dataWords(m, dataOf(m, after, q)))}.`;
    })
    .with('landData', 'landTag', (kind) => {
      const base = kind === 'landData' ? m.dataAt : m.tagAt;
      let p = -1;
      for (let q = 0; q < m.pages && p < 0; q++) if (before[base + q] !== after[base + q]) p = q;
      const part = kind === 'landData' ? 'content' : 'owner tag';
      if (p < 0) return `the ${part} part of ${who}'s write lands; it changes nothing.`;
      return `the ${part} part of ${who}'s write lands in page ${p}, held by ${holderWords(m, holderOf(m, after, p))}; the page now holds ${dataWords(m, dataOf(m, after, p))}, ${tagOf(m, after, p) === 0 ? 'with no tag' : `tagged ${dataName(m, tagOf(m, after, p))}`}.`;
    })
    .exhaustive();

  /** A decode step with token slots: the tokens read, each page's content, and where stale P-side data begins. */
  function slotDecodeWords(): string {
    const reads = perPageWords(
      table,
      (p, i) => {
        const { last, stale } = slotsRead(m, before, r, i);
        const data = dataName(m, dataOf(m, before, p));
        return stale <= last ? `${data}, then stale P-side data from token ${stale}` : data;
      },
      '; ',
    );
    const end = slotsRead(m, before, r, table.length - 1).last;
    const written = stepsOf(m, after, r) > 1 ? end + 1 : -1;
    const slot = Math.min(written, table.length * m.pageSize - 1);
    const token = written < 0 ? '' : `; then it writes its new token into slot ${slot} (page ${table[Math.floor(slot / m.pageSize)] ?? '?'})`;
    return `${who} reads ${tokensWords(0, end)} in ${pagesWords(table)}${decodeStepWords(m, trace, k)}, which hold: ${reads}${token}.`;
  }

  /** `prefill` landing whole. */
  function prefillWords(): string {
    const writes = writesOf(m, before, action);
    const contents = perPageWords(writes, (p) => dataName(m, dataOf(m, after, p)));
    const late = req?.phase === 'landed';
    const into = late ? `, held now by ${perPageWords(writes, (p) => holderWords(m, holderOf(m, after, p)))}` : '';
    const tokens = m.tokens[r] ?? 0;
    const cut = tokens > m.config.prefillLimit || (m.lengthRule === 'ge' && tokens === m.config.prefillLimit);
    const prompt = m.fault['auto-truncate'] && cut ? `prompt, cut from ${tokens} tokens to the prefill limit of ${m.config.prefillLimit} (auto-truncate),` : 'prompt';
    return late
      ? `P's late write of ${who}'s ${prompt} lands in ${pagesWords(writes)} (data: ${contents})${into}.`
      : `P writes ${who}'s ${prompt} into ${pagesWords(writes)} (data: ${contents}).`;
  }

  /** A silent `stub` landing whole, or a refusal. */
  function stubWords(): string {
    const writes = writesOf(m, before, action);
    const rule = m.lengthRule === 'ge' ? 'at least' : 'over';
    const limit = m.pageSize > 1 ? `${m.tokens[r] ?? 0} tokens is ${rule} the prefill limit of ${m.config.prefillLimit}` : `${pageCount(m.len[r] ?? 0)} is ${rule} the prefill limit of ${m.config.prefillLimit}`;
    if (writes.length === 0) return `P refuses ${who}: ${limit}; nothing is written, and D is told.`;
    const total = ownPages(table, shared).length;
    return `P stubs ${who} (${limit}): it writes ${pagesWords(writes)} only, ${writes.length} of ${total} ${total === 1 ? 'page' : 'pages'}, and reports success.`;
  }
}

/** How one request changed, in words: `allocated → written, table [0 1 2]`; undefined when it did not. */
function requestChange(was: RequestView, now: RequestView): string | undefined {
  const parts: string[] = [];
  if (was.phase !== now.phase) parts.push(`${was.phase} → ${now.phase}`);
  if (was.table.join() !== now.table.join()) parts.push(`table [${pageIds(now.table, ' ')}]`);
  if (was.read.join() !== now.read.join()) parts.push(`read ${now.read.length === 0 ? 'nothing' : list(now.read)}`);
  if (was.hit !== now.hit) parts.push('allocated on the cached prefix');
  if (was.inserted !== now.inserted) parts.push('prefix pages now in the prefix cache');
  if (was.readUnheld !== now.readUnheld) parts.push('read a page it did not hold');
  if (was.partsLanded.data !== now.partsLanded.data || was.partsLanded.tag !== now.partsLanded.tag) {
    parts.push(`parts landed: ${now.partsLanded.data} content, ${now.partsLanded.tag} tag`);
  }
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** The request variables that step `k` changed, one entry per request: its name and the change. */
export function requestChanges(m: Model, trace: Trace, k: number): Array<{ readonly name: string; readonly change: string }> {
  const was = view(m, stateAt(trace, k - 1)).requests;
  const now = view(m, stateAt(trace, k)).requests;
  const out: Array<{ name: string; change: string }> = [];
  now.forEach((q, i) => {
    const before = was[i];
    const change = before === undefined ? undefined : requestChange(before, q);
    if (change !== undefined) out.push({ name: q.name, change });
  });
  return out;
}
