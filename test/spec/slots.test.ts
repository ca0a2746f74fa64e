/** Token slots: page size, token lengths, the length rule, auto-truncation, and the slot-level leak the page-level owner check misses. */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { explain } from '../../trace/explain.ts';
import { stateAt } from '../../trace/facts.ts';
import { formatMermaid, formatTrace } from '../../trace/index.ts';
import { actionLabel, compile, configFrom, fillOf, incidentConfig, Integrity, Isolation, isOverLong, phaseOf, Ph, readEnd, tablePage, tagFillOf, type Mechanism, type Model, type Trace } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { runLabels } from './helpers.ts';
import { configFromFlags } from '../../cli/model-options.ts';
import { replayCommand } from '../../cli/search-report.ts';

const labels = (m: Model, trace: Trace): string[] => trace.steps.map((s) => actionLabel(m, s.action));
const without = (m: Model, off: Mechanism): Model => ({ ...m, mechanism: { ...m.mechanism, [off]: false } });
const READS = [Isolation, Integrity];

/** The slot-level finding: 2-token pages, a prefill limit of 3 tokens, A of 3 tokens and B of 4; P cuts B to 3 tokens, inside B's last page. */
const truncating = (variant: 'buggy' | 'length-fix' | 'owner-check' | 'hardened', decodeSteps = 1): Model =>
  compile(configFrom({ pages: 3, pageSize: 2, prefillLimit: 3, requests: [{ length: 3 }, { length: 4 }], variant, faults: ['auto-truncate'], decodeSteps }));

describe('page size 1 is the first model', () => {
  it('stores no slot counts, and a request of L tokens has L pages', () => {
    const m = compile(incidentConfig('owner-check'));
    expect([m.fillAt, m.tagFillAt, m.pageSize, Array.from(m.len), Array.from(m.tokens)]).toEqual([-1, -1, 1, [2, 3], [2, 3]]);
    // The same pages at 2 tokens per page: the layout only grows at its end, by a fill and a tag count per page.
    const doubled = compile({ ...incidentConfig('owner-check'), pageSize: 2, requests: [{ name: 'A', length: 4 }, { name: 'B', length: 6 }] });
    expect([doubled.size, doubled.fillAt, doubled.tagFillAt]).toEqual([m.size + 2 * m.pages, m.size, m.size + m.pages]);
  });

  it('the minimal incident keeps its 9-action leak and its counts', () => {
    const r = check(checkedModel(compile(incidentConfig('buggy'))));
    expect([r.verdict, r.distinctStates, r.violations[0]?.trace.steps.length]).toEqual(['violation', 18, 9]);
  });
});

describe('token lengths and the length rule', () => {
  it('a request of T tokens has ceil(T / S) pages, its last one partial', () => {
    const m = truncating('buggy');
    expect([Array.from(m.tokens), Array.from(m.len)]).toEqual([[3, 4], [2, 2]]);
    const { last } = runLabels(m.config, ['allocate(A)', 'prefill(A)']);
    expect([fillOf(m, last, tablePage(m, last, 0, 0)), fillOf(m, last, tablePage(m, last, 0, 1))]).toEqual([2, 1]);
  });

  it('gt refuses a prompt longer than the limit; ge one of exactly the limit too (SGLang)', () => {
    const at = (lengthRule: 'gt' | 'ge') => compile(configFrom({ pages: 3, pageSize: 2, prefillLimit: 3, requests: [{ length: 3 }, { length: 4 }], variant: 'length-fix', lengthRule }));
    expect([isOverLong(at('gt'), 0), isOverLong(at('gt'), 1)]).toEqual([false, true]);
    expect([isOverLong(at('ge'), 0), isOverLong(at('ge'), 1)]).toEqual([true, true]);
    // Under ge the request of exactly the limit is refused by the length fix: nothing decodes.
    const ge = check(checkedModel(at('ge')));
    expect([ge.verdict, ge.distinctStates, ge.witnesses.find((w) => w.name === 'DecodeSucceeds')?.reached]).toEqual(['holds', 12, false]);
    const gt = check(checkedModel(at('gt')));
    expect([gt.verdict, gt.distinctStates, gt.witnesses.find((w) => w.name === 'DecodeSucceeds')?.reached]).toEqual(['holds', 16, true]);
  });

  it('a decode step after the first writes its token into the next slot and reads up to it at the next step', () => {
    const m = truncating('owner-check', 3);
    const { last, trace } = runLabels(m.config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'decode(A)']);
    const page = tablePage(m, last, 0, 1);
    // A has 3 tokens: step 1 read 3 slots, step 2 read 3 and wrote slot 3; the next step reads 4.
    expect([readEnd(m, stateAt(trace, 4), 0), readEnd(m, last, 0), fillOf(m, last, page), tagFillOf(m, last, page)]).toEqual([3, 4, 2, 2]);
  });
});

describe('the slot-level leak: the page-level owner check misses it, hardened does not', () => {
  it('check --variant owner-check --page-size 2 --pages 3 --prefill-limit 3 --requests 3,4 --faults auto-truncate: a 4-action leak, B reads the stale tail of its own tagged page', () => {
    const m = truncating('owner-check');
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 9, 4]);
    const trace = r.violations[0]!.trace;
    expect(labels(m, trace)).toEqual(['allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)']);
    expect(explain(m, trace, 'Isolation').headline).toEqual([
      "B read tokens 2..3 in page 1, but only 1 of its slots was written for it by step 2 (prefill(B)): token 3 is stale P-side data (another user's).",
    ]);
    // The tag says B, as the owner check wants: the page is B's, but not all of its slots.
    const before = stateAt(trace, 3);
    expect([phaseOf(m, before, 1), fillOf(m, before, 1), tagFillOf(m, before, 1)]).toEqual([Ph.handedOff, 1, 1]);
  });

  it('the same leak under buggy and length-fix: auto-truncation defeats the length fix', () => {
    for (const variant of ['buggy', 'length-fix'] as const) {
      const r = check(checkedModel(truncating(variant)));
      expect([variant, r.verdict, r.violations[0]?.trace.steps.length]).toEqual([variant, 'violation', 4]);
    }
  });

  it('hardened holds (tag-counts-tokens fails B loudly), 21 states, every witness reached', () => {
    const r = check(checkedModel(truncating('hardened')), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 21, 10]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  it('removal test: hardened without tag-counts-tokens leaks the same way', () => {
    const m = without(truncating('hardened'), 'tag-counts-tokens');
    const r = check(checkedModel(m), { invariants: READS });
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Isolation', 4], ['Integrity', 4]]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(['allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)']);
  });

  it('with three decode steps hardened still holds (the token writes raise the counts they then check), 25 states', () => {
    const r = check(checkedModel(truncating('hardened', 3)), { invariants: READS });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 25, 12]);
  });

  it('a silent stub of a one-page prompt leaks past the owner check too (SGLang\'s ge rule, 2-token pages)', () => {
    const config = (variant: 'owner-check' | 'hardened') =>
      compile(configFrom({ pages: 3, pageSize: 2, prefillLimit: 2, lengthRule: 'ge', requests: [{ length: 3 }, { length: 2 }], variant, faults: ['silent-stub'] }));
    const m = config('owner-check');
    const r = check(checkedModel(m), { invariants: READS });
    expect([r.verdict, r.distinctStates]).toEqual(['violation', 21]);
    expect(labels(m, r.violations[0]!.trace)).toEqual(['allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)']);
    const hardened = check(checkedModel(config('hardened')), { invariants: READS });
    expect([hardened.verdict, hardened.distinctStates]).toEqual(['holds', 71]);
  });
});

describe('the printers show the slots', () => {
  it('text: partly written cells, the tokens read and where stale data begins; Mermaid: the cut and the tokens read', () => {
    const m = truncating('owner-check');
    const trace = check(checkedModel(m)).violations[0]!.trace;
    const text = formatTrace(m, trace, { color: false, violation: 'Isolation' });
    expect(text).toContain('model: owner-check, 3 pages, 2 token slots per page, prefill limit 3 tokens, requests A (3 tokens, 2 pages), B (4 tokens, 2 pages); faults auto-truncate');
    expect(text).toContain("step 2  prefill(B)  P writes B's prompt, cut from 4 tokens to the prefill limit of 3 (auto-truncate), into pages 0, 1 (data: B, B).");
    expect(text).toContain('1 B/B(1/2)/B(1/2)');
    expect(text).toContain('step 4  decode(B)  B reads tokens 0..3 in pages 0, 1, which hold: B; B, then stale P-side data from token 3.');
    const mermaid = formatMermaid(m, trace, 'Isolation');
    expect(mermaid).toContain("P->>Pool: 2. prefill(B): write B's prompt cut to 3 tokens (auto-truncate) into pages 0,1");
    expect(mermaid).toContain('D->>Pool: 4. decode(B): read tokens 0..3 in pages 0,1');
  });
});

describe('the command line', () => {
  it('--page-size and --length-rule reach the configuration, and the replay line gives them back', () => {
    const config = configFromFlags({ variant: 'owner-check', pages: '3', prefillLimit: '2', requests: '3,2', pageSize: '2', lengthRule: 'ge', faults: 'silent-stub' });
    expect([config.pageSize, config.lengthRule, config.requests.map((q) => q.length)]).toEqual([2, 'ge', [3, 2]]);
    expect(replayCommand(config)).toMatch(/--page-size 2 --length-rule ge$/);
    expect(() => configFromFlags({ pages: '3', prefillLimit: '2', requests: '2', lengthRule: 'gte' })).toThrow('--length-rule: expected one of gt, ge, got "gte"');
  });
});
