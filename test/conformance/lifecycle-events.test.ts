/**
 * The events a real P/D deployment logs beyond the handoff's six (issue 25, item 2), each
 * by a log of a few lines that conforms, and the same log broken at one line, pinned to
 * its verdict, its line and the words: a failed allocation (`allocFail`), a decode step's
 * page (`grow`), a release in several allocator calls, a retraction and its resume, a
 * prefix hit's partial allocation, P's abort, a commit-time abort (`abortCommit`), posted
 * parts, an insert at the handoff, and P's limit in tokens.
 */
import { describe, expect, it } from 'vitest';
import type { ValidationResult } from '../../conformance/index.ts';
import { config, ev, runLog, served, summary, why } from './log-lines.ts';

const run = (text: readonly string[]): ValidationResult => runLog('life.jsonl', text);

describe('allocFail: a failed attempt merges sglang\'s release list', () => {
  // 8 pages of 4 tokens: A (8 tokens) served and freed, B (12) takes 3 4 5, C (24) cannot be served.
  const head = [
    config({ pages: 8, pageSize: 4, prefillLimit: 8, allocator: 'sglang', variant: 'length-fix', faults: [] }),
    ev('arrive', 'A', { tokens: 8 }),
    ...served('A', [1, 2]),
    ev('free', 'A', { pages: [1, 2] }),
    ev('arrive', 'B', { tokens: 12 }),
    ev('allocate', 'B', { pages: [3, 4, 5] }),
    ev('arrive', 'C', { tokens: 24 }),
  ];
  it('after the failed attempt the merged list hands D page 1; without the line the log is a deviation there', () => {
    const tail = [ev('arrive', 'D', { tokens: 4 }), ev('allocate', 'D', { pages: [1] })];
    expect(summary(run([...head, ev('allocFail', 'C'), ...tail]))).toBe('conforms - -');
    const missing = run([...head, ...tail]);
    expect([summary(missing), why(missing)]).toEqual(['deviation - 12', 'the sglang allocator hands out [6]; the log says [1] | no state the system may be in accepts this event (one state)']);
  });

  it('a failure where the pages sufficed is a deviation', () => {
    const r = run([...head, ev('arrive', 'D', { tokens: 4 }), ev('allocFail', 'D')]);
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 12', 'allocFail(D): the allocator holds 5 free pages and D needs 1: its allocation would not fail']);
  });
});

describe('grow: a decode step\'s page (config tableGrowth)', () => {
  const head = [config({ pages: 4, pageSize: 2, prefillLimit: 8, tableGrowth: true }), ev('arrive', 'A', { tokens: 4 }), ...served('A', [0, 1])];
  it('the page the order hands out joins the table; later steps read it, the release frees it', () => {
    const r = run([...head, ev('grow', 'A', { pages: [2] }), ev('decode', 'A', { pages: [0, 1, 2], step: 1 }), ev('free', 'A', { pages: [0, 1, 2] })]);
    expect([summary(r), r.unfinished]).toEqual(['conforms - -', []]);
  });

  it('another page, a step that misses it, or no tableGrowth: a deviation at that line', () => {
    expect(why(run([...head, ev('grow', 'A', { pages: [3] })]))).toContain('grow(A) is about pages [2]; the log says [3]');
    expect(why(run([...head, ev('grow', 'A'), ev('decode', 'A', { pages: [0, 1], step: 1 })]))).toContain("A's page table is [0, 1, 2]; the log says it read [0, 1]");
    const off = run([config({ pages: 4, pageSize: 2, prefillLimit: 8 }), ...head.slice(1), ev('grow', 'A')]);
    expect([summary(off), off.refusals[0]?.why]).toEqual(['deviation - 7', 'grow(A) is not enabled: A is decoded']);
  });
});

describe('a release in several allocator calls', () => {
  // A (10 tokens, 3 pages of 4): cache_finished_req frees the tail page 3, then free_segment pages 1 2.
  const head = [config({ pages: 4, pageSize: 4, prefillLimit: 4, allocator: 'sglang' }), ev('arrive', 'A', { tokens: 10 }), ...served('A', [1, 2, 3])];
  it('the calls of one release conform in any split', () => {
    expect(summary(run([...head, ev('free', 'A', { pages: [3] }), ev('free', 'A', { pages: [1, 2] })]))).toBe('conforms - -');
    expect(summary(run([...head, ev('free', 'A', { pages: [3] }), ev('free', 'A', { pages: [2] }), ev('free', 'A', { pages: [1] })]))).toBe('conforms - -');
  });

  it('a call that frees a page again is a second release at its line: a deviation, or NoDuplicateFree under double-free', () => {
    const twice = [...head, ev('free', 'A', { pages: [3] }), ev('free', 'A', { pages: [1, 2] }), ev('free', 'A', { pages: [1, 2] })];
    const r = run(twice);
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 9', 'free(A) is not enabled: A is freed; a second release of its pages needs fault double-free (the pages are still free) or stale-free']);
    const faulted = run([config({ pages: 4, pageSize: 4, prefillLimit: 4, allocator: 'sglang', faults: ['silent-stub', 'double-free'] }), ...twice.slice(1)]);
    expect(summary(faulted)).toBe('violation NoDuplicateFree 9');
  });

  it('a first call that names a page outside the table is a deviation', () => {
    expect(why(run([...head, ev('free', 'A', { pages: [4] })]))).toContain('free(A) releases pages [1, 2, 3]; the log says [4], which are not among them (or name one twice)');
  });
});

describe('retract and resume (config retraction)', () => {
  const head = [config({ pages: 4, prefillLimit: 4, retraction: true }), ev('arrive', 'A', { length: 2 }), ...served('A', [0, 1]), ev('retract', 'A', { pages: [0, 1] })];
  const b = [ev('arrive', 'B', { length: 2 }), ev('allocate', 'B', { pages: [0, 1] })];
  it('the retracted pages go to B; A resumes on new pages and decodes on', () => {
    const r = run([...head, ...b, ev('resume', 'A', { pages: [2, 3] }), ev('decode', 'A', { pages: [2, 3], step: 1 }), ev('free', 'A', { pages: [2, 3] }), ev('done', 'B'), ev('handoff', 'B'), ev('decode', 'B', { pages: [0, 1] }), ev('free', 'B')]);
    expect([summary(r), r.unfinished]).toEqual(['conforms - -', []]);
  });

  it('a resume on other pages, a decode while retracted, a retraction without the config: deviations', () => {
    expect(why(run([...head, ...b, ev('resume', 'A', { pages: [3, 2] })]))).toContain('the sorted allocator hands out [2, 3]; the log says [3, 2]');
    expect(why(run([...head, ev('decode', 'A', { pages: [0, 1], step: 1 })]))).toContain('a later decode step of A needs it decoded, but A is retracted');
    expect(why(run([config({ pages: 4, prefillLimit: 4 }), ...head.slice(1)]))).toContain('retract(A) is not enabled: A is decoded');
  });
});

describe("a prefix hit's allocation names only the pages past the prefix", () => {
  const cached = [config({ pages: 4, prefillLimit: 4 }), ev('arrive', 'A', { length: 2, prefix: 'sys' }), ...served('A', [0, 1]), ev('insert', 'A', { pages: [0] }), ev('free', 'A', { pages: [1] }), ev('arrive', 'B', { length: 2, prefix: 'sys' })];
  it('[prefix_len:] or the whole table conform; another page does not', () => {
    expect(summary(run([...cached, ev('allocate', 'B', { pages: [1] })]))).toBe('conforms - -');
    expect(summary(run([...cached, ev('allocate', 'B', { pages: [0, 1] })]))).toBe('conforms - -');
    expect(why(run([...cached, ev('allocate', 'B', { pages: [2] })]))).toContain('the sorted allocator hands out [1]; the log says [2]');
  });
});

describe("P's abort and D's commit-time abort", () => {
  const early = config({ pages: 2, prefillLimit: 2, faults: ['silent-stub', 'early-free'] });
  const reuse = [ev('arrive', 'B', { length: 2 }), ...served('B', [0, 1])];
  it('a timed-out request whose transfer P aborted lands nowhere: the pages are reused safely, in either order', () => {
    const after = run([early, ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [0, 1] }), ev('timeout', 'A'), ev('abort', 'A', { side: 'P' }), ...reuse]);
    expect([summary(after), after.unfinished?.map((q) => q.id)]).toEqual(['conforms - -', ['B']]);
    expect(summary(run([early, ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [0, 1] }), ev('abort', 'A'), ev('timeout', 'A'), ...reuse]))).toBe('conforms - -');
    // Without P's word the late write may land in B's pages.
    expect(summary(run([early, ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [0, 1] }), ev('timeout', 'A'), ...reuse]))).toBe('violation Isolation 9');
  });

  it('abortCommit releases a written request; after the handoff it is a deviation', () => {
    const base = [config({ pages: 2, prefillLimit: 2 }), ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [0, 1] }), ev('done', 'A')];
    expect(summary(run([...base, ev('abortCommit', 'A', { pages: [0, 1] }), ...reuse]))).toBe('conforms - -');
    const late = run([...base, ev('handoff', 'A'), ev('abortCommit', 'A')]);
    expect([summary(late), late.refusals[0]?.why]).toEqual(['deviation - 6', 'abortCommit(A) is not enabled: A is handedOff']);
  });
});

describe('posted parts, an insert at the handoff, P\'s limit in tokens', () => {
  it('one posted line per chunk conforms', () => {
    const r = run([config({ pages: 4, prefillLimit: 4 }), ev('arrive', 'A', { length: 3 }), ev('allocate', 'A', { pages: [0, 1, 2] }), ev('posted', 'A', { pages: [0, 1] }), ev('posted', 'A', { pages: [2] }), ev('done', 'A'), ev('handoff', 'A')]);
    expect(summary(r)).toBe('conforms - -');
  });

  it('an insert at the handoff is read and not yet checked: a deviation that says so', () => {
    const r = run([config({ pages: 4, prefillLimit: 4 }), ev('arrive', 'A', { length: 3, prefix: 'sys' }), ev('allocate', 'A', { pages: [0, 1, 2] }), ev('done', 'A'), ev('handoff', 'A'), ev('insert', 'A', { pages: [0, 1], at: 'handoff' })]);
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 6', expect.stringContaining('an insert at the handoff (cache_unfinished_req')]);
  });

  it('prefillTokens: P\'s limit in tokens, and only one of the two', () => {
    const r = run([config({ pages: 4, pageSize: 64, prefillTokens: 100 }), ev('arrive', 'A', { tokens: 150 }), ev('allocate', 'A', { pages: [0, 1, 2] }), ev('posted', 'A', { pages: [0] })]);
    expect([summary(r), r.model?.prefillTokens, r.model?.prefillLimit]).toEqual(['conforms - -', 100, 1]);
    expect(() => run([config({ pages: 4, prefillLimit: 1, prefillTokens: 100 }), ev('arrive', 'A', { length: 1 })])).toThrow("life.jsonl:1: prefillTokens: expected P's limit once");
  });
});
