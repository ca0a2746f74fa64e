import { Either } from 'effect';
import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { AREAS, candidateLines, HEAVY_ONLY, mutateOf, parseOptions, sampleOf } from '../../bench/mutation/options.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// npm run mutation's arguments and sample, without running Stryker: the printed seed must replay the same lines.
describe('npm run mutation: arguments and the sample', () => {
  it('defaults: every area, 4 lines, seed 27; flags override; bad values name the flag and the value', () => {
    expect(parseOptions([])).toEqual(Either.right({ areas: AREAS, sample: 4, seed: 27, boundSeconds: 1800, concurrency: 2 }));
    expect(parseOptions(['--area', 'impl,spec', '--sample', '9', '--seed', '5'])).toMatchObject(Either.right({ areas: ['spec', 'impl'], sample: 9, seed: 5 }));
    expect(parseOptions(['--area', 'encoding'])).toEqual(Either.left('--area: expected spec, binding, checker, impl, conformance (comma-separated), got "encoding"'));
    expect(parseOptions(['--sample', '0'])).toEqual(Either.left('--sample: expected an integer from 1 to 10000, got "0"'));
    expect(parseOptions(['--seed', 'x'])).toEqual(Either.left('--seed: expected an integer from 0 to 2147483647, got "x"'));
    expect(Either.isLeft(parseOptions(['--frob']))).toBe(true);
  });

  it('the same seed gives the same sample; another seed another; areas draw apart', () => {
    for (const area of AREAS) {
      const first = mutateOf(ROOT, area, 4, 27);
      expect(first).toHaveLength(4);
      expect(mutateOf(ROOT, area, 4, 27)).toEqual(first);
      expect(mutateOf(ROOT, area, 4, 28)).not.toEqual(first);
      for (const m of first) expect(m).toMatch(new RegExp(`^${area}/[\\w/-]+\\.ts:(\\d+)-\\1$`));
    }
    const from = Array.from({ length: 100 }, (_, i) => `f.ts:${i + 1}`);
    expect(sampleOf(from, 5, 27, 'spec')).toEqual(sampleOf(from, 5, 27, 'spec'));
    expect(sampleOf(from, 5, 27, 'spec')).not.toEqual(sampleOf(from, 5, 27, 'impl'));
    expect(new Set(sampleOf(from, 100, 1, 'spec')).size).toBe(100);
    expect(sampleOf(from, 500, 1, 'spec')).toHaveLength(100);
  });

  it('candidates are code lines, never comments, imports or blank lines, and never the heavy-only files', () => {
    const lines = candidateLines(ROOT, 'checker');
    expect(lines.some((l) => Object.keys(HEAVY_ONLY).some((f) => l.startsWith(`${f}:`)))).toBe(false);
    expect(lines.length).toBeGreaterThan(500);
  });
});
