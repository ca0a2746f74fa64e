/**
 * What crosses the wire besides D's pages (issue 24): fault `premature-success` (P's
 * Success before every part of its write has landed at D) and fault `aux-torn` (the
 * metadata slot's room landing apart from its payload). Pinned here: each fault's shortest
 * counterexample under every variant, `hardened`'s verdict, and the removal test of the
 * mechanism that stops it. docs/WIRE.md tells the same traces in words.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, Integrity, Isolation, VARIANTS, type Fault, type Mechanism, type Model, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { mutatedByStep } from './helpers.ts';

const READS = [Isolation, Integrity];
const without = (m: Model, off: Mechanism): Model => ({ ...m, mechanism: { ...m.mechanism, [off]: false } });

/** Two requests of one page each on two pages, prefill limit 2: the smallest pool where a page is reused. */
const twoOfOne = (variant: Variant, faults: readonly Fault[]): Model =>
  compile(configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant, faults: [...faults] }));

/** The first violation of `invariant` alone: [states, depth, trace length, trace], or the verdict `holds` with states and depth. */
function firstOf(m: Model, invariant: 'Isolation' | 'Integrity'): [string, number, number, string[]] {
  const r = check(checkedModel(m), { invariants: invariant === 'Isolation' ? [Isolation] : [Integrity] });
  const v = r.violations[0];
  return [r.verdict, r.distinctStates, r.depth, v === undefined ? [] : v.trace.steps.map((s) => actionLabel(m, s.action))];
}

/** `premature-success` acts on a write that lands part by part: `torn-write` with it. */
const EARLY: readonly Fault[] = ['torn-write', 'premature-success'];

/** Buggy's and length-fix's leak: A committed with its content in flight, released, and the content lands in B's page after B's own early commit. */
export const EARLY_LEAK = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'landData(A)', 'decode(B)'];
/** Owner-check's leak: the same, with B's tag landing over A's late content. */
export const EARLY_TAGGED_LEAK = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'landData(A)', 'landTag(B)', 'decode(B)'];

describe('fault premature-success (with torn-write), two requests of one page on two pages', () => {
  it.each([
    ['buggy', 155, 10, EARLY_LEAK],
    ['length-fix', 155, 10, EARLY_LEAK],
    ['owner-check', 584, 11, EARLY_TAGGED_LEAK],
  ] as const)('%s leaks: %i states, in %i actions', (variant, states, length, trace) => {
    const got = firstOf(twoOfOne(variant, EARLY), 'Isolation');
    expect(got).toEqual(['violation', states, length, trace]);
  });

  it('the garbage comes first: buggy decodes A over a page nothing landed in (4 actions); owner-check over its own tag, landed before its content (5)', () => {
    expect(firstOf(twoOfOne('buggy', EARLY), 'Integrity')).toEqual(['violation', 14, 4, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)']]);
    expect(firstOf(twoOfOne('owner-check', EARLY), 'Integrity')).toEqual(['violation', 39, 5, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'landTag(A)', 'decode(A)']]);
  });

  it('hardened holds both (81 states, depth 14): commit-counts-landed commits only after the last part', () => {
    const r = check(checkedModel(twoOfOne('hardened', EARLY)), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 81, 14]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  it('without commit-counts-landed, hardened leaks as owner-check does: its other mechanisms and the tag do not see an early commit', () => {
    const bare = without(twoOfOne('hardened', EARLY), 'commit-counts-landed');
    expect(firstOf(bare, 'Isolation')).toEqual(['violation', 584, 11, EARLY_TAGGED_LEAK]);
    expect(firstOf(bare, 'Integrity')[3]).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'landTag(A)', 'decode(A)']);
    const r = check(checkedModel(bare), { invariants: READS });
    expect(r.witnesses.find((w) => w.name === 'EarlyCommit')).toMatchObject({ applies: true, reached: true });
  });

  it('without torn-write, premature-success cannot fire: a write lands whole, and the verdicts are those of no fault', () => {
    for (const variant of ['buggy', 'owner-check'] as const) {
      const alone = check(checkedModel(twoOfOne(variant, ['premature-success'])), { invariants: READS });
      const none = check(checkedModel(twoOfOne(variant, [])), { invariants: READS });
      expect([alone.verdict, alone.distinctStates]).toEqual([none.verdict, none.distinctStates]);
      expect(alone.witnesses.find((w) => w.name === 'EarlyCommit')?.applies).toBe(false);
    }
  });
});

/** Buggy's leak under aux-torn (the same under every variant but hardened): B's room lands over A's token, and D commits A's token as B's. */
export const AUX_LEAK = ['allocate(A)', 'prefill(A)', 'landRoom(A)', 'landPayload(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'landRoom(B)', 'handoff(B)'];

describe('fault aux-torn, two requests of one page on two pages (one metadata slot)', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s leaks in 9 actions (46 states): the owner check covers pages, not the slot', (variant) => {
    expect(firstOf(twoOfOne(variant, ['aux-torn']), 'Isolation')).toEqual(['violation', 46, 9, AUX_LEAK]);
    expect(firstOf(twoOfOne(variant, ['aux-torn']), 'Integrity')).toEqual(['violation', 6, 4, ['allocate(A)', 'prefill(A)', 'landRoom(A)', 'handoff(A)']]);
  });

  it('hardened holds both (36 states, depth 14): room-lands-last, the room fenced behind the payload', () => {
    const r = check(checkedModel(twoOfOne('hardened', ['aux-torn'])), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 36, 14]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  it('without room-lands-last, hardened leaks the same 9 actions: none of its page mechanisms sees the slot', () => {
    const bare = without(twoOfOne('hardened', ['aux-torn']), 'room-lands-last');
    expect(firstOf(bare, 'Isolation')).toEqual(['violation', 46, 9, AUX_LEAK]);
    expect(check(checkedModel(bare), { invariants: READS }).witnesses.find((w) => w.name === 'RoomBeforePayload')).toMatchObject({ applies: true, reached: true });
  });

  it('hardened holds with both wire faults and the first catalogue on, every applicable witness reached', () => {
    const m = compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant: 'hardened', faults: ['silent-stub', 'early-free', 'stale-free', 'torn-write', 'premature-success', 'aux-torn'] }));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 1536, 22]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });
});

describe('the wire faults\' transitions', () => {
  it('step never mutates the state it is given, with premature-success, aux-torn and every fault of the first catalogue, under every variant (3 pages, A of 2 and B of 3 with a prefix)', () => {
    let checked = 0;
    let mutated = 0;
    for (const variant of VARIANTS) {
      const r = mutatedByStep(compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 3, prefix: 'sys' }], variant, faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'torn-write', 'premature-success', 'aux-torn'] })));
      checked += r.checked;
      mutated += r.mutated;
    }
    expect(mutated).toBe(0);
    expect(checked).toBe(29596);
  });
});

describe('docs/WIRE.md', () => {
  it('quotes every pinned trace', () => {
    const text = readFileSync(new URL('../../docs/WIRE.md', import.meta.url), 'utf8');
    for (const trace of [EARLY_LEAK, EARLY_TAGGED_LEAK, AUX_LEAK]) expect(text).toContain(trace.join(' '));
  });
});
