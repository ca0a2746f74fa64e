/**
 * The reference model (scale/reference.ts) is anchored to the spec: on random small
 * configurations, every fault set and every variant, it enables exactly what the spec
 * enables and stands for the spec's state after every step. Only then does comparing the
 * pool with it at scale mean comparing the pool with the spec.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTION_KINDS, OBSERVED_ONLY_KINDS, actionLabel, afterRefusal, allActions, compile, incidentConfig, initial, step, type Action } from '../../spec/index.ts';
import { configArbitrary, MAX_RANDOM_REQUESTS, refinementDiff, sameState } from '../../impl/index.ts';
import { REFERENCE_LIFE_FAULTS, REFERENCE_VARIANTS, ReferencePool } from '../../scale/reference.ts';
import type { Config } from '../../spec/config.ts';
import { applyToReference, referenceFor, referenceToSpec } from '../../scale/to-spec.ts';

/** The kinds drawn by name: every kind but those no search takes (a failed attempt and a commit-time abort, taken only where a harness or a log observed one). */
const NAMED = ACTION_KINDS.filter((k) => !(OBSERVED_ONLY_KINDS as readonly string[]).includes(k));

/** A choice: a named action (enabled or not), or the k-th enabled one. */
const choice = fc.oneof(
  fc.record({ kind: fc.constantFrom(...NAMED), r: fc.nat({ max: MAX_RANDOM_REQUESTS - 1 }) }),
  fc.nat({ max: 63 }),
);

/**
 * Runs `runs` random configurations from `configs` with random interleavings on the spec
 * and the reference side by side; throws on the first difference in enabledness or
 * state. Returns the steps taken (enabled actions).
 */
function anchor(configs: fc.Arbitrary<Config>, runs: number, seed: number): number {
  let steps = 0;
  const property = fc.property(configs, fc.array(choice, { maxLength: 40, size: 'max' }), (config, choices) => {
    const m = compile(config);
    const ref = new ReferencePool(referenceFor(m));
    let s = initial(m);
    // spec/run.ts's `enabled`, with the model's actions listed once per configuration: listing them (allActions) twice a choice was two thirds of this file's CPU.
    const actions = allActions(m);
    for (const c of choices) {
      const enabled = typeof c === 'number' ? actions.filter((x) => step(m, s, x) !== undefined) : [];
      const a: Action | undefined = typeof c === 'number' ? enabled[c % Math.max(1, enabled.length)] : c.r < m.n ? c : undefined;
      if (a === undefined) continue;
      const before = { underflows: ref.underflows, negativeEvictions: ref.negativeEvictions };
      const next = step(m, s, a);
      const accepted = applyToReference(m, ref, a);
      if (accepted !== (next !== undefined)) throw new Error(`${actionLabel(m, a)}: reference ${accepted ? 'accepted' : 'refused'} it`);
      // A refused allocate merges sglang's release list in the reference as in SGLang: the spec's failed attempt.
      const left = next === undefined ? afterRefusal(m, s, a) : undefined;
      if (left !== undefined) {
        if (!sameState(referenceToSpec(m, ref), left.state)) throw new Error(`after ${actionLabel(m, left.action)}: the reference did not merge`);
        s = left.state;
      }
      if (next === undefined) continue;
      steps++;
      kinds.set(a.kind, (kinds.get(a.kind) ?? 0) + 1);
      underflows += ref.underflows - before.underflows;
      negativeEvictions += ref.negativeEvictions - before.negativeEvictions;
      const mine = referenceToSpec(m, ref);
      if (!sameState(mine, next)) throw new Error(`after ${actionLabel(m, a)}:\n  ${refinementDiff(m, next, mine).join('\n  ')}`);
      s = next;
    }
  });
  const details = fc.check(property, { numRuns: runs, seed });
  expect(details.errorInstance instanceof Error ? `${details.errorInstance.message}\n${JSON.stringify(details.counterexample)}` : details.errorInstance).toBeNull();
  return steps;
}

/** How often the anchoring runs took each action kind. */
const kinds = new Map<string, number>();

/** Unlocks that took a node's lock_ref below 0, and evictions of a node below 0, over the anchoring runs. */
let underflows = 0;
let negativeEvictions = 0;

/** Random configurations with a request's life on D: 2 or 3 decode steps, growth and retraction drawn, retraction's faults among the faults drawn. */
function lifeConfigs(): fc.Arbitrary<Config> {
  return fc
    .constantFrom(...REFERENCE_VARIANTS)
    .chain((v) => configArbitrary(v, undefined, ['sorted', 'sglang', 'lifo'], false, false, [1, 4], [2, 3], {}))
    .map((c): Config => {
      // The spec does not model retraction under lifo with a fault that lists a page twice (spec/config-checks.ts): retraction off there.
      const twice = c.allocator === 'lifo' && c.faults.includes('double-free');
      if (c.retraction !== true || !twice) return c;
      const { retraction: _off, ...rest } = c;
      return { ...rest, faults: rest.faults.filter((f) => !REFERENCE_LIFE_FAULTS.includes(f)) };
    });
}

/** Runs of the life configurations. */
const LIFE_RUNS = 2_000;

/**
 * Random configurations with the evicting prefix cache: eviction on, and where a request has
 * a prefix the radix tree drawn (one-page prefixes: the reference refuses `prefixPages`);
 * half of them with a request's life on D, so that retraction's unlock and a resume's
 * eviction come up.
 */
function treeConfigs(): fc.Arbitrary<Config> {
  const configs = fc.oneof(
    fc.constantFrom(...REFERENCE_VARIANTS).chain((v) => configArbitrary(v, undefined, ['sorted', 'sglang', 'lifo'], true)),
    lifeConfigs(),
  );
  return fc.record({ config: configs, radix: fc.boolean() }).map(({ config, radix }): Config => {
    const tree = radix && config.requests.some((q) => q.prefix !== undefined);
    return { ...config, eviction: true, ...(tree ? { radix: true } : {}) };
  });
}

/** Runs of the tree configurations. */
const TREE_RUNS = 1_000;

describe('the reference model refines the spec on small configurations', () => {
  it('10,000 random configurations (buggy, length-fix, owner-check; every fault set and order) and interleavings: same enabledness, same state', () => {
    const configs = fc.constantFrom(...REFERENCE_VARIANTS).chain((v) => configArbitrary(v, undefined, ['sorted', 'sglang', 'lifo']));
    const steps = anchor(configs, 10_000, 11);
    // 71,679 before issue 14's merge: landData and landTag joined ACTION_KINDS, which shifts the
    // named choices drawn (never enabled here: both sides refuse them); without them it is 71,679 still.
    // 71,371 before token slots: auto-truncate joined the faults drawn (P prefills an over-long
    // prompt cut to the limit) and only configurations with sglang draw a page size.
    // 72,424 before issue 23's grow joined ACTION_KINDS: the same shift of the named choices (grow is never enabled here, no tableGrowth).
    // 72,257 before issue 25: a refused allocate under sglang now merges the release list (the spec's
    // allocFail, in the reference too), so later allocations take other pages and the runs go other ways.
    // 71,992 before issue 24's actions (abortSource, landRoom, landPayload) joined ACTION_KINDS: the same shift of the named choices.
    // 71,760 before issue 24's items 3 to 5 (landDraft, loadBack, evictHost joined ACTION_KINDS): the same shift of the named choices; without them it is 71,760 still (checked).
    expect(steps).toBe(71_579);
  }, 60_000);

  // Drawn apart from the 10,000 above (its own seed and configurations), so that their pinned count stays.
  it('2,000 random configurations with decode steps, table growth and retraction: same enabledness, same state', () => {
    kinds.clear();
    const steps = anchor(lifeConfigs(), LIFE_RUNS, 23);
    const taken = Object.fromEntries(['grow', 'decode', 'retract', 'offload', 'resume'].map((k) => [k, kinds.get(k) ?? 0]));
    expect(taken).toEqual({ grow: 204, decode: 2_099, retract: 1_031, offload: 257, resume: 638 });
    // Pinned at issue 23's reference (decodeSteps, tableGrowth, retraction). A grow that merges no release list under sglang's shortage fails here (checked).
    expect(steps).toBe(14_720);
  }, 60_000);

  // Drawn apart (its own seed), so that the pins above stay.
  it('1,000 random configurations with eviction and the radix tree: same enabledness, same state', () => {
    kinds.clear();
    const steps = anchor(treeConfigs(), TREE_RUNS, 29);
    const taken = Object.fromEntries(['evict', 'insert', 'handoff', 'retract', 'resume'].map((k) => [k, kinds.get(k) ?? 0]));
    // Pinned at the reference's tree (issue 23, item 5). A reference whose dec_lock_ref stops at 0 fails here (checked).
    expect({ ...taken, underflows, negativeEvictions, steps }).toEqual({ evict: 59, insert: 69, handoff: 885, retract: 227, resume: 137, underflows: 45, negativeEvictions: 17, steps: 7_443 });
  }, 60_000);

  it('reproduces the incident: B reads A\'s page', () => {
    const m = compile(incidentConfig('buggy'));
    const ref = new ReferencePool(referenceFor(m));
    for (const l of ['allocate', 'prefill', 'handoff', 'decode', 'free'] as const) expect(applyToReference(m, ref, { kind: l, r: 0 })).toBe(true);
    for (const l of ['allocate', 'stub', 'handoff', 'decode'] as const) expect(applyToReference(m, ref, { kind: l, r: 1 })).toBe(true);
    const b = ref.slots[1];
    expect(b?.reads).toEqual([2, 1, 0]);
    expect(b && ref.foreignReads(b)).toBe(1);
  });
});
