/**
 * D's state slots and metadata rows (config `stateSlots`, spec/state-slots.ts) and faults
 * `state-slot-reuse` (the commit frees the request's state slot while it still decodes) and
 * `metadata-collision` (the metadata index allocator hands a held row to a second request).
 * Pinned here: the switch's own states, each variant's shortest counterexample, `hardened`'s
 * verdict with each fault and with every fault, the removal test of each mechanism, the
 * warnings, and the bad input.
 */
import { readFileSync } from 'node:fs';
import { Either } from 'effect';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, decodeConfig, Integrity, Isolation, poolOf, type Config, type Fault, type Mechanism, type Model, type Trace, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { configWarnings } from '../../cli/warnings.ts';
import { runLabels } from './helpers.ts';

const READS = [Isolation, Integrity];
const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const without = (m: Model, k: Mechanism): Model => ({ ...m, mechanism: { ...m.mechanism, [k]: false } });

/** The smallest configuration: 2 pages, prefill limit 2, requests A and B of 1 page each, the slots modelled. */
const smallest = (variant: Variant, faults: readonly Fault[], stateSlots = true): Config => ({
  ...configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant, faults: [...faults] }),
  ...(stateSlots ? { stateSlots } : {}),
});

describe('the switch alone', () => {
  it.each(['buggy', 'length-fix', 'owner-check', 'hardened'] as const)('%s: holds with the slots and rows (51 states, depth 10); each request reads its own state and first token', (variant) => {
    const r = check(checkedModel(compile(smallest(variant, []))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 51, 10]);
    expect(r.witnesses.find((w) => w.name === 'DecodeSucceeds')).toMatchObject({ applies: true, reached: true });
  });

  it('without the switch the same configuration has its old count (36 states): the slots are state of their own', () => {
    const r = check(checkedModel(compile(smallest('buggy', [], false))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 36, 10]);
  });

  it("allocation takes the lowest free slot and row; the commit frees the row, the request's end the slot", () => {
    const { m, trace } = runLabels(smallest('buggy', []), ['allocate(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'free(B)']);
    const at = (k: number) => trace.steps[k - 1]!.state;
    expect([poolOf(m, at(2), 'stateIdx', 0), poolOf(m, at(2), 'stateIdx', 1), poolOf(m, at(2), 'metaIdx', 1)]).toEqual([1, 2, 2]);
    expect([poolOf(m, at(4), 'metaHolder', 1), poolOf(m, at(4), 'stateHolder', 1), poolOf(m, at(4), 'metaOf', 1)]).toEqual([0, 2, 2]);
    expect([poolOf(m, at(6), 'stateHolder', 1), poolOf(m, at(6), 'stateOf', 1), poolOf(m, at(6), 'stateIdx', 1)]).toEqual([0, 2, 0]);
  });
});

describe('shortest counterexamples', () => {
  const REUSE = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'decode(A)'];
  const COLLIDE = ['allocate(A)', 'allocate(B)', 'prefill(A)', 'prefill(B)', 'handoff(A)'];

  it.each([
    ['buggy', 'state-slot-reuse', 26, REUSE],
    ['length-fix', 'state-slot-reuse', 26, REUSE],
    ['owner-check', 'state-slot-reuse', 26, REUSE],
    ['buggy', 'metadata-collision', 13, COLLIDE],
    ['length-fix', 'metadata-collision', 13, COLLIDE],
    ['owner-check', 'metadata-collision', 13, COLLIDE],
  ] as const)('%s with %s: Isolation and Integrity break (%i states); the owner check sees page tags only', (variant, fault, states, trace) => {
    const m = compile(smallest(variant, [fault]));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', states, trace.length]);
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', trace.length], ['Integrity', trace.length]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(trace);
  });

  it('docs/WIRE.md quotes both traces', () => {
    const text = readFileSync(new URL('../../docs/WIRE.md', import.meta.url), 'utf8');
    for (const trace of [REUSE, COLLIDE]) expect(text).toContain(trace.join(' '));
  });

  it("state-slot-reuse: A decodes from the slot B's transfer wrote; the slot's content and holder are B's", () => {
    const { m, last } = runLabels(smallest('owner-check', ['state-slot-reuse']), ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'decode(A)']);
    expect([poolOf(m, last, 'stateIdx', 0), poolOf(m, last, 'stateIdx', 1), poolOf(m, last, 'stateOf', 0), poolOf(m, last, 'stateHolder', 0)]).toEqual([1, 1, 2, 2]);
    expect([Isolation.holds(m, last), Integrity.holds(m, last)]).toEqual([false, false]);
  });
});

describe('hardened', () => {
  it('holds with both faults on the smallest configuration (51 states, depth 10: the faults change nothing there)', () => {
    const r = check(checkedModel(compile(smallest('hardened', ['state-slot-reuse', 'metadata-collision']))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 51, 10]);
  });

  it.each([
    ['slot-freed-with-request', 'StateSlotReused', ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'decode(A)']],
    ['metadata-alloc-checks-holder', 'MetadataShared', ['allocate(A)', 'allocate(B)', 'prefill(A)', 'prefill(B)', 'handoff(A)']],
  ] as const)('without %s it leaks again (%s reached), the same trace as owner-check', (k, witness, trace) => {
    const m = without(compile(smallest('hardened', ['state-slot-reuse', 'metadata-collision'])), k);
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.violations[0]?.invariant, r.violations[0]?.depth]).toEqual(['violation', 'Isolation', trace.length]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(trace);
    expect(r.witnesses.find((w) => w.name === witness)).toMatchObject({ applies: true, reached: true });
  });

  const every = (variant: Variant): Model =>
    compile({ ...configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant, faults: ['silent-stub', 'early-free', 'stale-free', 'torn-write', 'state-slot-reuse', 'metadata-collision'] }), stateSlots: true });

  it('holds with silent-stub, early-free, stale-free, torn-write and both faults (3 pages, requests 2,3: 604 states, depth 18), every witness that applies reached', () => {
    const r = check(checkedModel(every('hardened')), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 604, 18]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  it('and the same with partial-order reduction (604 states)', () => {
    const r = check(checkedModel(every('hardened')), { invariants: READS, por: true });
    expect([r.verdict, r.distinctStates]).toEqual(['holds', 604]);
  });
});

describe('warnings and bad input', () => {
  it('a fault without --state-slots, or where no two requests fit together, cannot fire, and the warning says why', () => {
    expect(configWarnings(compile(smallest('owner-check', ['state-slot-reuse'], false)))).toEqual([
      "fault state-slot-reuse cannot fire in this configuration: D's state slots and metadata rows are not modelled here (--state-slots is off); a verdict says nothing about it",
    ]);
    const apart: Config = { ...configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 2 }], variant: 'owner-check', faults: ['metadata-collision'] }), stateSlots: true };
    expect(configWarnings(compile(apart))).toEqual([
      "fault metadata-collision cannot fire in this configuration: no two requests fit D's pages together: a slot is reused, or a row shared, only by a request allocated while another is in flight; a verdict says nothing about it",
    ]);
    expect(configWarnings(compile(smallest('owner-check', ['state-slot-reuse', 'metadata-collision'])))).toEqual([]);
  });

  it('more requests than a one-byte index holds are refused with --state-slots (255: one past the limit)', () => {
    const many = { ...configFrom({ pages: 255, prefillLimit: 2, requests: Array.from({ length: 255 }, () => ({ length: 1 })), variant: 'buggy' }), stateSlots: true };
    const bad = decodeConfig(many);
    expect(Either.isLeft(bad) ? bad.left.issues.map((i) => `${i.path}: ${i.message}`) : []).toEqual(["requests: a request's state slot and metadata row are one byte each: at most 254 requests with stateSlots, got 255"]);
    expect(Either.isRight(decodeConfig({ ...many, stateSlots: false }))).toBe(true);
  });

  it('stateSlots that is not a boolean is refused with its reason', () => {
    const bad = decodeConfig({ ...smallest('buggy', []), stateSlots: 'yes' });
    expect(Either.isLeft(bad) ? bad.left.issues.map((i) => `${i.path}: ${i.message}`) : []).toEqual(['stateSlots: expected true or false, got "yes"']);
  });
});
