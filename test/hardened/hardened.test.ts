import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, dataOf, FAULTS, Integrity, Isolation, MECHANISMS, phaseOf, Ph, type Fault, type Mechanism, type Model, type Trace } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runLabels } from '../spec/helpers.ts';

const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const without = (m: Model, off: Mechanism): Model => ({ ...m, mechanism: { ...m.mechanism, [off]: false } });
const READS = [Isolation, Integrity];
/** Every fault but auto-truncate, which replaces the silent stub (P cuts the prompt instead): the catalogue before token slots. */
const STUBBING: readonly Fault[] = FAULTS.filter((f) => f !== 'auto-truncate');
/** Issue 14's faults: the catalogue it was written against (before double-free and lock-underflow joined it). */
const ISSUE_14_FAULTS: readonly Fault[] = ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'torn-write'];

/** Issue 14's acceptance: check --variant hardened --faults silent-stub,early-free,stale-free,prefix-poison,torn-write --decode-steps 2 --pages 3 --prefill-limit 2 --requests 2,3:sys,2:sys */
const acceptance = (variant: 'owner-check' | 'hardened', faults: readonly Fault[] = ISSUE_14_FAULTS, eviction = false): Model =>
  compile({
    ...configFrom({
      pages: 3,
      prefillLimit: 2,
      requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }],
      variant,
      faults: [...faults],
      decodeSteps: 2,
    }),
    ...(eviction ? { eviction } : {}),
  });

/** The mechanisms of whole pages and one hold; `tag-counts-tokens` matters only with token slots (its removal test is in test/spec/slots.test.ts), `copy-carries-tag` only with retraction (test/spec/retraction.test.ts), `unlock-once` only with the radix tree (test/spec/radix.test.ts), `hold-source` only with P's source pages (test/spec/source-pages.test.ts), `commit-counts-landed` only with premature-success and `room-lands-last` only with aux-torn (test/spec/wire.test.ts), `draft-fills-hit` only with a draft model (test/spec/draft.test.ts), `slot-freed-with-request` and `metadata-alloc-checks-holder` only with state slots (test/spec/state-slots.test.ts), `protect-host` and `wait-own-load` only with the host cache's load back (test/spec/loadback.test.ts). */
const ONE_FEATURE = ['tag-counts-tokens', 'copy-carries-tag', 'unlock-once', 'hold-source', 'commit-counts-landed', 'room-lands-last', 'draft-fills-hit', 'slot-freed-with-request', 'metadata-alloc-checks-holder', 'protect-host', 'wait-own-load'] as const;
const PAGE_MECHANISMS = MECHANISMS.filter((k): k is Exclude<Mechanism, (typeof ONE_FEATURE)[number]> => !(ONE_FEATURE as readonly Mechanism[]).includes(k));
type PageMechanism = (typeof PAGE_MECHANISMS)[number];

/** The smallest configuration for each mechanism's removal: the fault that needs it, with torn writes. */
const SMALLEST: Readonly<Record<PageMechanism, { faults: string[]; requests: number }>> = {
  'revoke-writer': { faults: ['early-free', 'torn-write'], requests: 2 },
  'release-checks-holder': { faults: ['stale-free', 'torn-write'], requests: 3 },
};
const smallest = (off: PageMechanism): Model =>
  compile(configFrom({ pages: 2, prefillLimit: 2, requests: Array.from({ length: SMALLEST[off].requests }, () => ({ length: 1 })), variant: 'hardened', faults: SMALLEST[off].faults }));

describe('torn writes break the owner check', () => {
  it('check --variant owner-check --faults early-free,torn-write --pages 2 --prefill-limit 2 --requests 1,1: a 10-action leak, A\'s late content landing under B\'s tag', () => {
    const m = compile(configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free', 'torn-write'] }));
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 244, 10]);
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', 10]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual([
      'allocate(A)', 'prefill(A)', 'timeout(A)', 'allocate(B)', 'prefill(B)', 'landData(B)', 'landData(A)', 'landTag(B)', 'handoff(B)', 'decode(B)',
    ]);
  });

  it('without torn-write, the same configuration holds under owner-check (a write is one step)', () => {
    const m = compile(configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], variant: 'owner-check', faults: ['early-free'] }));
    expect(check(checkedModel(m), { invariants: READS }).verdict).toBe('holds');
  });

  it('owner-check on the acceptance configuration: a 12-action leak', () => {
    const r = check(checkedModel(acceptance('owner-check')), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 4897, 12]);
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', 12], ['Integrity', 12]]);
  });
});

describe('variant hardened', () => {
  it('holds Isolation and Integrity with every fault, torn writes and two decode steps, every witness reached', { timeout: 60_000 }, () => {
    const r = check(checkedModel(acceptance('hardened')), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 27492, 31]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  // Issue 24's aux-torn joined the catalogue: its one metadata slot (taken at allocate, freed at the commit) and its two parts
  // landing made 27,492 -> 78,246 states (29,692 -> 81,918 with eviction; premature-success changes nothing here under
  // commit-counts-landed); before it, 27,492 and 29,692.
  it('holds them with the whole merged catalogue too: double-free (and lock-underflow, inert without eviction; with it, 81,918 states)', { timeout: 60_000 }, () => {
    const r = check(checkedModel(acceptance('hardened', STUBBING)), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 78246, 37]);
    const evicting = check(checkedModel(acceptance('hardened', STUBBING, true)), { invariants: READS });
    expect([evicting.verdict, evicting.distinctStates, evicting.depth]).toEqual(['holds', 81918, 38]);
    expect(evicting.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  it('and with auto-truncate, which cuts B to the limit instead of stubbing it (whole pages: the owner check fails B loudly)', { timeout: 60_000 }, () => {
    // 48,178 states, depth 33, before aux-torn joined the catalogue.
    const r = check(checkedModel(acceptance('hardened', FAULTS)), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 152112, 39]);
    // A cut prompt still holds its prefix page, written for the prefix: a failed B's insert poisons nothing.
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual(['PoisonedInsert']);
  });

  it.each(PAGE_MECHANISMS)('without %s, the acceptance configuration leaks', { timeout: 60_000 }, (off) => {
    const r = check(checkedModel(without(acceptance('hardened'), off)), { invariants: READS });
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.invariant).toBe('Isolation');
  });

  it('without revoke-writer: the late write of a timed-out request lands under the new holder\'s tag (10 actions)', () => {
    const m = smallest('revoke-writer');
    expect(check(checkedModel(m), { invariants: READS }).verdict).toBe('holds');
    const r = check(checkedModel(without(m, 'revoke-writer')), { invariants: READS });
    expect(labels(m, r.violations[0]!.trace)).toEqual([
      'allocate(A)', 'prefill(A)', 'timeout(A)', 'allocate(B)', 'prefill(B)', 'landData(B)', 'landData(A)', 'landTag(B)', 'handoff(B)', 'decode(B)',
    ]);
  });

  it('without release-checks-holder: a stale release frees B\'s page, C gets it, B\'s tag lands over C\'s content (17 actions)', () => {
    const m = smallest('release-checks-holder');
    expect(check(checkedModel(m), { invariants: READS }).verdict).toBe('holds');
    const r = check(checkedModel(without(m, 'release-checks-holder')), { invariants: READS });
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', 17], ['Integrity', 17]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual([
      'allocate(A)', 'prefill(A)', 'landData(A)', 'landTag(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'prefill(B)', 'free(A)',
      'allocate(C)', 'prefill(C)', 'landData(C)', 'landData(B)', 'landTag(C)', 'handoff(C)', 'decode(C)',
    ]);
  });
});

describe('decode as steps', () => {
  it('decodeSteps 2 under buggy: a step after the first writes the token into the last page, where another request reads it', () => {
    const config = configFrom({ pages: 1, prefillLimit: 1, requests: [{ length: 1 }, { length: 1 }, { length: 1 }], variant: 'buggy', faults: ['stale-free'], decodeSteps: 2 });
    const { m, last } = runLabels(config, [
      'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'decode(B)', 'free(B)',
      'allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(B)', 'allocate(C)', 'prefill(C)', 'handoff(C)',
      'decode(A)', 'decode(C)',
    ]);
    // A's second step read C's page, then wrote its token there; C's first step read A's token.
    expect(Isolation.breach?.(m, last)).toEqual({ requests: [0, 2], pages: [{ r: 0, i: 0, page: 0 }, { r: 2, i: 0, page: 0 }] });
    expect([phaseOf(m, last, 0), phaseOf(m, last, 2), dataOf(m, last, 0)]).toEqual([Ph.decoded, Ph.decoding, 1]);
  });

  it('owner-check with every fault but torn-write holds at 1, 2 and 3 steps (6,509 / 8,624 / 10,855 states)', { timeout: 60_000 }, () => {
    const counts = [1, 2, 3].map((steps) => {
      const m = compile(
        configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'owner-check', faults: ISSUE_14_FAULTS.filter((f) => f !== 'torn-write'), decodeSteps: steps }),
      );
      const r = check(checkedModel(m), { invariants: READS });
      return [r.verdict, r.distinctStates];
    });
    expect(counts).toEqual([['holds', 6509], ['holds', 8624], ['holds', 10855]]);
  });
});
