/**
 * Issue 25's acceptance log: `incident --serving --log` on the real-scale replay under
 * SGLang's allocator (16,384 pages of 64 tokens, prompts in tokens, partial last pages,
 * decode steps that take pages at page boundaries, releases in SGLang's calls, retractions
 * and resumes, transfers P aborted, commit-time aborts) conforms under `--allocator
 * sglang`; the same log with one double free, one wrong allocation order or one early free
 * is reported at the line of that event.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ServingPool } from '../../impl/index.ts';
import type { ReplayResult } from '../../incident/replay.ts';
import { idOf, kindOf, loggedReplay, validateLines } from './logged-replay.ts';

let lines: string[] = [];
let result: ReplayResult;

beforeAll(() => {
  ({ result, lines } = loggedReplay(600, undefined, (o) => new ServingPool(o)));
}, 120_000);

const check = (text: readonly string[]) => validateLines('serving.jsonl', text);
const count = (kind: string): number => lines.filter((l) => kindOf(l) === kind).length;

describe('incident --serving --log under --allocator sglang', () => {
  it('has every event of a P/D lifecycle, and conforms', () => {
    expect(result.serving).toEqual({ grows: 6037, retractions: 10, resumes: 10, aborts: 20, commitAborts: 9 });
    expect([lines.length, count('allocate'), count('grow'), count('retract'), count('resume'), count('abort'), count('abortCommit'), count('free')]).toEqual([16_701, 600, 6037, 10, 10, 20, 9, 1118]);
    const r = check(lines);
    expect([r.verdict, r.requests, r.unfinished]).toEqual(['conforms', 600, []]);
  });

  it('one double free (a release call logged twice) is reported at its line', () => {
    const at = lines.findIndex((l, i) => kindOf(l) === 'free' && i > 5000);
    const broken = [...lines.slice(0, at + 1), lines[at]!, ...lines.slice(at + 1)];
    const r = check(broken);
    expect([r.verdict, r.at?.line, r.refusals[0]?.why]).toEqual(['deviation', 5135, expect.stringContaining('is not enabled')]);
    expect(at + 2).toBe(5135);
  });

  it('one allocation in the wrong order (its first two pages swapped) is reported at its line', () => {
    const at = lines.findIndex((l, i) => kindOf(l) === 'allocate' && i > 5000 && /"pages":\[\d+,\d+/.test(l));
    const broken = [...lines];
    broken[at] = lines[at]!.replace(/"pages":\[(\d+),(\d+)/, '"pages":[$2,$1');
    const r = check(broken);
    expect([r.verdict, r.at?.line, r.refusals[0]?.why]).toEqual(['deviation', 9735, expect.stringContaining('the sglang allocator hands out')]);
    expect(at + 1).toBe(9735);
  });

  it('one early free (a release logged before the request decoded) is reported at its line', () => {
    const handoff = lines.findIndex((l, i) => kindOf(l) === 'handoff' && i > 5000);
    const id = idOf(lines[handoff]!);
    const free = lines.findIndex((l, i) => i > handoff && kindOf(l) === 'free' && idOf(l) === id);
    const broken = [...lines.slice(0, handoff + 1), lines[free]!, ...lines.slice(handoff + 1)];
    const r = check(broken);
    expect([r.verdict, r.at?.line, r.refusals[0]?.why]).toEqual(['deviation', 5018, 'free(r228) is not enabled: r228 is handedOff']);
    expect([handoff + 2, id]).toEqual([5018, 'r228']);
  });
});
