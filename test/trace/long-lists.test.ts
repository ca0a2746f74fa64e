import { describe, expect, it } from 'vitest';
import { type Config } from '../../spec/index.ts';
import { explain, formatHtml, formatTrace, toMermaid } from '../../trace/index.ts';
import { LONG_LIST, pageIds, pageRuns, perPageLines, perPageSentences, perPageWords, runsIfLong, spans } from '../../trace/long-lists.ts';
import { MINIMAL_LEAK, minimalLeak, sample, staleFree } from './traces.ts';

/** The minimal leak (or `actions`) on a pool of `pages`: A's prompt of `a` pages, then B of `b` pages (over the limit when `b > a`) is stubbed and reads A's pages 1 .. a-1. */
function bigLeak(pages: number, a: number, b: number, actions = MINIMAL_LEAK): ReturnType<typeof sample> {
  const config: Config = {
    pages,
    prefillLimit: Math.max(a, b - 1),
    requests: [
      { name: 'A', length: a },
      { name: 'B', length: b },
    ],
    variant: 'buggy',
    faults: ['silent-stub', 'stale-free'],
  };
  return sample(config, actions);
}

describe('long lists of pages', () => {
  it('runs are consecutive ids with the same key, in list order', () => {
    expect(pageRuns([0, 1, 2, 4, 5, 9], () => '').map((r) => [r.first, r.last, r.start])).toEqual([
      [0, 2, 0],
      [4, 5, 3],
      [9, 9, 5],
    ]);
    expect(spans([0, 1, 2, 4, 5, 9])).toBe('0–2, 4–5, 9');
    // A key change cuts a run even where the ids go on.
    expect(pageRuns([0, 1, 2, 3], (p) => (p < 2 ? 'G' : 'none')).map((r) => `${r.key} ${r.first}-${r.last}`)).toEqual(['G 0-1', 'none 2-3']);
  });

  it('a list of up to 32 pages is written page by page, a longer one in runs', () => {
    const upTo = Array.from({ length: LONG_LIST }, (_, p) => p);
    const longer = [...upTo, LONG_LIST];
    expect(pageIds(upTo, ' ')).toBe(upTo.join(' '));
    expect(pageIds(longer, ' ')).toBe(`0–${LONG_LIST}`);
    // A short list's pages are runs of their own even where their keys agree.
    expect(runsIfLong(upTo, () => 'G')).toHaveLength(LONG_LIST);
    expect(runsIfLong(longer, () => 'G')).toHaveLength(1);
    expect(perPageWords(upTo, () => 'G')).toBe(upTo.map(() => 'G').join(', '));
    expect(perPageWords(longer, (p) => (p < 10 ? 'G' : 'none'))).toBe(`G (0–9), none (10–${LONG_LIST})`);
    expect(perPageLines(upTo, () => 'freed')).toHaveLength(LONG_LIST);
    expect(perPageLines(longer, () => 'freed')).toEqual([`pages 0–${LONG_LIST}, each: freed.`]);
    // A sentence that names its page (twice, and not as a prefix of another id) is merged with the page named "the page".
    const sentences = longer.map((p) => `A holds page ${p}, but page ${p} is in no live page table of A.`);
    expect(perPageSentences(longer, sentences)).toEqual([`pages 0–${LONG_LIST}, each: A holds the page, but the page is in no live page table of A.`]);
    expect(perPageSentences(upTo, sentences.slice(0, LONG_LIST))).toEqual(sentences.slice(0, LONG_LIST));
  });

  it("a leak of 179 pages on a pool of 1,000 is one sentence, and no printed line runs past a screen's few widths", () => {
    const { m, trace } = bigLeak(1000, 180, 250);
    const x = explain(m, trace, 'Isolation');
    expect(x.headline).toEqual(["B read pages 1–179, each of which holds A's data written at step 2."]);
    expect(x.details).toEqual([
      "pages 1–179, each: step 1 allocate(A) gave it to A; step 2 prefill(A) wrote A's data into it; step 5 free(A) freed it, A's data left in it; step 6 allocate(B) gave it to B.",
    ]);
    // The highlighted pages stay listed one by one: the printers mark each cell.
    expect(x.pages).toHaveLength(179);
    const text = formatTrace(m, trace, { color: false, violation: 'Isolation' });
    expect(text).toContain('D gives B pages 0–249, which hold: A (0–179), none (180–249).');
    expect(text).toContain('table [0–249]');
    expect(text).toContain('changed  0–179 B/A*  180–249 B/-*');
    expect(text).toContain('changed  1–179 B/A!');
    expect(Math.max(...text.split('\n').map((line) => line.length))).toBeLessThan(250);
    const diagram = toMermaid(m, trace, 'Isolation');
    expect(diagram).toContain('take pages 0–249');
    expect(Math.max(...diagram.split('\n').map((line) => line.length))).toBeLessThan(400);
    // The page's request table shows the same runs; a small pool's, its page ids.
    expect(formatHtml(m, trace, 'Isolation')).toContain('"table":"0–249"');
    const small = minimalLeak();
    expect(formatHtml(small.m, small.trace, 'Isolation')).toContain('"table":"0 1 2"');
  });

  it('a double free of 40 pages is told once for the run', () => {
    const actions = 'allocate(A) prefill(A) handoff(A) decode(A) free(A) allocate(B) free(A)';
    const { m, trace } = bigLeak(100, 40, 40, actions);
    const x = explain(m, trace, 'ExclusiveHold');
    expect(x.headline).toHaveLength(1);
    expect(x.headline[0]).toMatch(/^pages 0–39, each: the page is in B's page table/);
    expect(x.details).toHaveLength(1);
  });

  it('small pools read as before, page by page', () => {
    const { m, trace } = minimalLeak();
    expect(explain(m, trace, 'Isolation').headline).toEqual(["B read page 1, which holds A's data written at step 2."]);
    const free = staleFree();
    expect(explain(free.m, free.trace, 'ExclusiveHold').headline.every((s) => /^page \d /.test(s))).toBe(true);
  });
});
