/**
 * Each action's wording for people, written once per action kind: the sentence that the
 * text and HTML printers show under a step (`D frees B's pages 1, 2; ...`), and the
 * messages that the Mermaid printer draws between the lanes (`D->>Pool: 5. free(B): return
 * pages 1,2, contents kept`). Both forms of a kind are written side by side from the same
 * facts (which page failed the owner check, whether P cut the prompt, which pages a part
 * landed in), so that they cannot tell different stories; {@link WORDING} is a record over
 * every action kind, so the compiler refuses a new action until its wording is here.
 */
import {
  dataOf,
  holderOf,
  isOverLong,
  mayReadAt,
  Ph,
  phaseOf,
  positionsRead,
  readEnd,
  slotsReadAt,
  stepsOf,
  tagCovers,
  tagFillOf,
  tagOf,
  type ActionKind,
  type Model,
  type State,
  type Trace,
} from '../spec/index.ts';
import { pageIds, perPageWords } from './long-lists.ts';
import { ids, perPages, type Phrasing, type Told } from './phrasing.ts';
import { retraction } from './wording-retraction.ts';
import { evictHostWords, landAux, landDraftWords, loadBackWords } from './wording-wire.ts';
import { dataName, dataWords, decodeStepWords, evictedPages, holderWords, pageCount, pagesWords, postedPages, slotsRead, stepContext, tokensWords, writeMode, writesOf, writtenBefore } from './facts.ts';

export type { Phrasing, Told } from './phrasing.ts';

/** `page 0 shared from the cache entry of prefix sys`, one clause per shared prefix page. */
function sharedWords(m: Model, s: State, pages: readonly number[]): string {
  return pages.map((p) => `page ${p} shared from ${holderWords(m, holderOf(m, s, p))}`).join(', ');
}

/** The page whose byte at `base + p` an action changed (a part landing changes one), if any. */
function changedPage(m: Model, before: State, after: State, read: (m: Model, s: State, p: number) => number): number | undefined {
  for (let p = 0; p < m.pages; p++) if (read(m, before, p) !== read(m, after, p)) return p;
  return undefined;
}

/** Why P finds the request too long, with its rule: `3 pages is over the prefill limit of 2` (`limitWord` words the limit). */
function overLimitWords(t: Told, limitWord: string): string {
  const { m, r } = t;
  const rule = m.lengthRule === 'ge' ? 'at least' : 'over';
  const amount = m.pageSize > 1 ? `${m.tokens[r] ?? 0} tokens` : pageCount(m.promptPages[r] ?? 0);
  return `${amount} is ${rule} ${limitWord} ${m.config.prefillLimit}`;
}

/** A write by P (`prefill`, `stub`): dropped, posted to land part by part, or landed whole. */
function write(t: Told, kind: 'prefill' | 'stub'): Phrasing {
  const { m, who, label, req } = t;
  const mode = writeMode(m, t.trace, t.k);
  if (mode === 'dropped') {
    return {
      sentence: `P's late write for ${who} arrives, but D revoked P's access when it timed ${who} out: it lands nowhere.`,
      messages: [`P->>Pool: ${label}: late write for ${who}, dropped (P's access was revoked at the timeout)`],
    };
  }
  if (mode === 'posted') {
    const posted = postedPages(m, t.before, t.r);
    const parts = m.ownerCheck ? 'its content and tag parts land' : 'its content parts land';
    const what = kind === 'stub' ? `a one-page dummy for ${who} (over the prefill limit)` : `${who}'s prompt`;
    return {
      sentence: `P posts its write of ${what} into ${pagesWords(posted)}${req?.phase === 'landing' ? ', which D has already freed' : ''}; ${parts} one at a time.`,
      messages: [`P->>Pool: ${label}: post the write of ${kind === 'stub' ? 'a one-page dummy' : `${who}'s prompt`} into ${ids(posted)}, parts land later`],
    };
  }
  return kind === 'prefill' ? prefill(t) : stub(t);
}

/** `prefill` landing whole, perhaps late, perhaps cut to the limit (`auto-truncate`). */
function prefill(t: Told): Phrasing {
  const { m, r, who, label, after } = t;
  const writes = writesOf(m, t.before, t.action);
  const contents = perPageWords(writes, (p) => dataName(m, dataOf(m, after, p)));
  const holders = perPageWords(writes, (p) => holderWords(m, holderOf(m, after, p)));
  const late = t.req?.phase === 'landed';
  const limit = m.config.prefillLimit;
  const cut = m.fault['auto-truncate'] && isOverLong(m, r);
  const prompt = cut ? `prompt, cut from ${m.tokens[r] ?? 0} tokens to the prefill limit of ${limit} (auto-truncate),` : 'prompt';
  const messages = [`P->>Pool: ${label}: write ${who}'s prompt${cut ? ` cut to ${limit} tokens (auto-truncate)` : ''} into ${ids(writes)}`];
  if (late) messages.push(`Note over Pool: late write: ${ids(writes)} held by ${holders} now`);
  const sentence = late
    ? `P's late write of ${who}'s ${prompt} lands in ${pagesWords(writes)} (data: ${contents}), held now by ${holders}.`
    : `P writes ${who}'s ${prompt} into ${pagesWords(writes)} (data: ${contents}).`;
  return { sentence, messages };
}

/** A silent `stub` landing whole, or a refusal. */
function stub(t: Told): Phrasing {
  const { who, label } = t;
  const writes = writesOf(t.m, t.before, t.action);
  if (writes.length === 0) {
    return {
      sentence: `P refuses ${who}: ${overLimitWords(t, 'the prefill limit of')}; nothing is written, and D is told.`,
      messages: [`P->>D: ${label}: refuse ${who}, ${overLimitWords(t, 'the limit')}`, `D-->>C: ${who} refused`],
    };
  }
  const total = t.own.length;
  return {
    sentence: `P stubs ${who} (${overLimitWords(t, 'the prefill limit of')}): it writes ${pagesWords(writes)} only, ${writes.length} of ${total} ${total === 1 ? 'page' : 'pages'}, and reports success.`,
    messages: [`P->>Pool: ${label}: write ${ids(writes)} only (${writes.length} of ${pageCount(total)}), then report success`],
  };
}

/** A `decode` that the owner check failed: the page it failed on, and why (a foreign tag, or under `tag-counts-tokens` too few slots counted). */
function failedDecode(t: Told): Phrasing {
  const { m, r, who, label, before, table } = t;
  const foreign = table.find((p, i) => !mayReadAt(m, r, i, tagOf(m, before, p)));
  const short = table.findIndex((p, i) => !tagCovers(m, before, p, slotsReadAt(m, i, readEnd(m, before, r))));
  const bad = foreign ?? (short >= 0 ? table[short] : undefined);
  const tag = bad === undefined ? 0 : tagOf(m, before, bad);
  const counted = foreign === undefined && short >= 0 ? `, counting ${tagFillOf(m, before, bad ?? 0)} written slots where ${who} reads ${slotsReadAt(m, short, readEnd(m, before, r))}` : '';
  const found = (tag === 0 ? 'has no tag' : `is tagged ${dataName(m, tag)}`) + counted;
  const at = m.decodeSteps > 1 ? ` at step ${stepsOf(m, before, r) + 1} of ${m.decodeSteps}` : '';
  return {
    sentence: `owner check${at}: page ${bad ?? '?'} ${found}, which ${who} may not read: ${who} fails loudly and reads nothing.`,
    messages: [`D->>Pool: ${label}: check the tags of ${ids(table)}`, `Note over D,Pool: owner check: page ${bad ?? '?'} ${found}, ${who} fails loudly`, `D-->>C: ${who} fails with an error`],
  };
}

/** A `decode` step that read: the pages (with token slots, the tokens and where stale P-side data begins), and the new token written. */
function decode(t: Told): Phrasing {
  const { m, r, who, label, before, after } = t;
  if (t.req?.phase === 'failed') return failedDecode(t);
  // The pages the step reads: under `tableGrowth`, not the page `grow` added for the token it writes.
  const table = t.table.slice(0, positionsRead(m, readEnd(m, before, r)));
  const stepWords = decodeStepWords(m, t.trace, t.k);
  // With token slots: the last token the step reads.
  const end = m.pageSize > 1 ? slotsRead(m, before, r, table.length - 1).last : 0;
  const tokens = m.pageSize > 1 ? `${tokensWords(0, end)} in ` : '';
  const messages = [`D->>Pool: ${label}: read ${tokens}${ids(table)}${stepWords}`, `Pool-->>D: ${ids(table)}: ${t.contents(table)}`, `D-->>C: answer for ${who}, from the data of ${t.req?.read.join(', ') || 'nobody'}`];
  if ((t.req?.steps ?? 0) > 1) messages.push(`D->>Pool: write ${who}'s new token into page ${t.table.at(-1) ?? '?'}`);
  if (m.pageSize <= 1) {
    const token = stepsOf(m, after, r) > 1 ? `; then it writes its new token into page ${t.table.at(-1) ?? '?'}` : '';
    return { sentence: `${who} reads ${pagesWords(table)}${stepWords}, which ${perPages(table, 'holds', 'hold')}: ${t.contents(table)}${token}.`, messages };
  }
  const reads = perPageWords(
    table,
    (p, i) => {
      const { last, stale } = slotsRead(m, before, r, i);
      const data = dataName(m, dataOf(m, before, p));
      return stale <= last ? `${data}, then stale P-side data from token ${stale}` : data;
    },
    '; ',
  );
  const written = stepsOf(m, after, r) > 1 ? end + 1 : -1;
  const slot = Math.min(written, t.table.length * m.pageSize - 1);
  const token = written < 0 ? '' : `; then it writes its new token into slot ${slot} (page ${t.table[Math.floor(slot / m.pageSize)] ?? '?'})`;
  return { sentence: `${who} reads ${tokensWords(0, end)} in ${pagesWords(table)}${stepWords}, which hold: ${reads}${token}.`, messages };
}

/** A part of a torn write landing (`landData`, `landTag`): the page it landed in and what the page now holds. */
function land(t: Told, kind: 'landData' | 'landTag'): Phrasing {
  const { m, who, label, after } = t;
  const p = changedPage(m, t.before, after, kind === 'landData' ? dataOf : tagOf);
  const part = kind === 'landData' ? 'content' : 'owner tag';
  const held = p === undefined ? '' : `, held by ${holderWords(m, holderOf(m, after, p))}`;
  const messages = [`P->>Pool: ${label}: the ${kind === 'landData' ? 'content' : 'tag'} part of ${who}'s write lands in page ${p ?? '?'}${held}`];
  if (p === undefined) return { sentence: `the ${part} part of ${who}'s write lands; it changes nothing.`, messages };
  const tag = tagOf(m, after, p) === 0 ? 'with no tag' : `tagged ${dataName(m, tagOf(m, after, p))}`;
  return { sentence: `the ${part} part of ${who}'s write lands in page ${p}${held}; the page now holds ${dataWords(m, dataOf(m, after, p))}, ${tag}.`, messages };
}

/** A `grow`: the page D takes for the next token, what it still holds, and the table's new length. */
function grow(t: Told): Phrasing {
  const { m, who, label, table } = t;
  const p = table.at(-1);
  const held = p === undefined ? 'nothing' : dataWords(m, dataOf(m, t.after, p));
  return {
    sentence: `D takes page ${p ?? '?'} for ${who}'s next token (alloc_decode): ${who}'s table grows to ${pageCount(table.length)}; the page still holds ${held}${m.ownerCheck ? ', its tag cleared' : ''}.`,
    messages: [`D->>Pool: ${label}: take one page for ${who}'s next token`, `Pool-->>D: page ${p ?? '?'} holds: ${held}`],
  };
}

/** Every action kind's wording. */
export const WORDING: Readonly<Record<ActionKind, (t: Told) => Phrasing>> = {
  allocate: (t) => {
    const { m, r, who, label, table, shared } = t;
    const hit = t.req?.hit === true;
    return {
      sentence: `D gives ${who} ${pagesWords(table)}${hit ? ` (${sharedWords(m, t.after, table.slice(0, shared))})` : ''}, which ${perPages(table, 'holds', 'hold')}: ${t.contents(table)}.`,
      messages: [
        `C->>D: ${label}: request ${who}, ${pageCount(m.promptPages[r] ?? 0)}`,
        `D->>Pool: take ${ids(table)}${hit ? ` (${ids(table.slice(0, shared))} from the prefix cache)` : ''}`,
        `Pool-->>D: ${ids(table)} hold: ${t.contents(table)}`,
        `D->>P: page ids ${pageIds(table, ',')}`,
      ],
    };
  },
  prefill: (t) => write(t, 'prefill'),
  stub: (t) => write(t, 'stub'),
  handoff: (t) => {
    const total = t.own.length;
    const written = writtenBefore(t.m, t.trace, t.r, t.k);
    // Under premature-success P's Success can come while parts of the write are still landing.
    const early = phaseOf(t.m, t.before, t.r) === Ph.writing ? ', while parts of the write are still landing' : '';
    return {
      sentence: `P reports Success for ${t.who} (${written} of ${total} ${total === 1 ? 'page' : 'pages'} written${early}); D commits it.`,
      messages: [`P->>D: ${t.label}: Success (${written} of ${pageCount(total)} written${early})`, `Note over D: commits ${t.who}`],
    };
  },
  grow,
  decode,
  free: (t) => {
    const { m, who, label, own } = t;
    if (t.req?.phase === 'released') {
      const holders = perPageWords(own, (p) => holderWords(m, holderOf(m, t.before, p)));
      return {
        sentence: `a stale second release frees ${who}'s old ${pagesWords(own)} again; ${perPages(own, 'it was', 'they were')} held by: ${holders}.`,
        messages: [`D->>Pool: ${label}: return ${ids(own)} again (a stale release), held by ${holders}`],
      };
    }
    const inFlight = phaseOf(m, t.after, t.r) === Ph.landing ? `; parts of P's write for ${who} are still in flight` : '';
    return {
      sentence: `D frees ${who}'s ${pagesWords(own)}; ${perPages(own, 'its contents stay', 'their contents stay')} (${t.contents(own)})${inFlight}.`,
      messages: [`D->>Pool: ${label}: return ${ids(own)}, contents kept`],
    };
  },
  timeout: (t) => ({
    sentence: `D times ${t.who} out and frees ${pagesWords(t.own)} while P's write is still in flight.`,
    messages: [`D->>Pool: ${t.label}: time out, return ${ids(t.own)} while P still writes`, `D-->>C: ${t.who} timed out`],
  }),
  insert: (t) => {
    const { m, who, label, after, table, shared } = t;
    const p = table[0];
    if (shared <= 1) {
      const entry = holderWords(m, holderOf(m, after, p ?? 0));
      return { sentence: `D puts ${who}'s page ${p ?? 0} into ${entry}; it holds ${dataWords(m, dataOf(m, after, p ?? 0))}.`, messages: [`D->>Pool: ${label}: page ${p ?? '?'} into ${entry}`] };
    }
    const pages = table.slice(0, shared);
    const cache = `the ${m.groupNames[m.group[t.r] ?? 0] ?? '?'} prefix cache`;
    return {
      sentence: `D puts ${who}'s ${pagesWords(pages)} into ${cache}; they hold ${perPageWords(pages, (q) => dataWords(m, dataOf(m, after, q)))}.`,
      messages: [`D->>Pool: ${label}: ${ids(pages)} into ${cache}`],
    };
  },
  evict: (t) => {
    const { m, who, label } = t;
    const evicted = evictedPages(m, t.before, t.after);
    const from = holderWords(m, holderOf(m, t.before, evicted[0] ?? -1)).replace(/ \(page \d+\)$/, '');
    const still = evicted.length === 1 ? 'it still holds' : 'they still hold';
    return {
      sentence: `D finds too few free pages for ${who} and evicts ${pagesWords(evicted)} from ${from}; ${still} ${perPageWords(evicted, (q) => dataWords(m, dataOf(m, t.after, q)))}.`,
      messages: [`D->>Pool: ${label}: evict page${evicted.length === 1 ? '' : 's'} ${pageIds(evicted)} from the prefix cache`],
    };
  },
  landData: (t) => land(t, 'landData'),
  landTag: (t) => land(t, 'landTag'),
  retract: (t) => retraction(t, 'retract'),
  offload: (t) => retraction(t, 'offload'),
  resume: (t) => retraction(t, 'resume'),
  landRoom: (t) => landAux(t, 'landRoom'),
  landPayload: (t) => landAux(t, 'landPayload'),
  landDraft: landDraftWords,
  allocFail: (t) => ({
    sentence: `D asks for ${t.who}'s pages and gets none: the free list and the release list hold too few; the release list is merged into the free list and sorted all the same.`,
    messages: [`D->>Pool: ${t.label}: take ${pageCount(t.m.promptPages[t.r] ?? 0)} for ${t.who}`, 'Pool-->>D: none (the release list merged and sorted)'],
  }),
  abortCommit: (t) => ({
    sentence: `D finds another request's bootstrap_room in ${t.who}'s metadata at commit, aborts ${t.who} and frees ${pagesWords(t.own)}; ${perPages(t.own, 'its contents stay', 'their contents stay')} (${t.contents(t.own)}).`,
    messages: [`P->>D: ${t.label}: Success`, `D->>Pool: abort ${t.who} at commit, return ${ids(t.own)}, contents kept`],
  }),
  abortSource: (t) =>
    t.m.mechanism['hold-source']
      ? {
          sentence: `P aborts ${t.who} while its transfer still reads P's source pages; P holds them until the transfer ends, so the parts still to land copy ${t.who}'s own KV.`,
          messages: [`Note over P: ${t.label}: abort ${t.who}, source pages held until the transfer ends`],
        }
      : {
          sentence: `P aborts ${t.who} and frees its source pages while its transfer still reads them; P's next prefill computes another user's KV into them, and the parts of ${t.who}'s write still to land copy that KV, tagged ${t.who}. D is not told.`,
          messages: [`Note over P: ${t.label}: abort ${t.who}, free its source pages`, `Note over P: next prefill (another user) reuses them; ${t.who}'s transfer still reads them`],
        },
  loadBack: loadBackWords,
  evictHost: evictHostWords,
};

/** Step `k` (1-based) of `trace` in words, in both forms; `undefined` for state 0. */
export function wordStep(m: Model, trace: Trace, k: number): Phrasing | undefined {
  const context = stepContext(m, trace, k);
  if (context === undefined) return undefined;
  const { before, action, who, table, shared } = context;
  // A long list names each content once, with its pages (`long-lists.ts`).
  const contents = (pages: readonly number[]): string => perPageWords(pages, (p) => dataName(m, dataOf(m, before, p)));
  return WORDING[action.kind]({ ...context, m, trace, k, own: table.slice(shared), label: `${k}. ${action.kind}(${who})`, contents });
}
