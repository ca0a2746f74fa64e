/**
 * `por: true` against `por: false` (issue 26, item 1): on the configurations the other
 * tests pin, named with the file that pins them, and on 20 seeded random small ones
 * (200 in por-agreement-heavy.test.ts). Each agrees on the verdict, every violation and
 * its shortest trace, and every witness; the reduction's own state counts are pinned
 * where it reduces, so that a change in what it keeps shows.
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, compile, configFrom, incidentConfig, VARIANTS, type Config } from '../../spec/index.ts';
import type { CheckOptions } from '../../checker/index.ts';
import { MINIMAL_LEAK } from '../spec/helpers.ts';
import { smallConfigs } from '../support/small-configs.ts';
import { agreement } from './por-agreement.ts';

const requests = (lengths: readonly number[]) => lengths.map((length) => ({ length }));

/** Pinned configurations, each with the options it is pinned with and the file that pins it. */
const PINNED: readonly (readonly [string, Config, CheckOptions])[] = [
  ...VARIANTS.map((v) => [`check.test.ts: incident ${v}`, incidentConfig(v), {}] as const),
  ['check.test.ts: incident buggy, whole space', incidentConfig('buggy'), { continueAfterViolation: true }],
  ['check.test.ts: prefixes, stale-free, prefix-poison', configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2, prefix: 's' }, { length: 2, prefix: 's' }, { length: 3 }], faults: ['silent-stub', 'stale-free', 'prefix-poison'] }), { continueAfterViolation: true }],
  ['check.test.ts: 7 pages 1,2,2,3,3 length-fix, raw', configFrom({ pages: 7, prefillLimit: 3, requests: requests([1, 2, 2, 3, 3]), variant: 'length-fix' }), { symmetry: false, continueAfterViolation: true }],
  ['accelerator.test.ts: two faults', configFrom({ pages: 4, prefillLimit: 1, requests: requests([2, 2, 2]), faults: ['early-free', 'stale-free'] }), { continueAfterViolation: true }],
  ['accelerator.test.ts: fingerprint-first family', configFrom({ pages: 5, prefillLimit: 3, requests: requests([1, 2, 2, 3]), variant: 'length-fix' }), { symmetry: false }],
  ['storage.test.ts: 6 pages 2,3,2,3,2, stops at the leak', configFrom({ pages: 6, prefillLimit: 2, requests: requests([2, 3, 2, 3, 2]) }), { symmetry: false }],
  ['storage.test.ts: the deadlock, whole space', configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2 }] }), { continueAfterViolation: true }],
  ['storage.test.ts: 4 pages 1,2,2,1 owner-check', configFrom({ pages: 4, prefillLimit: 1, requests: requests([1, 2, 2, 1]), variant: 'owner-check' }), {}],
  ['eviction.test.ts: lock-underflow', configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }, { length: 2 }], variant: 'owner-check', faults: ['lock-underflow'], eviction: true }), { continueAfterViolation: true }],
  ['growth.test.ts: slots, growth', configFrom({ pages: 4, pageSize: 2, prefillLimit: 4, requests: [{ length: 4 }, { length: 3 }], decodeSteps: 3, tableGrowth: true }), { continueAfterViolation: true }],
  ['hardened.test.ts: torn writes, early free', configFrom({ pages: 2, prefillLimit: 2, requests: requests([1, 1]), variant: 'owner-check', faults: ['early-free', 'torn-write'] }), { continueAfterViolation: true }],
  ['prefix-pages.test.ts: allocator any, two-page prefix', configFrom({ pages: 4, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }, { length: 3, prefix: 'sys' }], variant: 'hardened', faults: ['early-free'], allocator: 'any', prefixPages: { sys: 2 } }), { continueAfterViolation: true }],
  ['slots.test.ts: auto-truncate', configFrom({ pages: 3, pageSize: 2, prefillLimit: 3, requests: [{ length: 3 }, { length: 4 }], variant: 'owner-check', faults: ['auto-truncate'], decodeSteps: 2 }), { continueAfterViolation: true }],
  ['allocators.test.ts: sglang, lifo', configFrom({ pages: 4, prefillLimit: 2, requests: requests([2, 3, 1]), allocator: 'sglang', faults: ['silent-stub', 'double-free'] }), { continueAfterViolation: true }],
  // A stale second release under hardened frees only pages its request still holds: its old table does not keep another's pages from being that one's alone.
  ['hardened: stale and double releases', configFrom({ pages: 5, prefillLimit: 2, requests: requests([1, 2, 2, 3]), variant: 'hardened', faults: ['silent-stub', 'stale-free', 'double-free'] }), { symmetry: false, continueAfterViolation: true }],
  ['buggy: stale and double releases', configFrom({ pages: 5, prefillLimit: 2, requests: requests([1, 2, 2, 3]), variant: 'buggy', faults: ['silent-stub', 'stale-free', 'double-free'] }), { symmetry: false, continueAfterViolation: true }],
  ['source-pages.test.ts: owner-check, P aborts a write in flight', { ...configFrom({ pages: 3, prefillLimit: 3, requests: requests([2, 1]), variant: 'owner-check', faults: ['torn-write', 'source-early-free', 'early-free'] }), sourcePages: true }, { continueAfterViolation: true }],
  ['source-pages.test.ts: hardened, P aborts a write in flight', { ...configFrom({ pages: 3, prefillLimit: 3, requests: requests([2, 1]), variant: 'hardened', faults: ['torn-write', 'source-early-free', 'early-free'] }), sourcePages: true }, { continueAfterViolation: true }],
  ['radix.test.ts: lock-underflow on the tree, owner-check', configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }, { length: 2 }], variant: 'owner-check', faults: ['lock-underflow'], eviction: true, radix: true }), { continueAfterViolation: true }],
  // radix.test.ts's hardened every-fault configuration (132,191 states both ways, no reduction; docs/POR.md) is left to the CLI measurement: its two searches cost 5 CPU seconds here.
  ['radix.test.ts: hardened, lock-underflow, stale and torn writes', configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'sys' }, { length: 2 }], variant: 'hardened', faults: ['lock-underflow', 'stale-free', 'torn-write', 'early-free'], eviction: true, radix: true }), {}],
  ['draft.test.ts: owner-check, the stale draft', { ...configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }], variant: 'owner-check', faults: ['draft-stale'] }), draft: true }, { continueAfterViolation: true }],
  ['draft.test.ts: hardened, every fault of issue 24', { ...configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 3 }], variant: 'hardened', faults: ['silent-stub', 'early-free', 'stale-free', 'torn-write', 'premature-success', 'aux-torn', 'draft-stale'] }), draft: true }, {}],
  ['retraction (no reduction offered)', configFrom({ pages: 3, prefillLimit: 2, requests: requests([1, 2]), variant: 'owner-check', retraction: true, faults: ['offload-after-free'] }), { continueAfterViolation: true }],
];

describe('partial-order reduction agrees with the plain search', () => {
  it('on the pinned configurations, and reduces where it can', () => {
    const reduced: Record<string, [number, number]> = {};
    for (const [name, config, options] of PINNED) {
      const a = agreement(config, options);
      expect(a.difference, name).toBeUndefined();
      if (a.reduced < a.plain) reduced[name] = [a.plain, a.reduced];
    }
    // Pinned: plain states, then the reduced search's (for one that stops at a violation, up to it).
    expect(reduced).toEqual({
      'accelerator.test.ts: fingerprint-first family': [6554, 2155],
      'allocators.test.ts: sglang, lifo': [1050, 726],
      'check.test.ts: 7 pages 1,2,2,3,3 length-fix, raw': [175194, 26610],
      'check.test.ts: prefixes, stale-free, prefix-poison': [1880, 1778],
      'eviction.test.ts: lock-underflow': [221, 219],
      'hardened: stale and double releases': [32159, 12563],
      'buggy: stale and double releases': [254771, 184717],
      'growth.test.ts: slots, growth': [73, 71],
      'hardened.test.ts: torn writes, early free': [302, 300],
      'storage.test.ts: 4 pages 1,2,2,1 owner-check': [2070, 652],
      'storage.test.ts: 6 pages 2,3,2,3,2, stops at the leak': [1488, 709],
      'source-pages.test.ts: hardened, P aborts a write in flight': [1512, 1504],
      'source-pages.test.ts: owner-check, P aborts a write in flight': [4742, 4686],
      'draft.test.ts: owner-check, the stale draft': [131, 115],
    });
  }, 120_000);


  it("the incident's 9-action leak is the plain search's, found again after the reduced search met it", () => {
    const m = compile(incidentConfig('buggy'));
    const r = check(checkedModel(m), { por: true });
    expect(r.violations[0]!.trace.steps.map((s) => actionLabel(m, s.action))).toEqual([...MINIMAL_LEAK]);
    expect(r.reduction).toEqual({ states: 18, depth: 9, violations: [{ invariant: 'Isolation', depth: 9 }], plainStates: 18 });
  });

  it('a plain search cut by the state budget keeps the reduced trace and counts the states it stored (so a budgeted caller sees the budget reached)', () => {
    const m = compile(configFrom({ pages: 7, prefillLimit: 2, requests: requests([2, 3, 2, 3, 2, 1]), variant: 'buggy' }));
    const cut = check(checkedModel(m), { symmetry: false, por: true, maxStates: 5000 });
    expect([cut.verdict, cut.distinctStates, cut.violations.map((v) => `${v.invariant}@${v.depth}`), cut.reduction]).toEqual(['violation', 5000, ['Isolation@9'], { states: 4422, depth: 9, violations: [{ invariant: 'Isolation', depth: 9 }], plainStates: 5000 }]);
    expect(check(checkedModel(m), { symmetry: false, por: true }).distinctStates).toBe(11758);
  });

  it('on 20 seeded random small configurations, stopping at the first violation and going on', () => {
    let plain = 0;
    let reduced = 0;
    for (const config of smallConfigs(2603, 20)) {
      for (const options of [{ maxStates: 100_000 }, { symmetry: false, continueAfterViolation: true, maxStates: 100_000 }]) {
        const a = agreement(config, options);
        expect(a.difference).toBeUndefined();
        plain += a.plain;
        reduced += a.reduced;
      }
    }
    expect([plain, reduced]).toEqual([15178, 11508]);
  }, 120_000);
});
