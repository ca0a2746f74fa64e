/**
 * validate-log with fault `premature-success` (spec/transfer.ts, under `torn-write`): D's
 * commit may come before P's write has landed, and a decode before P's `done` reads what
 * the pages held. Each story is pinned to its verdict and line, with the same story where
 * P's done comes first, or without the fault, pinned too; and the caveat the verdict
 * carries, since a log cannot show when each part landed.
 */
import { describe, expect, it } from 'vitest';
import { UNLOGGED_KINDS } from '../../conformance/index.ts';
import { config, ev, runLog, served, summary } from './log-lines.ts';

const run = (text: readonly string[]): ReturnType<typeof runLog> => runLog('premature.jsonl', text);
const FAULTS = ['torn-write', 'premature-success'];

// B is served on page 0 and freed; A gets page 0, and D commits A before P's done.
const story = (faults: readonly string[]): string[] => [
  config({ pages: 2, prefillLimit: 2, faults }),
  ev('arrive', 'B', { length: 1 }),
  ...served('B', [0]),
  ev('free', 'B', { pages: [0] }),
  ev('arrive', 'A', { length: 1 }),
  ev('allocate', 'A', { pages: [0] }),
  ev('handoff', 'A'),
  ev('decode', 'A', { pages: [0], step: 0 }),
  ev('done', 'A'),
];

describe('premature-success: D commits before the write has landed', () => {
  it('buggy: A decodes before P\'s done and reads B\'s data still in page 0: Isolation at the decode line', () => {
    const r = run(story(FAULTS));
    expect(summary(r)).toBe('violation Isolation 11');
    expect(r.headline).toEqual(["A read page 0, which holds B's data."]);
  });

  it('P\'s done before the handoff conforms, with the caveat that says what a log cannot show', () => {
    const text = story(FAULTS);
    const r = run([...text.slice(0, 9), text[11]!, text[9]!, text[10]!]);
    expect(summary(r)).toBe('conforms - -');
    expect(r.caveats?.map((c) => c.split(':')[0])).toEqual(['torn-write', 'premature-success']);
  });

  it('with the radix tree it is refused (exit 2, naming faults): the tree\'s logged pool commits only landed writes', () => {
    expect(() => run([config({ pages: 2, prefillLimit: 2, faults: FAULTS, radix: true, eviction: true }), ev('arrive', 'A', { length: 1 })])).toThrow('premature.jsonl:2: faults: premature-success with radix: true');
  });

  it('without the fault the handoff lands the write first: the same story conforms', () => {
    expect(summary(run(story(['torn-write'])))).toBe('conforms - -');
    expect(summary(run(story([])))).toBe('conforms - -');
  });

  it('the write lands at P\'s done, after the commit: a decode after it reads A\'s own data', () => {
    const text = story(FAULTS);
    // Without the early decode, A's step at the end reads its own data.
    expect(summary(run([...text.slice(0, 10), text[11]!, ev('decode', 'A', { pages: [0], step: 0 })]))).toBe('conforms - -');
  });
});

describe('aux-torn: what a log cannot show of D\'s metadata slot', () => {
  it('is refused as input (exit 2, naming faults), and its part landings are unlogged with the reason', () => {
    expect(() => run([config({ pages: 2, prefillLimit: 2, faults: ['torn-write', 'aux-torn'] }), ev('arrive', 'A', { length: 1 })])).toThrow('premature.jsonl:2: faults: validate-log does not check logs with aux-torn yet');
    expect(UNLOGGED_KINDS.landRoom).toBe("validate-log reads D's metadata slot only as the commit's verdict on its room (a handoff or an abortCommit line), never when its room and its payload landed apart: it has no action landRoom");
  });
});
