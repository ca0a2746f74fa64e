/**
 * validate-log with the radix tree together with a log's growth and retraction (config
 * `radix`, `tableGrowth`, `retraction`; conformance/radix.ts's `LoggedRadixPool`, the
 * serving pool with the tree): one hand-written log under `sglang` in which A inserts the
 * `sys` node at its handoff, grows a page, B hits the node, A is retracted (its pages past
 * the node freed, its lock dropped) and resumes on new pages, C hits, and D's allocation
 * evicts the node once no one locks it. Pinned: it conforms; one double free, one wrong
 * allocation order and one early free are each reported at their line; a retraction that
 * names the tree's page among those it frees is a deviation there. A second log with a
 * two-page prefix: the leaf evicted, a partial hit, its insert at the handoff, growth and
 * a retraction past the two nodes.
 */
import { describe, expect, it } from 'vitest';
import type { ValidationResult } from '../../conformance/index.ts';
import { config, ev, runLog, summary } from './log-lines.ts';

const run = (text: readonly string[]): ValidationResult => runLog('radix-life.jsonl', text);

/** A request's commit and the tree's insert at its handoff (`cache_unfinished_req`), with the table it left and the duplicates it freed. */
const committed = (id: string, pages: readonly number[]): string[] => [ev('done', id), ev('handoff', id), ev('insert', id, { at: 'handoff', pages, freed: [] })];

/** 8 pages of 2 tokens, ids 1..8; `sys` is one page. */
const LOG = [
  config({ pages: 8, pageSize: 2, prefillLimit: 8, allocator: 'sglang', variant: 'length-fix', faults: [], eviction: true, radix: true, tableGrowth: true, retraction: true }),
  ev('arrive', 'A', { tokens: 4, prefix: 'sys' }),
  ev('allocate', 'A', { pages: [1, 2] }),
  ...committed('A', [1, 2]),
  ev('decode', 'A', { pages: [1, 2], step: 0 }),
  ev('grow', 'A', { pages: [3] }),
  ev('decode', 'A', { pages: [1, 2, 3], step: 1 }),
  ev('arrive', 'B', { tokens: 3, prefix: 'sys' }),
  // line 11: B hits A's node and allocates past it.
  ev('allocate', 'B', { pages: [1, 4] }),
  ...committed('B', [1, 4]),
  ev('decode', 'B', { pages: [1, 4], step: 0 }),
  // line 16: A's retraction frees 2 and 3 (page 1 is the tree's) and unlocks the node.
  ev('retract', 'A', { pages: [2, 3] }),
  // line 17: the resume matches nothing: three new pages, the release list merged.
  ev('resume', 'A', { pages: [2, 3, 5], tokens: 6 }),
  ev('decode', 'A', { pages: [2, 3, 5], step: 2 }),
  ev('free', 'A'),
  ev('free', 'B'),
  ev('arrive', 'C', { tokens: 4, prefix: 'sys' }),
  // line 22
  ev('allocate', 'C', { pages: [1, 6] }),
  ...committed('C', [1, 6]),
  // line 26
  ev('decode', 'C', { pages: [1, 6], step: 0 }),
  ev('free', 'C'),
  ev('arrive', 'D', { tokens: 16 }),
  // line 29: nothing locks the node now (A's retraction and B's and C's releases unlocked it).
  ev('evict', 'D', { pages: [1] }),
  ev('allocate', 'D', { pages: [[1, 8]] }),
  ev('done', 'D'),
  ev('handoff', 'D'),
  ev('decode', 'D', { pages: [[1, 8]], step: 0 }),
  ev('free', 'D'),
];

/** The log with line `n` (1-based) replaced by `lines`. */
const at = (n: number, ...lines: string[]): string[] => [...LOG.slice(0, n - 1), ...lines, ...LOG.slice(n)];

describe('validate-log: the radix tree with growth and retraction', () => {
  it('conforms: 34 events, 4 requests, one state throughout, none unfinished', () => {
    const r = run(LOG);
    expect([summary(r), r.events, r.requests, r.peakStates, r.unfinished]).toEqual(['conforms - -', 34, 4, 1, []]);
  });

  it('one double free (B\'s release logged twice) is reported at the second', () => {
    const r = run(at(20, LOG[19]!, LOG[19]!));
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 21', 'free(B) is not enabled: B is freed; a second release of its pages needs fault double-free (the pages are still free) or stale-free']);
  });

  it('one allocation in the wrong order (C\'s own page another than the allocator\'s) is reported at its line', () => {
    const r = run(at(22, ev('allocate', 'C', { pages: [1, 7] })));
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 22', 'the sglang allocator hands out [1, 6]; the log says [1, 7]']);
  });

  it('one early free (C released before its decode) is reported at its line', () => {
    const r = run(at(26, ev('free', 'C'), LOG[25]!));
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 26', 'free(C) is not enabled: C is handedOff']);
  });

  it('a retraction that names the tree\'s page among those it frees is a deviation at its line', () => {
    const r = run(at(16, ev('retract', 'A', { pages: [1, 2, 3] })));
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 16', 'retract(A) releases pages [2, 3]; the log says [1, 2, 3], which are not among them (or name one twice)']);
  });
});

/** 6 pages of 2 tokens; `sys` is two pages. A inserts 1 2; X's allocation evicts the leaf 2; B matches node 1 only, allocates past it, and its insert makes its own page the second node. */
const PARTIAL = [
  config({ pages: 6, pageSize: 2, prefillLimit: 8, allocator: 'sglang', variant: 'length-fix', faults: [], eviction: true, radix: true, tableGrowth: true, retraction: true, prefixPages: { sys: 2 } }),
  ev('arrive', 'A', { tokens: 6, prefix: 'sys' }),
  ev('allocate', 'A', { pages: [1, 2, 3] }),
  ...committed('A', [1, 2]),
  ev('decode', 'A', { pages: [1, 2, 3], step: 0 }),
  ev('free', 'A'),
  ev('arrive', 'X', { tokens: 10 }),
  // line 10: the leaf goes, its parent stays.
  ev('evict', 'X', { pages: [2] }),
  ev('allocate', 'X', { pages: [[2, 6]] }),
  ev('done', 'X'),
  ev('handoff', 'X'),
  ev('decode', 'X', { pages: [[2, 6]], step: 0 }),
  ev('free', 'X'),
  ev('arrive', 'B', { tokens: 5, prefix: 'sys' }),
  // line 17: the partial hit names only the pages past the matched node.
  ev('allocate', 'B', { pages: [2, 3] }),
  ...committed('B', [1, 2]),
  ev('decode', 'B', { pages: [1, 2, 3], step: 0 }),
  ev('grow', 'B', { pages: [4] }),
  ev('decode', 'B', { pages: [1, 2, 3, 4], step: 1 }),
  // line 24: past both nodes.
  ev('retract', 'B', { pages: [3, 4] }),
  ev('resume', 'B', { pages: [3, 4, 5, 6], tokens: 7 }),
  ev('decode', 'B', { pages: [3, 4, 5, 6], step: 2 }),
  ev('free', 'B'),
];

/** The partial log with line `n` (1-based) replaced by `line`. */
const partialAt = (n: number, line: string): string[] => [...PARTIAL.slice(0, n - 1), line, ...PARTIAL.slice(n)];

describe('validate-log: a partial hit under growth and retraction', () => {
  it('conforms: 27 events, 3 requests, none unfinished', () => {
    const r = run(PARTIAL);
    expect([summary(r), r.events, r.requests, r.unfinished]).toEqual(['conforms - -', 27, 3, []]);
  });

  it('an eviction of the parent node, an insert that names another page, a retraction that frees the second node: each a deviation at its line', () => {
    expect(summary(run(partialAt(10, ev('evict', 'X', { pages: [1] }))))).toBe('deviation - 10');
    expect(summary(run(partialAt(20, ev('insert', 'B', { at: 'handoff', pages: [1, 3], freed: [] }))))).toBe('deviation - 20');
    expect(summary(run(partialAt(24, ev('retract', 'B', { pages: [2, 3, 4] }))))).toBe('deviation - 24');
  });
});

