/**
 * A state in words, for printers, tests and the implementation's refinement check: the
 * same facts as the byte string, with names instead of labels.
 */
import { freeList, releaseList } from './allocator.ts';
import { groupOfLabel, labelName, NO_PAGE, prefixPageOfLabel, type Model } from './model.ts';
import {
  depthOf,
  dataOf,
  draftOf,
  dataPartsOf,
  fillOf,
  tagFillOf,
  dataPosOf,
  flagsOf,
  HIT,
  holderOf,
  INSERTED,
  readsLabel,
  PHASES,
  phaseOf,
  READ_UNHELD,
  stepsOf,
  tableOf,
  tagOf,
  tagPartsOf,
  type Phase,
  type State,
} from './state.ts';

/** One page in words. */
export interface PageView {
  /** Page id. */
  readonly id: number;
  /** `null` when free; a request's name; or `cache:<prefix>`. */
  readonly holder: string | null;
  /** `null` when never written; a request's name; or `prefix:<prefix>`; with token slots, `A(1/2)` when it fills only the first slots of its page. */
  readonly data: string | null;
  /** The owner tag, in the same words as `data`; `null` when cleared. */
  readonly tag: string | null;
  /** The table position its content was written for; `null` when never written. */
  readonly position: number | null;
  /** With config `draft`: whose draft-model KV it holds, in the same words as `data` (`null` when never written); absent without it. */
  readonly draft?: string | null;
}

/** One request in words. */
export interface RequestView {
  /** Its name. */
  readonly name: string;
  /** Its phase. */
  readonly phase: Phase;
  /** Its page table. */
  readonly table: readonly number[];
  /** Whose data its decode read, sorted. */
  readonly read: readonly string[];
  /** Whether it was allocated on a cached prefix page. */
  readonly hit: boolean;
  /** Whether it inserted its prefix pages into the prefix cache. */
  readonly inserted: boolean;
  /** Whether its decode read a page it did not hold. */
  readonly readUnheld: boolean;
  /** How many decode steps it has taken. */
  readonly steps: number;
  /** How many content parts, and tag parts, of P's write for it have landed (fault `torn-write`). */
  readonly partsLanded: { readonly data: number; readonly tag: number };
  /** Under `radix`: the depth of its last node in the tree (how many leading positions are tree nodes it locked). */
  readonly depth?: number;
}

/** A whole state in words. */
export interface StateView {
  /** Every page, by id. */
  readonly pages: readonly PageView[];
  /** Every request, in configuration order. */
  readonly requests: readonly RequestView[];
  /** The free list in order, front first, duplicates included (docs/ALLOCATOR.md). */
  readonly free: readonly number[];
  /** `sglang`'s release list, ascending; empty in the other orders. */
  readonly release: readonly number[];
}

/** Names a label as a holder (`cache:` for a prefix) or as content (`prefix:`). */
function word(m: Model, label: number, prefixWord: string): string | null {
  if (label === 0) return null;
  if (label <= m.n) return labelName(m, label);
  // Another user's KV from P's pool, landed whole from a reused source page (source-pages.ts).
  if (label === m.staleLabel) return 'stale';
  const g = groupOfLabel(m, label);
  const page = (m.prefixPages[g] ?? 1) > 1 ? `[${prefixPageOfLabel(m, label)}]` : '';
  return `${prefixWord}:${m.groupNames[g] ?? '?'}${page}`;
}

/** With token slots, a word for content (or a tag) that covers only the first `filled` slots of its page: `A(1/2)`. */
function partial(m: Model, w: string | null, filled: number): string | null {
  return w === null || filled >= m.pageSize ? w : `${w}(${filled}/${m.pageSize})`;
}

/** The state in words. */
export function view(m: Model, s: State): StateView {
  const pages: PageView[] = [];
  for (let p = 0; p < m.pages; p++) {
    pages.push({
      id: p,
      holder: word(m, holderOf(m, s, p), 'cache'),
      data: partial(m, word(m, dataOf(m, s, p), 'prefix'), fillOf(m, s, p)),
      tag: partial(m, word(m, tagOf(m, s, p), 'prefix'), tagFillOf(m, s, p)),
      position: dataOf(m, s, p) === 0 ? null : dataPosOf(m, s, p),
      ...(m.layout.fields.draft === undefined ? {} : { draft: word(m, draftOf(m, s, p), 'prefix') }),
    });
  }
  const requests: RequestView[] = [];
  for (let r = 0; r < m.n; r++) {
    const read: string[] = [];
    for (let label = 1; label <= m.labels; label++) {
      if (readsLabel(m, s, r, label)) read.push(word(m, label, 'prefix') ?? '');
    }
    // With token slots a read can also have met stale P-side data.
    if ((m.pageSize > 1 || m.sourcePages || m.config.loadback === true) && readsLabel(m, s, r, m.staleLabel)) read.push('stale');
    const flags = flagsOf(m, s, r);
    requests.push({
      name: m.config.requests[r]?.name ?? `#${r}`,
      phase: PHASES[phaseOf(m, s, r)] ?? 'new',
      table: tableOf(m, s, r).filter((p) => p !== NO_PAGE),
      read,
      hit: (flags & HIT) !== 0,
      inserted: (flags & INSERTED) !== 0,
      readUnheld: (flags & READ_UNHELD) !== 0,
      steps: stepsOf(m, s, r),
      partsLanded: { data: dataPartsOf(m, s, r), tag: tagPartsOf(m, s, r) },
      ...(m.radix ? { depth: depthOf(m, s, r) } : {}),
    });
  }
  return { pages, requests, free: freeList(m, s), release: releaseList(m, s) };
}
