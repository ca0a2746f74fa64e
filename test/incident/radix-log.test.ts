/**
 * Issue 25's acceptance log with shared prefixes: `incident --serving --prefixes 4 --log`
 * on the real-scale replay under SGLang's allocator (16,384 pages of 64 tokens, prompts in
 * tokens, growth, retractions, aborts), where half the requests start with one of four
 * system prompts and D's prefix cache is the radix tree (impl/serving-radix-pool.ts): hits
 * allocate past the cached pages, admissions short of pages evict leaves, each handoff
 * inserts. The log has `radix: true` and conforms under `--allocator sglang`; its events
 * are pinned by kind; the same log with one double free, one wrong allocation order or one
 * early free is reported at the line of that event.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ServingRadixPool } from '../../impl/serving-radix-pool.ts';
import type { ReplayResult } from '../../incident/replay.ts';
import { idOf, kindOf, loggedReplay, validateLines } from './logged-replay.ts';

let lines: string[] = [];
let result: ReplayResult;

beforeAll(() => {
  ({ result, lines } = loggedReplay(600, 4, (o) => new ServingRadixPool(o)));
}, 120_000);

const check = (text: readonly string[]) => validateLines('radix.jsonl', text);
const KINDS = ['arrive', 'allocate', 'posted', 'done', 'refuse', 'handoff', 'insert', 'decode', 'grow', 'retract', 'resume', 'timeout', 'abort', 'abortCommit', 'evict', 'free'];

describe('incident --serving --prefixes 4 --log under --allocator sglang', () => {
  it('has the radix tree\'s events beside a P/D lifecycle\'s, and conforms', () => {
    expect(lines[0]).toBe('{"kind":"config","pages":16384,"pageSize":64,"prefillLimit":10645,"variant":"length-fix","faults":["early-free"],"allocator":"sglang","lengthRule":"ge","tableGrowth":true,"retraction":true,"eviction":true,"radix":true,"prefixPages":{"sys1":2,"sys2":3}}');
    expect([result.serving, result.prefixes]).toEqual([{ grows: 5872, retractions: 7, resumes: 7, aborts: 20, commitAborts: 9 }, { hits: 73, inserts: 273, evictions: 125 }]);
    expect([lines.length, ...KINDS.map((k) => lines.filter((l) => kindOf(l) === k).length)]).toEqual([16_764, 600, 600, 559, 559, 21, 550, 273, 6422, 5872, 7, 7, 20, 20, 9, 125, 1119]);
    const r = check(lines);
    expect([r.verdict, r.requests, r.unfinished]).toEqual(['conforms', 600, []]);
  });

  /** The ids of the requests that start with a prefix. */
  const withPrefix = (): Set<string> => new Set(lines.filter((l) => kindOf(l) === 'arrive' && l.includes('"prefix"')).map(idOf));

  it('one double free (a release call of a request with a prefix logged twice) is reported at its line', () => {
    const ids = withPrefix();
    const at = lines.findIndex((l, i) => kindOf(l) === 'free' && i > 5000 && ids.has(idOf(l)));
    const broken = [...lines.slice(0, at + 1), lines[at]!, ...lines.slice(at + 1)];
    const r = check(broken);
    expect([r.verdict, r.at?.line, r.refusals[0]?.why]).toEqual(['deviation', 5298, 'free(r186) is not enabled: r186 is freed; a second release of its pages needs fault double-free (the pages are still free) or stale-free']);
    expect(at + 2).toBe(5298);
  });

  it('one allocation in the wrong order (the second and third pages of a request with a prefix swapped) is reported at its line', () => {
    const at = lines.findIndex((l, i) => kindOf(l) === 'allocate' && i > 5000 && /"pages":\[\d+,\d+,\d+/.test(l) && withPrefix().has(idOf(l)));
    const broken = [...lines];
    broken[at] = lines[at]!.replace(/"pages":\[(\d+),(\d+),(\d+)/, '"pages":[$1,$3,$2');
    const r = check(broken);
    expect([r.verdict, r.at?.line, r.refusals[0]?.why]).toEqual(['deviation', 9971, 'the sglang allocator hands out [12402, 12386, 12388, 12389]; the log says [12402, 12388, 12386, 12389]']);
    expect(at + 1).toBe(9971);
  });

  it('one early free (the release of a request with a prefix logged right after its handoff\'s insert) is reported at its line', () => {
    const insert = lines.findIndex((l, i) => kindOf(l) === 'insert' && i > 5000);
    const id = idOf(lines[insert]!);
    const free = lines.findIndex((l, i) => i > insert && kindOf(l) === 'free' && idOf(l) === id);
    const broken = [...lines.slice(0, insert + 1), lines[free]!, ...lines.slice(insert + 1)];
    const r = check(broken);
    expect([r.verdict, r.at?.line, r.refusals[0]?.why, id]).toEqual(['deviation', 5130, 'free(r228) is not enabled: r228 is handedOff', 'r228']);
    expect(insert + 2).toBe(5130);
  });
});
