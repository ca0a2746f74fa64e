/**
 * Three small contracts of the conformance area that npm run mutation's seed-28 sample
 * found checked by no test of test/conformance: a backwards page range in a log line is
 * refused as input, naming the line and the field (conformance/validate.ts); a serving
 * replay's own events (here a timeout and P's abort) name their request like every other
 * line (conformance/log-writer.ts, `logServing`); and `takeAction` answers "not enabled"
 * for every spec action the pool never takes (conformance/pool.ts), the part landings of a
 * torn write among them, even while a write is pending.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogWriter, logAction, validate, type SourceLine } from '../../conformance/index.ts';
import { takeAction } from '../../conformance/pool.ts';
import { ServingPool } from '../../impl/index.ts';
import { config, ev, runLog, summary } from './log-lines.ts';

/** 4 pages of 2 tokens, two slots, growth and retraction on: a serving deployment's pool. */
const pool = (): ServingPool =>
  new ServingPool({ pages: 4, prefillLimit: 4, prefillTokens: 8, variant: 'length-fix', faults: ['early-free'], slots: 2, maxLength: 4, allocator: 'sorted', pageSize: 2, tableGrowth: true, retraction: true });

describe('a log line whose pages are not page runs', () => {
  it('is refused as input, with the file, the line and the field', () => {
    const lines = [config({ pages: 8, prefillLimit: 8, variant: 'buggy' }), ev('arrive', 'A', { length: 3 }), ev('allocate', 'A', { pages: [0, [5, 4]] })];
    expect(() => runLog('d.jsonl', lines)).toThrow('d.jsonl:3: pages[1]: expected a range [from, to] with from <= to, got [5,4]');
    // The same line with the range the right way round is a log like any other.
    expect(summary(runLog('d.jsonl', [...lines.slice(0, 2), ev('allocate', 'A', { pages: [0, [4, 5]] })]))).toBe('deviation - 3');
  });
});

describe("a serving replay's timeout in the log", () => {
  it('names its request in D timeout and in P abort, and the log conforms', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pagecheck-log-input-')), 'd.jsonl');
    const log = new LogWriter(file, { pages: 4, pageSize: 2, prefillLimit: 4, variant: 'length-fix', serving: true });
    const p = pool();
    expect(p.allocate(1, 2, undefined, 4)).toBe(true);
    logAction(log, p, { kind: 'allocate', slot: 1, request: 7, tokens: 4, time: 0 });
    expect(p.timeout(1)).toBe(true);
    logAction(log, p, { kind: 'timeout', slot: 1, request: 7, tokens: 4, time: 1 });
    log.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.slice(1).map((l) => JSON.parse(l) as { kind: string; id: string }).map((e) => `${e.kind} ${e.id}`)).toEqual(['arrive r7', 'allocate r7', 'timeout r7', 'abort r7']);
    const r = validate({ files: [], lines: lines.map((text, i): SourceLine => ({ file: 'd.jsonl', line: i + 1, text })), overrides: {}, window: 8 });
    expect([r.verdict, r.requests]).toEqual(['conforms', 1]);
  });
});

describe('takeAction on the actions the pool never takes', () => {
  it('answers not enabled for each, with a write pending, and leaves the pool as it was', () => {
    const p = pool();
    expect(p.allocate(0, 2, undefined, 4)).toBe(true);
    const kinds = ['landData', 'landTag', 'landRoom', 'landPayload', 'allocFail', 'abortSource', 'landDraft', 'loadBack', 'evictHost'] as const;
    expect(kinds.map((k) => takeAction(p, k, 0, 2, -1))).toEqual(kinds.map(() => false));
    // The write is still P's to land whole: prefill is enabled, and only once.
    expect([takeAction(p, 'prefill', 0, 2, -1), takeAction(p, 'prefill', 0, 2, -1)]).toEqual([true, false]);
  });
});

describe('a config event after the first request event', () => {
  it('is refused as input at its line: the model was already taken from the flags', () => {
    // npm run mutation's seed-40 sample: the check (conformance/validate.ts) was reached by no test of test/conformance.
    const lines = [ev('arrive', 'A', { length: 1 }), config({ pages: 4, prefillLimit: 4, variant: 'buggy' })];
    const flags = (text: readonly string[]): unknown => validate({ files: [], lines: text.map((t, i): SourceLine => ({ file: 'd.jsonl', line: i + 1, text: t })), overrides: { pages: 4, prefillLimit: 4 }, window: 8 });
    expect(() => flags(lines)).toThrow('d.jsonl:2: a config event after the first request event: it must come first');
    // First, it is the log's model like any other.
    expect(summary(flags([lines[1]!, lines[0]!]) as ReturnType<typeof runLog>)).toBe('conforms - -');
    // A config event repeated later (a second log file's, or a restart's) that agrees with the first is fine, after request events too.
    expect(summary(flags([lines[1]!, lines[0]!, lines[1]!]) as ReturnType<typeof runLog>)).toBe('conforms - -');
  });
});
