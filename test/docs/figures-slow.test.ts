/**
 * The slow figures (`slow: true` in figures/): the README's table of designs and the whole
 * matrix in docs/VARIANTS.md (each runs the matrix's searches), the removal table, and the
 * large live-naive table. test/docs/readme.test.ts renders every other figure in the fast
 * tier; these are rendered here, in the heavy tier (vitest.config.ts), and compared with
 * their marked blocks the same way. `npx tsx figures/write-figures.ts` rewrites them.
 */
import { describe, expect, it } from 'vitest';
import { ALL_FIGURES, differences } from '../../figures/write-figures.ts';

describe('the slow generated figures', () => {
  it('match what the code prints', async () => {
    const slow = ALL_FIGURES.filter((f) => f.slow === true);
    expect(slow.map((f) => f.name).sort()).toEqual(['designs', 'live-naive-large', 'matrix-full', 'removals']);
    const stale = await differences(slow);
    expect(stale.map((d) => ({ figure: `${d.figure.file}: ${d.figure.name}`, found: d.found, expected: d.expected }))).toEqual([]);
  }, 300_000);
});
