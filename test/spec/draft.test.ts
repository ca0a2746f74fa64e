/**
 * A draft model's KV (config `draft`, spec/draft.ts) and fault `draft-stale` (on a prefix
 * hit in P's cache the draft part of the write skips the prefix's pages: SGLang PR #19897).
 * Pinned here: the fault is inert without the switch, the switch alone leaks nothing, each
 * variant's shortest counterexample, why the owner check passes it, `hardened`'s verdict
 * (alone and with every fault of issue 24) and the removal test of `draft-fills-hit`.
 */
import { readFileSync } from 'node:fs';
import { Either } from 'effect';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, allActions, compile, configFrom, dataOf, decodeConfig, draftOf, Integrity, Isolation, prefixLabel, tagOf, type Config, type Fault, type Model, type Trace, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { configWarnings } from '../../cli/warnings.ts';
import { runLabels } from './helpers.ts';

const READS = [Isolation, Integrity];
const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const withoutFill = (m: Model): Model => ({ ...m, mechanism: { ...m.mechanism, 'draft-fills-hit': false } });

/** The smallest configuration: 3 pages, prefill limit 3, A of 1 page, B of 2 with prefix sys (its page 0 a prefix position), the draft modelled. */
const smallest = (variant: Variant, faults: readonly Fault[] = ['draft-stale'], draft = true): Config => ({
  ...configFrom({ pages: 3, prefillLimit: 3, requests: [{ length: 1 }, { length: 2, prefix: 'sys' }], variant, faults: [...faults] }),
  ...(draft ? { draft } : {}),
});

/** Every fault of issue 24 with the hardened variant: 4 pages, prefill limit 2, A of 2 with prefix sys, B of 3 (over-long: silently stubbed). */
const wire = (sourcePages: boolean): Config => ({
  ...configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 3 }], variant: 'hardened', faults: ['silent-stub', 'early-free', 'stale-free', 'torn-write', 'premature-success', 'aux-torn', 'draft-stale', ...(sourcePages ? (['source-early-free'] as const) : [])] }),
  draft: true,
  ...(sourcePages ? { sourcePages } : {}),
});

const INTEGRITY = ['allocate(B)', 'prefill(B)', 'landDraft(B)', 'handoff(B)', 'decode(B)'];
const ISOLATION = ['allocate(A)', 'prefill(A)', 'landDraft(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'landDraft(B)', 'handoff(B)', 'decode(B)'];

describe('the switch and the fault alone', () => {
  it('without --draft the fault has no action and changes no count (100 states, depth 11), and the warning names the switch', () => {
    const m = compile(smallest('buggy', ['draft-stale'], false));
    expect(allActions(m).some((a) => a.kind === 'landDraft')).toBe(false);
    const on = check(checkedModel(m));
    const off = check(checkedModel(compile(smallest('buggy', [], false))));
    expect([on.verdict, on.distinctStates, on.depth]).toEqual(['holds', 100, 11]);
    expect([off.distinctStates, off.depth]).toEqual([100, 11]);
    expect(configWarnings(m)).toEqual(["fault draft-stale cannot fire in this configuration: no draft model's KV is modelled here (--draft is off); a verdict says nothing about it"]);
    const plain = compile({ ...smallest('buggy'), requests: [{ name: 'A', length: 1 }, { name: 'B', length: 2 }] });
    expect(configWarnings(plain)).toEqual(['fault draft-stale cannot fire in this configuration: no request has a prompt prefix (LEN:PREFIX in --requests): the draft part has no prefix position to skip; a verdict says nothing about it']);
    expect(configWarnings(compile(smallest('buggy')))).toEqual([]);
  });

  it('--draft with no fault leaks nothing: the draft part lands apart, D commits after it, decode reads both (buggy holds, 131 states, depth 13)', () => {
    const r = check(checkedModel(compile(smallest('buggy', []))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 131, 13]);
    expect(r.witnesses.find((w) => w.name === 'DraftLanded')).toMatchObject({ applies: true, reached: true });
  });

  it('the token write writes the draft too: hardened holds with two decode steps and table growth (248 states, depth 17)', () => {
    const r = check(checkedModel(compile({ ...smallest('hardened'), pages: 4, decodeSteps: 2, tableGrowth: true })), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 248, 17]);
  });

  it('a config file\'s draft that is not a boolean is bad input (exit 2 from the CLI), named', () => {
    const r = decodeConfig({ pages: 3, prefillLimit: 3, requests: [{ length: 1 }], draft: 'yes' });
    expect(Either.isLeft(r) ? r.left.issues.map((i) => `${i.path}: ${i.message}`) : []).toEqual(['draft: expected true or false, got "yes"']);
  });

  it('is refused with retraction (exit 2 from the CLI): the saved copy is the target\'s only', () => {
    const r = decodeConfig({ ...smallest('buggy'), retraction: true });
    expect(Either.isLeft(r) ? r.left.issues.map((i) => `${i.path}: ${i.message}`) : []).toEqual([
      "draft: draft with retraction is not modelled: the saved copy and its load hold the target's KV only, and a resumed request would read its new pages' old draft KV; check draft without retraction",
    ]);
  });
});

describe('fault draft-stale: shortest counterexamples', () => {
  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s: Integrity in 5 actions (31 states), B reading a prefix page whose draft was never written', (variant) => {
    const m = compile(smallest(variant));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 31, 5]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(INTEGRITY);
  });

  it.each(['buggy', 'length-fix', 'owner-check'] as const)('%s: Isolation in 11 actions (111 states), B reading A\'s draft KV in the page A freed', (variant) => {
    const m = compile(smallest(variant));
    const r = check(checkedModel(m), { invariants: [Isolation] });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 111, 11]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(ISOLATION);
  });

  it('owner-check: the page\'s tag and target KV are the prefix\'s, only its draft is A\'s, so decode\'s check passes', () => {
    const { m, last } = runLabels(smallest('owner-check'), ISOLATION);
    const sys = prefixLabel(m, 0, 0);
    expect([dataOf(m, last, 0), tagOf(m, last, 0), draftOf(m, last, 0)]).toEqual([sys, sys, 1]);
    expect([Isolation.holds(m, last), Integrity.holds(m, last)]).toEqual([false, false]);
  });

  it('a hit in D\'s own cache shares pages whose draft the inserting request\'s write skipped too: B hits A\'s inserted prefix page and reads its unwritten draft', () => {
    const config: Config = { ...smallest('owner-check'), requests: [{ name: 'A', length: 2, prefix: 'sys' }, { name: 'B', length: 2, prefix: 'sys' }] };
    const { m, last } = runLabels(config, ['allocate(A)', 'prefill(A)', 'landDraft(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'allocate(B)', 'prefill(B)', 'landDraft(B)', 'handoff(B)', 'decode(B)']);
    expect([dataOf(m, last, 0), draftOf(m, last, 0)]).toEqual([prefixLabel(m, 0, 0), 0]);
    expect(Integrity.breach?.(m, last)?.requests).toEqual([0, 1]);
  });
});

describe('hardened: draft-fills-hit', () => {
  it('holds on the smallest configuration (131 states, depth 13: the space of --draft with no fault), DraftPrefixHit reached; without draft-fills-hit it leaks as owner-check does', () => {
    const m = compile(smallest('hardened'));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 131, 13]);
    expect(r.witnesses.filter((w) => w.name.startsWith('Draft'))).toEqual([
      { name: 'DraftLanded', applies: true, reached: true, trivial: false },
      { name: 'DraftPrefixHit', applies: true, reached: true, trivial: false },
    ]);
    const bare = check(checkedModel(withoutFill(m)), { invariants: READS });
    expect([bare.verdict, bare.distinctStates, labels(m, bare.violations[0]!.trace)]).toEqual(['violation', 31, INTEGRITY]);
    const leak = check(checkedModel(withoutFill(m)), { invariants: [Isolation] });
    expect(labels(m, leak.violations[0]!.trace)).toEqual(ISOLATION);
  });

  it.each([
    [false, 5574, 25],
    [true, 13882, 25],
  ] as const)('holds Isolation and Integrity with every fault of issue 24 (--source-pages %s): %i states, depth %i, every witness that applies reached; without draft-fills-hit it breaks in 11', (sourcePages, states, depth) => {
    const m = compile(wire(sourcePages));
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', states, depth]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
    const bare = check(checkedModel(withoutFill(m)), { invariants: READS });
    expect([bare.verdict, bare.violations[0]?.invariant, bare.violations[0]?.depth]).toEqual(['violation', 'Integrity', 11]);
  });
});

describe('docs/WIRE.md', () => {
  it('quotes the traces pinned here', () => {
    const doc = readFileSync(new URL('../../docs/WIRE.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(doc).toContain(`\`${INTEGRITY.join(' ')}\``);
    expect(doc).toContain(`\`${ISOLATION.join(' ')}\``);
    for (const figure of ['(31 states)', '(111 states)', '131 states, depth 13', '5,574 states (depth 25)', '13,882 (depth 25)', 'breaks in 11 actions']) expect(doc).toContain(figure);
  });
});
