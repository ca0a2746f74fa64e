/**
 * The prefix cache as a radix tree (config `radix`, spec/radix.ts; SGLang's `RadixCache`:
 * `match_prefix`, `insert`, `cache_unfinished_req` at the handoff, `cache_finished_req`,
 * `inc_lock_ref` / `dec_lock_ref` with no floor, `evict` of unlocked leaves). Pinned here:
 * the state counts of small radix configurations, the tree's moves on hand-written runs
 * (a partial match, a duplicate at the handoff's insert, a parent evicted after its child),
 * fault `lock-underflow`'s shortest counterexamples per variant, witness `LockNegative`,
 * `hardened`'s verdict and the removal test of its `unlock-once`.
 */
import { describe, expect, it } from 'vitest';
import { check, type CheckResult } from '../../checker/index.ts';
import { actionLabel, compile, type Action, depthOf, FAULTS, holderOf, Integrity, Isolation, nodeLockOf, prefixLabel, tableOf, type Config, type Model, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { radix, runLabels } from './helpers.ts';

const READS = [Isolation, Integrity];


const SERVE = (r: string): string[] => [`allocate(${r})`, `prefill(${r})`, `handoff(${r})`, `decode(${r})`];
const unreached = (r: CheckResult<Action>): string[] => r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name);
const firstTrace = (m: Model, r: CheckResult<Action>): [string, number, string[]][] =>
  r.violations.map((v) => [v.invariant, v.depth, v.trace.steps.map((s) => actionLabel(m, s.action))]);

describe('the radix tree: small configurations without faults', () => {
  it.each([
    ['2 pages, A 2:sys, B 2:sys, C 1', radix('buggy', [], 2, ['2:sys', '2:sys', '1']), 37, 15, ['CacheEvicts', 'LockNegative']],
    ['3 pages, sys of 2 pages, A 3:sys, B 3:sys, C 2', radix('buggy', [], 3, ['3:sys', '3:sys', '2'], { prefixPages: { sys: 2 } }), 54, 17, ['LockNegative']],
    ['4 pages, owner-check, two prefixes, A 3:sys (2 pages), B 3:sys, C 2:doc', radix('owner-check', [], 4, ['3:sys', '3:sys', '2:doc'], { prefixPages: { sys: 2 } }), 77, 16, ['LockNegative']],
  ] as const)('%s: holds, %i states, depth %i; unreached only %j', (_, config, states, depth, missing) => {
    const r = check(checkedModel(compile(config)));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', states, depth]);
    expect(unreached(r)).toEqual(missing);
  });

  it('is off by default: the first configuration without --radix keeps its count (71 states, depth 16), and --radix without --eviction is refused', () => {
    const r = check(checkedModel(compile(radix('buggy', [], 2, ['2:sys', '2:sys', '1'], { radix: false }))));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 71, 16]);
    expect(() => radix('buggy', [], 2, ['2:sys', '1'], { eviction: false })).toThrow(/radix is the evicting prefix cache as a tree: it needs eviction/);
  });
});

describe('the tree, step by step', () => {
  it('the handoff inserts the prefix (cache_unfinished_req) and locks the path; the release unlocks it, and the node stays cached at lock_ref 0', () => {
    const { m, trace } = runLabels(radix('buggy', [], 3, ['3:sys', '1'], { prefixPages: { sys: 2 } }), [...SERVE('A'), 'free(A)']);
    const handedOff = trace.steps[2]!.state;
    expect([0, 1].map((p) => [holderOf(m, handedOff, p), nodeLockOf(m, handedOff, p)])).toEqual([[prefixLabel(m, 0, 0), 1], [prefixLabel(m, 0, 1), 1]]);
    expect(depthOf(m, handedOff, 0)).toBe(2);
    const freed = trace.steps[4]!.state;
    expect([0, 1, 2].map((p) => [holderOf(m, freed, p), nodeLockOf(m, freed, p)])).toEqual([[prefixLabel(m, 0, 0), 0], [prefixLabel(m, 0, 1), 0], [0, 0]]);
  });

  it('eviction takes the leaf first, then its parent once it is a leaf; a partial match shares what is left and allocates only the pages past it', () => {
    const labels = [...SERVE('A'), 'free(A)', 'evict(C)'];
    const { m, last } = runLabels(radix('buggy', [], 3, ['3:sys', '3:sys', '3'], { prefixPages: { sys: 2 } }), labels);
    // sys[1] (page 1) went; sys[0] (page 0) is now a leaf.
    expect([holderOf(m, last, 0), holderOf(m, last, 1)]).toEqual([prefixLabel(m, 0, 0), 0]);
    const partial = runLabels(radix('buggy', [], 3, ['3:sys', '3:sys', '3'], { prefixPages: { sys: 2 } }), [...labels, 'allocate(B)']);
    expect([tableOf(partial.m, partial.last, 1), depthOf(partial.m, partial.last, 1), nodeLockOf(partial.m, partial.last, 0)]).toEqual([[0, 1, 2], 1, 1]);
    const parent = runLabels(radix('buggy', [], 3, ['3:sys', '3:sys', '3'], { prefixPages: { sys: 2 } }), [...labels, 'evict(C)', 'allocate(C)']);
    expect(tableOf(parent.m, parent.last, 2)).toEqual([0, 1, 2]);
  });

  it('a node inserted since the match replaces the request\'s own page at the handoff (a duplicate, freed), and the node is locked by both', () => {
    const { m, last } = runLabels(radix('buggy', [], 4, ['2:sys', '2:sys']), ['allocate(A)', 'allocate(B)', 'prefill(A)', 'prefill(B)', 'handoff(A)', 'handoff(B)']);
    expect([tableOf(m, last, 0), tableOf(m, last, 1)]).toEqual([[0, 1], [0, 3]]);
    expect([holderOf(m, last, 0), nodeLockOf(m, last, 0), holderOf(m, last, 2)]).toEqual([prefixLabel(m, 0, 0), 2, 0]);
  });
});

describe('fault lock-underflow under the radix tree: a release unlocks its path twice', () => {
  // 3 pages: A and B share the sys node (lock_ref 2); A's release takes both locks, and C's allocation evicts the node B reads.
  const LU = (variant: Variant): Config => radix(variant, ['lock-underflow'], 3, ['2:sys', '2:sys', '2']);
  const EVICTED = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'decode(A)', 'free(A)', 'evict(C)'];

  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s: C\'s eviction frees the node B still reads (ExclusiveHold, NoUseAfterFree; 7 actions, 24 states)', (variant) => {
    const m = compile(LU(variant));
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates]).toEqual(['violation', 24]);
    expect(firstTrace(m, r)).toEqual([['ExclusiveHold', 7, EVICTED], ['NoUseAfterFree', 7, EVICTED]]);
  });

  it.each(['buggy', 'length-fix'] as const)('%s: and A reads C\'s data at its prefix position (Isolation, Integrity; 12 actions)', (variant) => {
    const m = compile(LU(variant));
    const r = check(checkedModel(m), { invariants: READS });
    const leak = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'free(B)', 'evict(C)', 'allocate(C)', 'prefill(C)', 'decode(A)'];
    expect(firstTrace(m, r)).toEqual([['Isolation', 12, leak], ['Integrity', 12, leak]]);
  });

  it('owner-check turns that read into a loud failure: Isolation and Integrity hold (230 states, depth 16), every witness reached, LockNegative among them', () => {
    const r = check(checkedModel(compile(LU('owner-check'))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 230, 16]);
    expect(unreached(r)).toEqual([]);
    expect(r.witnesses.find((w) => w.name === 'LockNegative')?.reached).toBe(true);
  });

  it('hardened holds (72 states, depth 15); without unlock-once the same 7-action eviction comes back', () => {
    const m = compile(LU('hardened'));
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 72, 15]);
    const bare: Model = { ...m, mechanism: { ...m.mechanism, 'unlock-once': false } };
    const b = check(checkedModel(bare));
    expect(firstTrace(bare, b)).toEqual([['ExclusiveHold', 7, EVICTED], ['NoUseAfterFree', 7, EVICTED]]);
  });

  it('hardened holds Isolation and Integrity with every fault but retraction\'s and auto-truncate (132,191 states, depth 40; 38,697 and 34 before premature-success and aux-torn joined the catalogue)', () => {
    const faults = FAULTS.filter((f) => f !== 'auto-truncate' && f !== 'offload-after-free' && f !== 'resume-stale');
    const r = check(checkedModel(compile(radix('hardened', faults, 3, ['2:sys', '2:sys', '3']))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 132191, 40]);
    // No over-long prompt here (nothing to poison), and unlock-once keeps every lock_ref at 0 or above.
    expect(unreached(r)).toEqual(['PoisonedInsert', 'EvictedWhileRead', 'LockNegative']);
  });
});
