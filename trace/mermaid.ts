/**
 * The trace as a Mermaid sequence diagram, with lanes for the client, prefill (P), decode
 * (D) and D's page pool: each action becomes the messages the real stack would exchange,
 * and the step that breaks an invariant is boxed in red with the explanation beside it.
 */
import { match } from 'ts-pattern';
import { dataOf, holderOf, mayReadAt, tagOf, type Model, type Trace } from '../spec/index.ts';
import { dataName, pageCount, decodeStepWords, evictedPages, holderWords, postedPages, slotsRead, stepContext, tokensWords, writeMode, writesOf, writtenBefore } from './facts.ts';
import { describeModel } from './story.ts';
import { explain } from './explain.ts';
import { pageIds, perPageWords } from './long-lists.ts';

/** The first line of every diagram pagecheck writes; `writeTraceFiles` recognises its own files by it. */
export const MERMAID_SIGNATURE = '%% pagecheck trace';

/** Mermaid's message text ends at `;`, `#` and newlines: keep them out. */
function text(s: string): string {
  return s.replace(/;/g, ',').replace(/[#\n\r]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** `page 3`, `pages 0,1`; a long list in runs, `pages 0–179` (`long-lists.ts`). */
const ids = (pages: readonly number[]): string => (pages.length === 0 ? 'no pages' : `${pages.length === 1 ? 'page' : 'pages'} ${pageIds(pages, ',')}`);

/** The messages of step `k`, without the red box. */
function messages(m: Model, trace: Trace, k: number): string[] {
  const context = stepContext(m, trace, k);
  if (context === undefined) return [];
  const { action, r, before, after, req, who, shared, table } = context;
  const own = table.slice(shared);
  const label = `${k}. ${action.kind}(${who})`;
  const contents = (pages: readonly number[]): string => perPageWords(pages, (p) => dataName(m, dataOf(m, before, p)));
  return match(action.kind)
    .with('allocate', () => [
      `C->>D: ${label}: request ${who}, ${pageCount(m.len[r] ?? 0)}`,
      `D->>Pool: take ${ids(table)}${req?.hit === true ? ` (page ${table[0]} from the prefix cache)` : ''}`,
      `Pool-->>D: ${ids(table)} hold: ${contents(table)}`,
      `D->>P: page ids ${pageIds(table, ',')}`,
    ])
    .with('prefill', 'stub', (kind) => {
      const mode = writeMode(m, trace, k);
      if (mode === 'dropped') return [`P->>Pool: ${label}: late write for ${who}, dropped (P's access was revoked at the timeout)`];
      if (mode === 'posted') return [`P->>Pool: ${label}: post the write of ${kind === 'stub' ? 'a one-page dummy' : `${who}'s prompt`} into ${ids(postedPages(m, before, r))}, parts land later`];
      return kind === 'prefill' ? prefillLines() : stubLines();
    })
    .with('handoff', () => {
      const written = writtenBefore(m, trace, r, k);
      return [`P->>D: ${label}: Success (${written} of ${pageCount(own.length)} written)`, `Note over D: commits ${who}`];
    })
    .with('decode', () => {
      const stepWords = decodeStepWords(m, trace, k);
      if (req?.phase === 'failed') {
        const bad = table.find((p, i) => !mayReadAt(m, r, i, tagOf(m, before, p))) ?? 0;
        const tag = tagOf(m, before, bad);
        return [
          `D->>Pool: ${label}: check the tags of ${ids(table)}`,
          `Note over D,Pool: owner check: page ${bad} ${tag === 0 ? 'has no tag' : `is tagged ${dataName(m, tag)}`}, ${who} fails loudly`,
          `D-->>C: ${who} fails with an error`,
        ];
      }
      // With token slots: which tokens the step reads.
      const tokens = m.pageSize > 1 ? `${tokensWords(0, slotsRead(m, before, r, table.length - 1).last)} in ` : '';
      const out = [
        `D->>Pool: ${label}: read ${tokens}${ids(table)}${stepWords}`,
        `Pool-->>D: ${ids(table)}: ${contents(table)}`,
        `D-->>C: answer for ${who}, from the data of ${req?.read.join(', ') || 'nobody'}`,
      ];
      if ((req?.steps ?? 0) > 1) out.push(`D->>Pool: write ${who}'s new token into page ${table.at(-1) ?? '?'}`);
      return out;
    })
    .with('free', () =>
      req?.phase === 'released'
        ? [`D->>Pool: ${label}: return ${ids(own)} again (a stale release), held by ${perPageWords(own, (p) => holderWords(m, holderOf(m, before, p)))}`]
        : [`D->>Pool: ${label}: return ${ids(own)}, contents kept`],
    )
    .with('timeout', () => [`D->>Pool: ${label}: time out, return ${ids(own)} while P still writes`, `D-->>C: ${who} timed out`])
    .with('insert', () => [`D->>Pool: ${label}: page ${table[0] ?? '?'} into ${holderWords(m, holderOf(m, after, table[0] ?? 0))}`])
    .with('evict', () => {
      const pages = evictedPages(m, before, after);
      return [`D->>Pool: ${label}: evict page${pages.length === 1 ? '' : 's'} ${pageIds(pages)} from the prefix cache`];
    })
    .with('landData', 'landTag', (kind) => {
      const p = changedPage(m, before, after, kind === 'landData' ? m.dataAt : m.tagAt);
      const part = kind === 'landData' ? 'content' : 'tag';
      return [`P->>Pool: ${label}: the ${part} part of ${who}'s write lands in page ${p ?? '?'}${p === undefined ? '' : `, held by ${holderWords(m, holderOf(m, after, p))}`}`];
    })
    .exhaustive()
    .map(text);

  /** `prefill` landing whole. */
  function prefillLines(): string[] {
    const writes = writesOf(m, before, action);
    const tokens = m.tokens[r] ?? 0;
    const cut = m.fault['auto-truncate'] && (m.lengthRule === 'ge' ? tokens >= m.config.prefillLimit : tokens > m.config.prefillLimit);
    const out = [`P->>Pool: ${label}: write ${who}'s prompt${cut ? ` cut to ${m.config.prefillLimit} tokens (auto-truncate)` : ''} into ${ids(writes)}`];
    if (req?.phase === 'landed') out.push(`Note over Pool: late write: ${ids(writes)} held by ${perPageWords(writes, (p) => holderWords(m, holderOf(m, after, p)))} now`);
    return out;
  }

  /** A silent `stub` landing whole, or a refusal. */
  function stubLines(): string[] {
    const writes = writesOf(m, before, action);
    if (writes.length === 0) {
      return [`P->>D: ${label}: refuse ${who}, ${pageCount(m.len[r] ?? 0)} is over the limit ${m.config.prefillLimit}`, `D-->>C: ${who} refused`];
    }
    return [`P->>Pool: ${label}: write ${ids(writes)} only (${writes.length} of ${pageCount(own.length)}), then report success`];
  }
}

/** The trace as a Mermaid sequence diagram; with `violation`, its step is boxed and explained. */
export function formatMermaid(m: Model, trace: Trace, violation?: string): string {
  const x = violation === undefined ? undefined : explain(m, trace, violation);
  const lines = [
    `${MERMAID_SIGNATURE}: ${text(x === undefined ? 'no violation' : `${x.invariant} violated, ${x.headline.join(' ')}`)}`,
    'sequenceDiagram',
    '  participant C as Client',
    '  participant P as Prefill (P)',
    '  participant D as Decode (D)',
    "  participant Pool as Pool (D's KV pages)",
    `  Note over C,Pool: ${text(describeModel(m))}`,
  ];
  for (let k = 1; k <= trace.steps.length; k++) {
    const body = messages(m, trace, k);
    if (x !== undefined && k === x.step) {
      lines.push('  rect rgb(255, 205, 205)');
      for (const line of body) lines.push(`    ${line}`);
      for (const h of x.headline) lines.push(`    Note over C,Pool: ${text(`${x.invariant} violated: ${h}`)}`);
      lines.push('  end');
    } else {
      for (const line of body) lines.push(`  ${line}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** {@link formatMermaid} under the name the documentation generator uses. */
export const toMermaid = formatMermaid;

/** The page whose byte at `base + p` an action changed (a part landing changes one), if any. */
function changedPage(m: Model, before: Uint8Array, after: Uint8Array, base: number): number | undefined {
  for (let p = 0; p < m.pages; p++) if (before[base + p] !== after[base + p]) return p;
  return undefined;
}
