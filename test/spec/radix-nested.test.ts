/**
 * Prefixes that extend one another in the radix tree (spec/nesting.ts; SGLang's
 * `match_prefix` walks as far as the keys match, `insert` splits where they diverge):
 * `sys/doc` shares the nodes of `sys` as its first pages and has nodes of its own past
 * them. Pinned here: the state counts of small nested configurations under owner-check
 * and hardened, the tree's moves on hand-written runs (a partial match on the parent's
 * node, the child's node hung under it, the child's leaf evicted before the parent's
 * node, a `sys/doc` release cancelling a `sys` request's lock), fault `lock-underflow`'s
 * shortest counterexamples across the nesting, the configuration's refusals, and the
 * partial-order reduction and footprints on nested states.
 */
import { describe, expect, it } from 'vitest';
import { check, type CheckResult } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, allActions, compile, configFrom, depthOf, ExclusiveHold, holderOf, Integrity, INVARIANTS, Isolation, nodeLockOf, prefixLabel, step, tableOf, WITNESSES, type Action, type Config, type Fault, type Model, type Variant } from '../../spec/index.ts';
import { agreement } from '../binding/por-agreement.ts';
import { bytesOf, explore, localGuardProblems, undeclaredPropertyReads, undeclaredReads, undeclaredWrites } from './footprint-check.ts';
import { pagecheck } from '../support/cli.ts';
import { radix, runLabels } from './helpers.ts';

const READS = [Isolation, Integrity];

/** A radix configuration with prefix lengths in `prefixPages` (helpers.ts's `radix`). */
const nested = (variant: Variant, faults: readonly Fault[], pages: number, requests: readonly string[], prefixPages: Record<string, number>, prefillLimit = 3): Config =>
  radix(variant, faults, pages, requests, { prefixPages, prefillLimit });

/** A (`sys`, 1 page), B (`sys/doc`, 2 pages: `sys`'s node, then its own), C (no prefix, `c` pages, the one that evicts), on 4 pages. */
const CHILD = (variant: Variant, faults: readonly Fault[] = [], c = 2): Config => nested(variant, faults, 4, ['2:sys', '3:sys/doc', `${c}`], { 'sys/doc': 2 });
/** Two siblings, `sys/doc` and `sys/faq`, that share `sys`'s node (a group no request names) and diverge past it. */
const SIBLINGS = (variant: Variant): Config => nested(variant, [], 4, ['3:sys/doc', '3:sys/faq', '2'], { 'sys/doc': 2, 'sys/faq': 2 });
/** A chain of three: `sys` (1 page), `sys/doc` (2), `sys/doc/faq` (3), on 5 pages. */
const CHAIN = (variant: Variant): Config => nested(variant, [], 5, ['2:sys', '3:sys/doc', '4:sys/doc/faq'], { 'sys/doc': 2, 'sys/doc/faq': 3 }, 4);

const SERVE = (r: string): string[] => [`allocate(${r})`, `prefill(${r})`, `handoff(${r})`, `decode(${r})`];
const unreached = (r: CheckResult<Action>): string[] => r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name);
const firstTrace = (m: Model, r: CheckResult<Action>): [string, number, string[]][] =>
  r.violations.map((v) => [v.invariant, v.depth, v.trace.steps.map((s) => actionLabel(m, s.action))]);

describe('nested prefixes: small configurations without faults', () => {
  it.each([
    ['4 pages, A 2:sys, B 3:sys/doc (2 pages), C 2', 329, 16, ['LockNegative'], CHILD],
    ['4 pages, siblings A 3:sys/doc, B 3:sys/faq (2 pages each), C 2', 98, 16, ['LockNegative'], SIBLINGS],
    ['5 pages, a chain A 2:sys, B 3:sys/doc, C 4:sys/doc/faq (1, 2, 3 pages), limit 4', 635, 15, ['CacheEvicts', 'LockNegative'], CHAIN],
  ] as const)('%s: owner-check and hardened hold, %i states, depth %i; unreached only %j', (_, states, depth, missing, config) => {
    for (const variant of ['owner-check', 'hardened'] as const) {
      const r = check(checkedModel(compile(config(variant))), { invariants: READS });
      expect([variant, r.verdict, r.distinctStates, r.depth]).toEqual([variant, 'holds', states, depth]);
      expect(unreached(r)).toEqual(missing);
    }
  });
});

describe('nested prefixes, step by step', () => {
  it("a sys/doc request hits sys's node only: it shares page 0, allocates past it, and its handoff hangs its own node under sys's", () => {
    const { m, trace } = runLabels(CHILD('buggy'), [...SERVE('A').slice(0, 3), 'allocate(B)', 'prefill(B)', 'handoff(B)']);
    const matched = trace.steps[3]!.state;
    expect([tableOf(m, matched, 1), depthOf(m, matched, 1), nodeLockOf(m, matched, 0)]).toEqual([[0, 2, 3], 1, 2]);
    const inserted = trace.steps[5]!.state;
    // sys/doc's page 0 is sys's label: one node, one label, read by both.
    expect(prefixLabel(m, 1, 0)).toBe(prefixLabel(m, 0, 0));
    expect([holderOf(m, inserted, 0), holderOf(m, inserted, 2), nodeLockOf(m, inserted, 0), nodeLockOf(m, inserted, 2), depthOf(m, inserted, 1)]).toEqual([prefixLabel(m, 0, 0), prefixLabel(m, 1, 1), 2, 1, 2]);
  });

  it("eviction takes doc's leaf (page 2) before sys's node (page 0, the lower page, but a parent while doc is cached)", () => {
    const served = [...SERVE('A').slice(0, 3), 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(A)', 'free(A)', 'decode(B)', 'free(B)'];
    // C of 4 pages: both nodes must go.
    const { m, last } = runLabels(CHILD('buggy', [], 4), [...served, 'evict(C)']);
    expect([holderOf(m, last, 0), holderOf(m, last, 2)]).toEqual([prefixLabel(m, 0, 0), 0]);
    const parent = runLabels(CHILD('buggy', [], 4), [...served, 'evict(C)', 'evict(C)']);
    expect([holderOf(parent.m, parent.last, 0), holderOf(parent.m, parent.last, 2)]).toEqual([0, 0]);
  });

  it("with lock-underflow, B's (sys/doc) release walks sys's node twice and cancels A's (sys) lock: C evicts doc, then the node A still reads", () => {
    const labels = [...SERVE('A').slice(0, 3), ...SERVE('B'), 'free(B)'];
    // C of 3 pages: with B's own page freed, one free page; doc's goes, then sys's.
    const { m, last } = runLabels(CHILD('buggy', ['lock-underflow'], 3), labels);
    expect([nodeLockOf(m, last, 0), nodeLockOf(m, last, 2)]).toEqual([0, -1]);
    const evicted = runLabels(CHILD('buggy', ['lock-underflow'], 3), [...labels, 'evict(C)', 'evict(C)']);
    expect([tableOf(evicted.m, evicted.last, 0), holderOf(evicted.m, evicted.last, 0)]).toEqual([[0, 1], 0]);
    expect(ExclusiveHold.holds(evicted.m, evicted.last)).toBe(false);
    // Without the fault B's release leaves A's lock: sys's node is no leaf to evict once doc is gone.
    const once = runLabels(CHILD('buggy', [], 3), [...labels, 'evict(C)']);
    expect([nodeLockOf(once.m, once.last, 0), holderOf(once.m, once.last, 0)]).toEqual([1, prefixLabel(once.m, 0, 0)]);
  });
});

describe('fault lock-underflow across the nesting (4 pages, A 2:sys, B 3:sys/doc, C 2)', () => {
  // A's double unlock takes B's lock on sys's node while B has matched only that node: the node is a leaf, and C evicts it.
  const EVICTED = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'decode(A)', 'free(A)', 'evict(C)'];
  const LEAK = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'decode(A)', 'free(A)', 'evict(C)', 'allocate(C)', 'prefill(C)', 'handoff(B)', 'decode(B)'];

  it("buggy: C's eviction frees sys's node, which B (sys/doc) matched (ExclusiveHold, NoUseAfterFree; 7 actions, 72 states)", () => {
    const m = compile(CHILD('buggy', ['lock-underflow']));
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates]).toEqual(['violation', 72]);
    expect(firstTrace(m, r)).toEqual([['ExclusiveHold', 7, EVICTED], ['NoUseAfterFree', 7, EVICTED]]);
  });

  it("buggy: and B reads C's data at sys's position (Isolation, Integrity; 12 actions, 248 states)", () => {
    const m = compile(CHILD('buggy', ['lock-underflow']));
    const r = check(checkedModel(m), { invariants: READS });
    expect(r.distinctStates).toBe(248);
    expect(firstTrace(m, r)).toEqual([['Isolation', 12, LEAK], ['Integrity', 12, LEAK]]);
  });

  it('hardened holds with it (329 states, depth 16); without unlock-once the 7-action eviction comes back', () => {
    const m = compile(CHILD('hardened', ['lock-underflow']));
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 329, 16]);
    const bare: Model = { ...m, mechanism: { ...m.mechanism, 'unlock-once': false } };
    expect(firstTrace(bare, check(checkedModel(bare)))).toEqual([['ExclusiveHold', 7, EVICTED], ['NoUseAfterFree', 7, EVICTED]]);
  });
});

describe('nested prefixes: the configuration', () => {
  it('refuses a nested prefix without radix, and one not longer than the prefix it extends', () => {
    expect(() => configFrom({ pages: 4, prefillLimit: 3, requests: [{ length: 2, prefix: 'sys' }, { length: 3, prefix: 'sys/doc' }], prefixPages: { 'sys/doc': 2 }, eviction: true })).toThrow(/prefix "sys\/doc" extends prefix "sys": .* needs radix/);
    expect(() => nested('buggy', [], 4, ['3:sys', '3:sys/doc'], { sys: 2, 'sys/doc': 2 })).toThrow(/prefix "sys\/doc" of 2 pages extends prefix "sys" of 2 pages: a prefix must be longer/);
    expect(() => nested('buggy', [], 4, ['3:sys/doc'], { sys: 3, 'sys/doc': 2 })).toThrow(/extends prefix "sys" of 3 pages/);
  });

  it('the command line refuses them with exit 2 and one line naming the flag', async () => {
    const base = ['check', '--pages', '4', '--prefill-limit', '3', '--eviction'];
    const bare = await pagecheck(...base, '--requests', '2:sys,3:sys/doc', '--prefix-pages', 'sys/doc=2');
    expect([bare.code, bare.out, bare.err]).toEqual([2, '', 'pagecheck: invalid model configuration: --requests[1].prefix: prefix "sys/doc" extends prefix "sys": a prefix that extends another shares the other\'s nodes in the radix tree, and needs radix (--radix --eviction)\n']);
    const short = await pagecheck(...base, '--radix', '--requests', '3:sys,3:sys/doc', '--prefix-pages', 'sys=2');
    expect([short.code, short.err]).toEqual([2, 'pagecheck: invalid model configuration: --prefix-pages: prefix "sys/doc" of 1 page extends prefix "sys" of 2 pages: a prefix must be longer than the prefix it extends (e.g. --prefix-pages sys/doc=3)\n']);
    const slash = await pagecheck(...base, '--radix', '--requests', '2:sys/');
    expect([slash.code, slash.err]).toEqual([2, 'pagecheck: invalid model configuration: --requests[0].prefix: expected a prefix name of letters, digits and _ starting with a letter, or names joined by / (sys/doc extends sys), got "sys/"\n']);
  });

  it('gives a nested prefix labels only past its parent: 2 requests + sys (1) + sys/doc (1 of its own)', () => {
    const m = compile(CHILD('buggy'));
    expect([m.groupNames, m.labels, [...m.prefixParent], [...m.prefixFrom]]).toEqual([['sys', 'sys/doc'], 3 + 2, [-1, 0], [0, 1]]);
  });
});

describe('nested prefixes: partial-order reduction and footprints', () => {
  it.each([
    ['owner-check, lock-underflow, whole space', CHILD('owner-check', ['lock-underflow']), { continueAfterViolation: true }],
    ['hardened, lock-underflow', CHILD('hardened', ['lock-underflow']), {}],
    ['siblings, owner-check', SIBLINGS('owner-check'), {}],
  ] as const)('%s: the reduced search agrees with the plain one', (_, config, options) => {
    expect(agreement(config, options).difference).toBeUndefined();
  });

  it('every action on the nested states writes and reads only what its footprint declares', () => {
    const problems: string[] = [];
    let enabled = 0;
    for (const config of [CHILD('owner-check', ['lock-underflow']), SIBLINGS('buggy')]) {
      const m = compile(config);
      const map = bytesOf(m);
      const states = explore(m, 600);
      for (let k = 0; k < states.length; k++) {
        const s = states[k]!;
        const other = states[(k * 7 + 3) % states.length]!;
        for (const a of allActions(m)) {
          problems.push(...undeclaredReads(m, map, s, other, a), ...localGuardProblems(m, map, s, other, a));
          const t = step(m, s, a);
          if (t === undefined) continue;
          enabled++;
          problems.push(...undeclaredWrites(m, map, s, a, t), ...undeclaredPropertyReads(m, map, [...INVARIANTS, ...WITNESSES], s, a, t));
        }
      }
    }
    expect(problems.slice(0, 5)).toEqual([]);
    // Pinned: the actions enabled on the states explored, so that a change in what the search reaches shows.
    expect(enabled).toBe(741);
  });
});
