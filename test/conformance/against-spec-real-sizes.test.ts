/**
 * The validator against the spec at real sizes (issue 27, item 1): runs of the spec on the
 * configurations of test/support/real-sizes.ts (9 to 16 pages, requests longer than 8
 * pages, 9 or more requests, every allocator, prefixes, the faults), written as logs
 * (spec-log.ts). A log of a spec run is never a deviation and is a violation exactly at the
 * line where the run breaks an invariant; the same log with one request's arrival made a
 * page longer (its allocation no longer names the pages the spec takes) is a deviation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../../spec/index.ts';
import { validate } from '../../conformance/index.ts';
import { configOf, countConfig, drawnConfig, sizeStats } from '../support/real-sizes.ts';
import { asSource, firstViolation, logOf, runOf } from './spec-log.ts';

/** A configuration at real sizes and a run of up to 120 picks of the enabled actions. */
const runs = fc.tuple(drawnConfig.map(configOf), fc.array(fc.nat({ max: 63 }), { minLength: 20, maxLength: 120 }));

describe('validate-log on logs of spec runs at real sizes', () => {
  it('seed 27, 150 runs: never a deviation, a violation exactly where the run breaks an invariant; a lengthened arrival is a deviation', () => {
    const stats = sizeStats();
    const verdicts: Record<string, number> = {};
    const mutated: Record<string, number> = {};
    fc.assert(
      fc.property(runs, ([config, picks]) => {
        countConfig(config, stats);
        const m = compile(config);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = logOf(m, config, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 16 });
        verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
        const k = firstViolation(m, states);
        const early = config.faults.includes('early-free');
        if (k === 0) expect(r.verdict).toBe(early ? r.verdict : 'conforms');
        else if (early) expect(r.at?.line ?? 0).toBeLessThanOrEqual(lineOf[k - 1] ?? 0);
        else expect([r.verdict, r.at?.line]).toEqual(['violation', lineOf[k - 1]]);
        expect(r.verdict).not.toBe('deviation');
        // The first arrival of a request that fits one page more: its allocation now names too few pages.
        const at = lines.findIndex((l) => {
          const e = JSON.parse(l) as { kind: string; length?: number };
          return e.kind === 'arrive' && (e.length ?? config.pages) < config.pages;
        });
        if (at < 0 || actions.length === 0) return;
        const e = JSON.parse(lines[at]!) as { length: number };
        const bad = lines.map((l, i) => (i === at ? JSON.stringify({ ...e, length: e.length + 1 }) : l));
        const v = validate({ files: [], lines: asSource(bad), overrides: {}, window: 16 });
        mutated[v.verdict] = (mutated[v.verdict] ?? 0) + 1;
        expect(v.verdict).toBe('deviation');
      }),
      { seed: 27, numRuns: 150, endOnFailure: true },
    );
    process.stdout.write(`validate-log at real sizes (seed 27): ${JSON.stringify({ stats, verdicts, mutated })}\n`);
    expect(stats).toEqual({
      configs: 150,
      pages: { 9: 26, 10: 23, 11: 21, 12: 14, 13: 15, 14: 19, 15: 11, 16: 21 },
      requestCounts: { 1: 26, 2: 48, 3: 29, 4: 3, 5: 2, 6: 1, 7: 1, 8: 4, 9: 14, 10: 13, 11: 9 },
      longestRequest: { 1: 21, 3: 1, 4: 3, 6: 3, 7: 2, 8: 2, 9: 29, 10: 33, 11: 14, 12: 14, 13: 5, 14: 7, 15: 7, 16: 9 },
      allocators: { sorted: 102, any: 21, sglang: 17, lifo: 10 },
      variants: { 'length-fix': 57, hardened: 14, buggy: 67, 'owner-check': 12 },
      withPrefix: 16,
    });
    expect(verdicts).toEqual({ conforms: 138, violation: 12 });
    expect(mutated).toEqual({ deviation: 131 });
  });
});
