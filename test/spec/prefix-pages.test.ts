/**
 * A prompt prefix of more than one page (config `prefixPages`, flag `--prefix-pages`):
 * positions `0 .. k-1` of every request with the prefix, page `j` valid only at position
 * `j`. Figures from `npm run -s pagecheck -- check <flags>` (symmetry on).
 */
import * as Either from 'effect/Either';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, Conservation, configFrom, decodeConfig, ExclusiveHold, FAULTS, holderOf, Integrity, Isolation, labelName, mayReadAt, phaseOf, Ph, prefixLabel, readRecordOf, verdictOf, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runLabels } from './helpers.ts';
import { fastFormOf } from '../../binding/properties.ts';
import { orbitCount, reachable } from '../checker/orbits.ts';

const READS = [Isolation, Integrity];

/** The matrix configuration grown by one page, with a 2-page prefix: 4 pages, prefill limit 3, A (3), B (4, sys), C (3, sys). */
const stubbed = (variant: Variant, faults: readonly Fault[], eviction = false): Config =>
  configFrom({
    pages: 4,
    prefillLimit: 3,
    requests: [{ length: 3 }, { length: 4, prefix: 'sys' }, { length: 3, prefix: 'sys' }],
    variant,
    faults: [...faults],
    prefixPages: { sys: 2 },
    ...(eviction ? { eviction } : {}),
  });

/** The lock-underflow configuration with a 2-page prefix: 4 pages, prefill limit 3, A and B (3, sys), C (3); eviction on. */
const underflow = (variant: Variant, faults: readonly Fault[]): Config =>
  configFrom({
    pages: 4,
    prefillLimit: 3,
    requests: [{ length: 3, prefix: 'sys' }, { length: 3, prefix: 'sys' }, { length: 3 }],
    variant,
    faults: [...faults],
    prefixPages: { sys: 2 },
    eviction: true,
  });


describe('configuration', () => {
  const messages = (input: unknown): string[] => {
    const d = decodeConfig(input);
    return Either.isLeft(d) ? d.left.issues.map((i) => `${i.path}: ${i.message}`) : [];
  };
  const base = { pages: 4, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }] };

  it('a request must be longer than its prefix: SGLang matches at most the prompt less one token', () => {
    expect(messages({ ...base, prefixPages: { sys: 3 } })).toEqual([
      'requests[0].length: a request with a prefix needs at least 4 pages (its prefix "sys" of 3 pages and one of its own), got 3 pages',
    ]);
    expect(messages({ ...base, prefixPages: { sys: 2 } })).toEqual([]);
  });

  it('names the field and the value of a bad length, of a prefix no request has, and of a label budget overrun', () => {
    expect(messages({ ...base, prefixPages: { sys: 0 } })).toEqual(['prefixPages.sys: expected a prefix length in pages: a whole number from 1 to 65535, got 0']);
    expect(messages({ ...base, prefixPages: { doc: 2 } })).toEqual(['prefixPages.doc: no request has prefix "doc"; name a prefix that some request shares']);
    expect(messages({ ...base, prefixPages: [2] })[0]).toMatch(/^prefixPages: expected an object of prefix lengths in pages such as \{"sys": 2\}, got \[2\]/);
    const many = { pages: 16_400, prefillLimit: 3, requests: [{ length: 16_400, prefix: 'sys' }], prefixPages: { sys: 16_382 } };
    expect(messages(many)).toEqual(['prefixPages: the state encoding supports at most 16382 requests and prefix pages together (a read record holds a label in 14 bits), got 16383']);
    // A nested prefix's first pages are its parent's labels: sys/doc (16,381 pages) adds one label past sys's 16,380.
    const nested = (doc: number) => ({ pages: 16_400, prefillLimit: 3, radix: true, eviction: true, requests: [{ length: 16_390, prefix: 'sys' }, { length: 16_390, prefix: 'sys/doc' }], prefixPages: { sys: 16_380, 'sys/doc': doc } });
    expect(messages(nested(16_381))).toEqual(['prefixPages: the state encoding supports at most 16382 requests and prefix pages together (a read record holds a label in 14 bits), got 16383']);
    const half = { pages: 9_600, prefillLimit: 3, radix: true, eviction: true, requests: [{ length: 9_500, prefix: 'sys' }, { length: 9_500, prefix: 'sys/doc' }], prefixPages: { sys: 9_000, 'sys/doc': 9_001 } };
    expect(messages(half)).toEqual([]);
    expect(compile(configFrom(half)).labels).toBe(9_003);
  });

  it('a length of 1 is the default, and is dropped: the same configuration as naming none', () => {
    expect(configFrom({ ...base, prefixPages: { sys: 1 } })).toEqual(configFrom(base));
    expect(configFrom({ ...base, prefixPages: { sys: 2 } }).prefixPages).toEqual({ sys: 2 });
  });
});

describe('labels and positions', () => {
  it('one label per prefix page, after the requests; with one-page prefixes, the first model\'s labels', () => {
    const m = compile(configFrom({ pages: 6, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }, { length: 4, prefix: 'doc' }], prefixPages: { doc: 3 } }));
    expect([prefixLabel(m, 0, 0), prefixLabel(m, 1, 0), prefixLabel(m, 1, 2), m.labels]).toEqual([3, 4, 6, 6]);
    expect([labelName(m, 3), labelName(m, 5)]).toEqual(['prefix sys', 'prefix doc[1]']);
    const one = compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2, prefix: 'doc' }] }));
    expect([prefixLabel(one, 0), prefixLabel(one, 1), one.labels]).toEqual([3, 4, 4]);
  });

  it('page j of the prefix may be read at position j only', () => {
    const m = compile(stubbed('buggy', []));
    const at = (i: number, j: number): boolean => mayReadAt(m, 1, i, prefixLabel(m, 0, j));
    expect([at(0, 0), at(1, 1), at(0, 1), at(1, 0), at(2, 0), at(2, 1)]).toEqual([true, true, false, false, false, false]);
  });
});

describe('the prefix cache with a 2-page prefix', () => {
  it('a hit shares both cached pages in the entry\'s order, and evict frees the whole entry in one action', () => {
    const config = underflow('buggy', []);
    const { m, last } = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'allocate(B)']);
    expect([0, 1, 2].map((i) => holderOf(m, last, i))).toEqual([prefixLabel(m, 0, 0), prefixLabel(m, 0, 1), 1]);
    expect([...last.subarray(m.tableAt[1], m.tableAt[1]! + 3)]).toEqual([0, 1, 3]);
    const freed = runLabels(config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'free(A)', 'evict(C)']);
    expect([0, 1, 2, 3].map((p) => holderOf(freed.m, freed.last, p))).toEqual([0, 0, 0, 0]);
  });

  it('buggy: the stub leak stays the incident\'s 9 actions (43 states), A\'s pages read at B\'s positions 1 and 2', () => {
    const m = compile(stubbed('buggy', ['silent-stub']));
    const r = check(checkedModel(m));
    expect([r.distinctStates, r.violations[0]?.invariant, r.violations[0]?.depth]).toEqual([43, 'Isolation', 9]);
  });

  it('buggy, lock-underflow: B hits without locking, the entry is evicted whole for C and rewritten; B reads C\'s data at both prefix positions (13 actions, 116 states)', () => {
    const m = compile(underflow('buggy', ['lock-underflow']));
    const r = check(checkedModel(m), { invariants: [Isolation] });
    expect([r.distinctStates, r.violations[0]?.depth]).toEqual([116, 13]);
    expect(r.violations[0]!.trace.steps.map((s) => actionLabel(m, s.action))).toEqual([
      'allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'insert(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)',
      'free(A)', 'evict(C)', 'allocate(C)', 'prefill(C)', 'decode(B)',
    ]);
    const pages = Isolation.breach!(m, r.violations[0]!.trace.steps.at(-1)!.state)!.pages.map((p) => p.i);
    expect(pages).toEqual([0, 1]);
  });

  it('hardened, lock-underflow: Isolation and Integrity hold on the whole space (233 states, depth 19)', () => {
    const r = check(checkedModel(compile(underflow('hardened', ['lock-underflow']))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 233, 19]);
  });

  // Every whole-page fault: auto-truncate cuts an over-long prompt instead of stubbing it, so with it no stub (and no poisoned insert) happens.
  it('hardened, the whole catalogue with eviction: Isolation and Integrity hold (252,242 states, depth 42; 82,198 and 36 before the wire faults of issue 24), every witness reached', { timeout: 60_000 }, () => {
    const r = check(checkedModel(compile(stubbed('hardened', FAULTS.filter((f) => f !== 'auto-truncate'), true))), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 252242, 42]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });
});

describe('a misplaced prefix page', () => {
  /** B and A share a 2-page prefix; A times out, B takes A's prefix pages in the other order, and A's late write lands. */
  const SWAP = ['allocate(A: 0 1 2)', 'timeout(A)', 'allocate(B: 1 0 3)', 'prefill(B)', 'prefill(A)', 'handoff(B)', 'decode(B)'];
  const swapped = (variant: Variant): Config =>
    configFrom({ pages: 4, prefillLimit: 3, requests: [{ length: 3, prefix: 'sys' }, { length: 3, prefix: 'sys' }], variant, faults: ['early-free'], allocator: 'any', prefixPages: { sys: 2 } });

  it('buggy: B reads page 1 of its own prefix at position 0 and page 0 at position 1, which breaks Integrity (and Isolation)', () => {
    const { m, last } = runLabels(swapped('buggy'), SWAP);
    const reads = [0, 1, 2].map((i) => [labelName(m, readRecordOf(m, last, 1, i) & 0x3f), verdictOf(m, 1, i, readRecordOf(m, last, 1, i))]);
    expect(reads).toEqual([['prefix sys[1]', 'isolation'], ['prefix sys[0]', 'isolation'], ['B', 'ok']]);
    expect(Integrity.breach!(m, last)!.pages.map((p) => p.i)).toEqual([0, 1]);
  });

  it('owner-check: the tag names the prefix page, so the check rejects it at the wrong position and B fails loudly', () => {
    const { m, last } = runLabels(swapped('owner-check'), SWAP);
    expect(phaseOf(m, last, 1)).toBe(Ph.failed);
  });

  it('the whole space under allocator any: buggy breaks Integrity in 7 actions (287 states); owner-check holds (551), hardened too (301)', () => {
    const buggy = check(checkedModel(compile(swapped('buggy'))), { invariants: READS });
    expect([buggy.distinctStates, buggy.violations.map((v) => [v.invariant, v.depth])]).toEqual([287, [['Isolation', 7], ['Integrity', 7]]]);
    for (const [variant, states] of [['owner-check', 551], ['hardened', 301]] as const) {
      const r = check(checkedModel(compile(swapped(variant))), { invariants: READS });
      expect([variant, r.verdict, r.distinctStates]).toEqual([variant, 'holds', states]);
    }
  });
});

describe('the fast forms with a 2-page prefix', () => {
  it('agree with the spec on all 3,673 reachable states of the lock-underflow configuration with stale-free and prefix-poison (buggy, eviction on)', { timeout: 60_000 }, () => {
    const m = compile(underflow('buggy', ['silent-stub', 'lock-underflow', 'stale-free', 'prefix-poison']));
    const states = reachable(m);
    expect(states.length).toBe(3673);
    // Symmetry renames requests only; prefix labels stay: the reduced search keeps one state per orbit.
    expect([orbitCount(m, states), check(checkedModel(m), { continueAfterViolation: true }).distinctStates]).toEqual([1856, 1856]);
    for (const p of [Isolation, Integrity, ExclusiveHold, Conservation]) {
      const fast = fastFormOf(m, p)!;
      let broken = 0;
      for (const s of states) {
        expect(fast(s), p.name).toBe(p.holds(m, s));
        if (!fast(s)) broken++;
      }
      expect(broken, p.name).toBeGreaterThan(0);
    }
  });
});
