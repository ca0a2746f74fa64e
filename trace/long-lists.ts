/**
 * Long lists of pages in words. A pool of up to 32 pages is listed page by page, as the
 * text printer shows every page of it; a longer list (a request of 180 pages on a pool of
 * 1,000) is written as runs of consecutive pages that share what is said of them, so that
 * "B read pages 1–179, each of which holds G's data" is one sentence, not 179.
 */

/** Lists of more pages than this are written in runs. */
export const LONG_LIST = 32;

/** A run of consecutive page ids, in list order, that share one key. */
export interface PageRun {
  /** The first page of the run. */
  readonly first: number;
  /** The last page of the run. */
  readonly last: number;
  /** What the run's pages share. */
  readonly key: string;
  /** The index in the list of the run's first page. */
  readonly start: number;
  /** The run's pages, in list order. */
  readonly pages: readonly number[];
}

/** The runs of `pages`: a run goes on while the next page is the last one plus one and has the same `key`. */
export function pageRuns(pages: readonly number[], key: (page: number, index: number) => string = () => ''): PageRun[] {
  const runs: { first: number; last: number; key: string; start: number; pages: number[] }[] = [];
  pages.forEach((p, i) => {
    const k = key(p, i);
    const run = runs[runs.length - 1];
    if (run !== undefined && run.key === k && p === run.last + 1) {
      run.last = p;
      run.pages.push(p);
    } else runs.push({ first: p, last: p, key: k, start: i, pages: [p] });
  });
  return runs;
}

/** A run's page ids: `7`, or `0–179`. */
export function span(run: Pick<PageRun, 'first' | 'last'>): string {
  return run.first === run.last ? `${run.first}` : `${run.first}–${run.last}`;
}

/** Page ids as runs, joined by `separator`: `0–179, 200`. */
export function spans(pages: readonly number[], separator = ', '): string {
  return pageRuns(pages).map(span).join(separator);
}

/** Whether a list of `n` pages is written in runs. */
export function isLong(n: number): boolean {
  return n > LONG_LIST;
}

/** Page ids joined by `separator`: a short list page by page, `0, 1, 2`; a long one in runs, `0–179, 200`. */
export function pageIds(pages: readonly number[], separator = ', '): string {
  return isLong(pages.length) ? spans(pages, separator) : pages.join(separator);
}

/** The runs of a long list of pages by `key` ({@link pageRuns}); a short list's pages each a run of its own. */
export function runsIfLong(pages: readonly number[], key: (page: number, index: number) => string): PageRun[] {
  if (isLong(pages.length)) return pageRuns(pages, key);
  return pages.map((p, i) => ({ first: p, last: p, key: key(p, i), start: i, pages: [p] }));
}

/** What `words` says of each page, joined by `separator`; a long list names each run's words once, with its pages: `G (0–179), none (180–249)`. */
export function perPageWords(pages: readonly number[], words: (page: number, index: number) => string, separator = ', '): string {
  if (!isLong(pages.length)) return pages.map(words).join(separator);
  return pageRuns(pages, words)
    .map((run) => `${run.key} (${span(run)})`)
    .join(separator);
}

/**
 * One sentence per page (`sentences[i]` about `pages[i]`); a long list merges each run of
 * pages whose sentences differ only in the page, the page named `the page`:
 * `pages 1–179, each: the page is in A's page table, but B holds it.`
 */
export function perPageSentences(pages: readonly number[], sentences: readonly string[]): string[] {
  if (!isLong(pages.length)) return [...sentences];
  const masked = sentences.map((s, i) => s.replace(new RegExp(`\\bpage ${pages[i]}\\b`, 'g'), 'the page'));
  return pageRuns(pages, (_, i) => masked[i]!).map((run) => (run.pages.length === 1 ? sentences[run.start]! : `pages ${span(run)}, each: ${run.key}`));
}

/** `page 5: <words>.` per page; a long list gives each run of pages with the same words once: `pages 1–179, each: <words>.` */
export function perPageLines(pages: readonly number[], words: (page: number, index: number) => string): string[] {
  return runsIfLong(pages, words).map((run) => (run.pages.length === 1 ? `page ${run.first}: ${run.key}.` : `pages ${span(run)}, each: ${run.key}.`));
}
