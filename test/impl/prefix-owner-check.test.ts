/**
 * The owner check over a prefix of more than one page, in the fast tier: page `j` of the
 * prefix is valid at table position `j` (impl/pool.ts `ownerCheckPasses`). The exhaustive
 * refinement over 2-page prefixes (prefix-pages.test.ts) is in the heavy tier, so
 * npm run mutation's seed-27 sample found the count of prefix positions
 * (`prefixLengths[g] ?? 1` made `&& 1`, which checks one) caught by no fast test of impl/.
 */
import { describe, expect, it } from 'vitest';
import { noEvents, PagePool, prefixLabelOf, runMbt, type PoolOptions } from '../../impl/index.ts';
import type { Config } from '../../spec/index.ts';

/** Two requests of 3 pages sharing the 2-page prefix `p`: the second reads both prefix pages from the cache. */
const CONFIG: Config = { pages: 6, prefillLimit: 6, requests: [{ name: 'A', length: 3, prefix: 'p' }, { name: 'B', length: 3, prefix: 'p' }], prefixPages: { p: 2 }, variant: 'owner-check', faults: [] };

/** The owner check that takes every prefix for one page long: position 1 of a 2-page prefix must then hold the reader's own tag. */
class OnePrefixPage extends PagePool {
  protected override ownerCheckPasses(s: number): boolean {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const base = s * this.options.maxLength;
    const end = base + (this.lengths[s] ?? 0);
    const k = g >= 0 ? 1 : 0;
    const first = g >= 0 ? (this.prefixBase[g] ?? 0) : 0;
    for (let j = 0; j < k; j++) {
      const t = this.tag[this.tables[base + j] ?? 0];
      if (t !== serial && t !== prefixLabelOf(first + j)) return false;
    }
    for (let i = base + k; i < end; i++) if (this.tag[this.tables[i] ?? 0] !== serial) return false;
    return true;
  }
}

describe('the owner check over a 2-page prefix', () => {
  it('the pool refines the spec: prefix hits decode; 300 runs, seed 1', () => {
    const events = noEvents();
    const r = runMbt({ config: CONFIG, runs: 300, seed: 1, events });
    expect(r.failure?.message).toBeUndefined();
    expect(r.verdict).toBe('pass');
    expect(events['prefix-hit']).toBeGreaterThan(0);
    expect(events.decoded).toBeGreaterThan(0);
  });

  it('an owner check that counts one prefix page fails a hit that the spec decodes', () => {
    const r = runMbt({ config: CONFIG, runs: 300, seed: 1, makePool: (o: PoolOptions) => new OnePrefixPage(o) });
    expect(r.verdict).toBe('fail');
    expect(r.failure?.property).toBe('Refinement');
  });
});
