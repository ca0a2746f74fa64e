/**
 * The projection of a log's violation onto a spec-sized model (conformance/project.ts), in
 * process: which pages it keeps, P's limit it scales, and the over-long judgement it takes
 * from the log, whether the arrival gives its length in tokens or in pages. Until this test
 * only the CLI's subprocess tests reached it, where `npm run mutation` cannot see a kill
 * (issue 27: the no-coverage mutants of project.ts's length in pages).
 */
import { describe, expect, it } from 'vitest';
import { projectViolation, validate, type SourceLine, type ValidationResult } from '../../conformance/index.ts';

const config = { kind: 'config', pages: 3, pageSize: 64, prefillLimit: 2, variant: 'buggy', faults: ['silent-stub'], allocator: 'sorted' };
/** examples/logs/d.jsonl's story: A (2 pages) served and freed, B too long for P, stubbed, reads A's page 1. */
const story = (a: Record<string, number>, b: Record<string, number>): Record<string, unknown>[] => [
  config,
  { kind: 'arrive', id: 'A', ...a },
  { kind: 'allocate', id: 'A', pages: [0, 1] },
  { kind: 'handoff', id: 'A' },
  { kind: 'decode', id: 'A', pages: [0, 1] },
  { kind: 'free', id: 'A', pages: [0, 1] },
  { kind: 'arrive', id: 'B', ...b },
  { kind: 'allocate', id: 'B', pages: [0, 1, 2] },
  { kind: 'handoff', id: 'B' },
  { kind: 'decode', id: 'B', pages: [0, 1, 2] },
];
const run = (events: readonly Record<string, unknown>[]): ValidationResult =>
  validate({ files: [], lines: events.map((e, i): SourceLine => ({ file: 'd.jsonl', line: i + 1, text: JSON.stringify(e) })), overrides: {}, window: 8 });

describe('projectViolation', () => {
  it('projects the leak onto the pages of A and B, P\'s limit between their lengths, in tokens or in pages alike', () => {
    for (const [a, b] of [
      [{ tokens: 100 }, { tokens: 150 }],
      [{ length: 2 }, { length: 3 }],
    ] as const) {
      const r = run(story(a, b));
      expect([r.verdict, r.invariant, r.at?.line, r.victim]).toEqual(['violation', 'Isolation', 10, { id: 'B', pages: [1] }]);
      const p = projectViolation(r);
      expect(p === undefined ? undefined : { pages: p.pages, requests: p.requests, limit: p.result.model?.prefillLimit, verdict: p.result.verdict, invariant: p.result.invariant }).toEqual({
        pages: [0, 1, 2],
        requests: ['A', 'B'],
        // A's 2 pages stay under P's limit and B's 3 over it.
        limit: 2,
        verdict: 'violation',
        invariant: 'Isolation',
      });
    }
  });

  it('gives nothing for a log that conforms, or a violation that is not Isolation', () => {
    const fits = story({ length: 2 }, { length: 2 }).map((e) => (e['id'] === 'B' && e['kind'] === 'allocate' ? { ...e, pages: [0, 1] } : e.kind === 'decode' && e['id'] === 'B' ? { ...e, pages: [0, 1] } : e));
    const r = run(fits);
    expect(r.verdict).not.toBe('violation');
    expect(projectViolation(r)).toBeUndefined();
  });
});
