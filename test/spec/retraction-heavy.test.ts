/**
 * `hardened` with every fault, retraction, table growth and eviction: the configuration of
 * test/spec/retraction.test.ts's acceptance grown to 4 pages, where every witness of a
 * request's life is reached. About 3.2 million states: heavy tier (vitest.config.ts).
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { compile, configFrom, FAULTS, Integrity, Isolation } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';

const READS = [Isolation, Integrity];

describe('hardened with every fault, retraction, growth and eviction', () => {
  // Issue 24's premature-success is refused with retraction (spec/config-checks.ts), and aux-torn's metadata slot, which retraction does not touch, would triple this space.
  const faults = FAULTS.filter((f) => f !== 'auto-truncate' && f !== 'premature-success' && f !== 'aux-torn');
  const acceptance = compile(
    configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'hardened', faults, decodeSteps: 2, retraction: true, tableGrowth: true, eviction: true }),
  );

  it('holds Isolation and Integrity on 4 pages (3,156,575 states, depth 52): TableGrew, Retracted, Resumed, CopyInFlight, SegmentOverlap reached', { timeout: 240_000 }, () => {
    const r = check(checkedModel(acceptance), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 3156575, 52]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
    const reached = new Set(r.witnesses.filter((w) => w.reached).map((w) => w.name));
    for (const w of ['TableGrew', 'Retracted', 'Resumed', 'CopyInFlight', 'SegmentOverlap']) expect(reached.has(w), w).toBe(true);
  });
});
