/**
 * Logs of retraction's faults (issue 25's offload-after-free and resume-stale logs): the
 * copy to host memory that reads the pages after their release (`offload` line), and the
 * resume that loads nothing. Each log is pinned to its verdict, invariant and line, and the
 * same story without the fault is pinned too, so that the fault's line is what decides.
 */
import { describe, expect, it } from 'vitest';
import type { ValidationResult } from '../../conformance/index.ts';
import { config, ev, runLog, served, summary, why } from './log-lines.ts';

const run = (text: readonly string[]): ValidationResult => runLog('retract.jsonl', text);

// 4 pages; A (2 pages) is handed off on 0 1 and retracted before it decodes; B takes 0 1 and P writes B's data there.
const setting = (variant: string, faults: readonly string[]): string => config({ pages: 4, prefillLimit: 4, retraction: true, variant, faults });
const story = (variant: string, faults: readonly string[]): string[] => [
  setting(variant, faults),
  ev('arrive', 'A', { length: 2 }),
  ev('allocate', 'A', { pages: [0, 1] }),
  ev('done', 'A'),
  ev('handoff', 'A'),
  ev('retract', 'A', { pages: [0, 1] }),
  ev('arrive', 'B', { length: 2 }),
  ev('allocate', 'B', { pages: [0, 1] }),
  ev('done', 'B'),
];
/** A's copy finishes (only with the fault), A resumes on 2 3 and reads them. */
const resumeAndRead = [ev('resume', 'A', { pages: [2, 3] }), ev('decode', 'A', { pages: [2, 3], step: 0 })];

describe('offload-after-free: the copy reads the old pages after their release', () => {
  it('buggy: the copy takes B\'s data, the resume loads it into A\'s new pages, and A reads it: Isolation at the decode line', () => {
    const r = run([...story('buggy', ['offload-after-free']), ev('offload', 'A'), ...resumeAndRead]);
    expect(summary(r)).toBe('violation Isolation 12');
    expect(r.victim?.id).toBe('A');
  });

  it('the copy before B\'s write lands conforms: the offload line comes before B\'s done', () => {
    const early = story('buggy', ['offload-after-free']);
    const r = run([...early.slice(0, -1), ev('offload', 'A'), early.at(-1)!, ...resumeAndRead]);
    expect(summary(r)).toBe('conforms - -');
  });

  it('without the fault the copy is the retract\'s own: the same story conforms, and an offload line is a deviation', () => {
    expect(summary(run([...story('buggy', []), ...resumeAndRead]))).toBe('conforms - -');
    const r = run([...story('buggy', []), ev('offload', 'A')]);
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 10', 'offload(A) is not enabled: A is retracted']);
  });

  it('with the fault a resume before the copy finished is a deviation (SGLang\'s resume waits for ongoing_offload)', () => {
    const r = run([...story('buggy', ['offload-after-free']), ...resumeAndRead]);
    expect(summary(r)).toBe('deviation - 10');
    expect(why(r)).toContain('A is offloading');
  });

  it('owner-check does not stop it: the load stamps A\'s tag on B\'s data (Isolation at the decode line)', () => {
    expect(summary(run([...story('owner-check', ['offload-after-free']), ev('offload', 'A'), ...resumeAndRead]))).toBe('violation Isolation 12');
  });

  it('hardened: copy-carries-tag restores B\'s tag with B\'s data, so A fails loudly; a log that says A decoded deviates', () => {
    const head = [...story('hardened', ['offload-after-free']), ev('offload', 'A'), ev('resume', 'A', { pages: [2, 3] })];
    expect(summary(run([...head, ev('fail', 'A')]))).toBe('conforms - -');
    const r = run([...head, ev('decode', 'A', { pages: [2, 3], step: 0 })]);
    expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 12', "the spec's decode(A) leaves it failed; the log says it ended decoded"]);
  });
});

describe('resume-stale: the resume loads nothing', () => {
  it('buggy: A\'s new pages keep what they held and A reads it; B held 0 1 and freed them, so that is B\'s data', () => {
    const text = [
      setting('buggy', ['resume-stale']),
      ev('arrive', 'B', { length: 2 }),
      ...served('B', [0, 1]),
      ev('arrive', 'A', { length: 2 }),
      ev('allocate', 'A', { pages: [2, 3] }),
      ev('done', 'A'),
      ev('handoff', 'A'),
      ev('free', 'B', { pages: [0, 1] }),
      ev('retract', 'A', { pages: [2, 3] }),
      ev('resume', 'A', { pages: [0, 1] }),
      ev('decode', 'A', { pages: [0, 1], step: 0 }),
    ];
    expect(summary(run(text))).toBe('violation Isolation 14');
    expect(summary(run([setting('buggy', []), ...text.slice(1)]))).toBe('conforms - -');
    // Under the owner check the new pages' tags stay cleared: A fails loudly.
    expect(summary(run([setting('owner-check', ['resume-stale']), ...text.slice(1, -1), ev('fail', 'A')]))).toBe('conforms - -');
  });
});

describe('a resume under the any allocator', () => {
  // npm run mutation's seed-40 sample: the resume's pages taken from the log under `any` (conformance/step-allocate.ts) were reached by no test.
  const anyStory = (resume: string): string[] => [
    config({ pages: 4, prefillLimit: 4, retraction: true, variant: 'buggy', faults: [], allocator: 'any' }),
    ev('arrive', 'A', { length: 2 }),
    ev('allocate', 'A', { pages: [1, 0] }),
    ev('done', 'A'),
    ev('handoff', 'A'),
    ev('retract', 'A', { pages: [1, 0] }),
    resume,
  ];

  it('takes the pages the line names, in its order, and the decode reads them', () => {
    expect(summary(run([...anyStory(ev('resume', 'A', { pages: [3, 2] })), ev('decode', 'A', { pages: [3, 2], step: 0 })]))).toBe('conforms - -');
  });

  it('is a deviation when the line names no pages', () => {
    const r = run(anyStory(ev('resume', 'A')));
    expect(summary(r)).toBe('deviation - 7');
    expect(why(r)).toContain('resume(A) must name its pages under the any allocator');
  });
});

describe('a resume onto pages another request holds', () => {
  // npm run mutation's seed-40 sample: the resume's check of the logged pages (conformance/step-allocate.ts resume, heldPages) was reached by no test.
  it('A resumes on 0 1, which B holds: ExclusiveHold at the resume line, naming B; a page past the pool is a deviation', () => {
    const r = run([...story('buggy', []), ev('resume', 'A', { pages: [0, 1] })]);
    expect([summary(r), ...r.headline]).toEqual(['violation ExclusiveHold 10', 'resume(A) took page 0, which B still holds.', 'resume(A) took page 1, which B still holds.']);
    const past = run([...story('buggy', []), ev('resume', 'A', { pages: [2, 7] })]);
    expect([summary(past), why(past)]).toEqual(['deviation - 10', expect.stringContaining('page 7 is not in the pool of 4 pages (ids 0 to 3)')]);
  });
});
