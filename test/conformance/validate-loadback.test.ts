/**
 * validate-log with the host tier's loads and the draft model's KV (config `loadback`,
 * `draft`; conformance/tier-pool.ts, step-tier.ts): logs of spec runs with both, a `load`
 * line where the spec's allocation posted one, `loaded` at its `loadBack`, `hostEvict` at
 * its `evictHost`, never deviate and find every leak, none late; and small logs of each
 * fault's leak, the variant that stops it, and bad lines, each pinned to verdict and line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, LOAD, loadOf, prefixLength, tableOf, type Action, type Config, type Fault, type Model, type State, type Variant } from '../../spec/index.ts';
import { specTrace, validate } from '../../conformance/index.ts';
import { fastAgreesWithSchema } from './fast-agreement.ts';
import { config, ev, runLog, summary, why } from './log-lines.ts';
import { asSource, firstViolation, logOf, runOf, radixConfigs } from './spec-log.ts';
import { pagecheck } from '../support/cli.ts';

/** The log of a spec run with the host tier and the draft model: `load` after an allocation that posted one, `loaded` at `loadBack`, `hostEvict` at `evictHost`; a draft part lands with its write (`done`). */
function tierLog(m: Model, c: Config, actions: readonly Action[], states: readonly State[]): { lines: string[]; lineOf: number[] } {
  const { lines, lineOf } = logOf(m, c, actions, states);
  const out = [JSON.stringify({ ...(JSON.parse(lines[0] ?? '{}') as object), loadback: c.loadback === true, draft: c.draft === true })];
  const at: number[] = [];
  let from = 1;
  actions.forEach((a, i) => {
    const after = states[i + 1]!;
    const own = lines.slice(from, lineOf[i]);
    from = lineOf[i] ?? from;
    const id = c.requests[a.r]?.name ?? `#${a.r}`;
    const last = own.pop() ?? '';
    out.push(...own);
    if (a.kind === 'loadBack') out.push(JSON.stringify({ kind: 'loaded', id }));
    else if (a.kind === 'evictHost') out.push(JSON.stringify({ kind: 'hostEvict', prefix: c.requests[a.r]?.prefix }));
    else if (a.kind !== 'landDraft') out.push(last);
    if (a.kind === 'allocate' && loadOf(m, after, a.r) === LOAD.posted) out.push(JSON.stringify({ kind: 'load', id, pages: tableOf(m, after, a.r).slice(0, prefixLength(m, a.r)) }));
    at.push(out.length);
  });
  return { lines: out, lineOf: at };
}

const TIER_FAULTS: readonly Fault[] = ['host-evict-during-load', 'read-before-load', 'draft-stale', 'early-free', 'silent-stub'];
const VARIANTS: readonly Variant[] = ['buggy', 'length-fix', 'owner-check', 'hardened'];
const tierConfigs = fc
  .record({
    pages: fc.integer({ min: 3, max: 4 }),
    prefillLimit: fc.integer({ min: 1, max: 3 }),
    lengths: fc.array(fc.integer({ min: 2, max: 3 }), { minLength: 2, maxLength: 3 }),
    prefixed: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    variant: fc.constantFrom(...VARIANTS),
    faults: fc.subarray([...TIER_FAULTS]),
    draft: fc.boolean(),
    loadback: fc.boolean(),
  })
  .map(
    (r): Config => ({
      pages: r.pages,
      prefillLimit: r.prefillLimit,
      // The last request always has the prefix (loadback needs one); an earlier one without it leaves its KV in the pages the last may take.
      requests: r.lengths.map((length, i) => ({ length, name: 'ABC'[i]!, ...(i === r.lengths.length - 1 || r.prefixed[i] === true ? { prefix: 'sys' } : {}) })),
      variant: r.variant,
      faults: r.faults.filter((f) => (f !== 'draft-stale' || r.draft) && (!f.includes('load') || r.loadback || !r.draft)),
      // At least one of the two; draft-stale's leak needs P to write the prefix, which a load does instead.
      loadback: r.loadback || !r.draft,
      draft: r.draft,
    }),
  );

describe('validate-log on logs of spec runs with loads from host memory and draft KV', () => {
  it('is never a deviation, and finds every violation at the line where the run breaks an invariant, none late', () => {
    const counts = { violations: 0, early: 0, loads: 0, loaded: 0, hostEvicts: 0, draftLeaks: 0, hostLeaks: 0 };
    fc.assert(
      fc.property(tierConfigs, fc.array(fc.nat({ max: 63 }), { minLength: 8, maxLength: 32 }), (c, picks) => {
        const m = compile(c);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = tierLog(m, c, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });
        counts.loads += lines.filter((l) => l.includes('"load"')).length;
        counts.loaded += lines.filter((l) => l.includes('"loaded"')).length;
        counts.hostEvicts += lines.filter((l) => l.includes('"hostEvict"')).length;
        expect(r.verdict).not.toBe('deviation');
        const k = firstViolation(m, states);
        const early = c.faults.includes('early-free');
        if (k === 0) {
          if (!early) expect(r.verdict).toBe('conforms');
          return;
        }
        expect(r.verdict).toBe('violation');
        counts.violations++;
        expect(r.at?.line ?? 0).toBeLessThanOrEqual(lineOf[k - 1] ?? 0);
        if ((r.at?.line ?? 0) < (lineOf[k - 1] ?? 0)) counts.early++;
        if (r.headline.some((h) => h.includes('draft KV'))) counts.draftLeaks++;
        if (r.headline.some((h) => h.includes('host copy'))) counts.hostLeaks++;
      }),
      { numRuns: 1500, seed: 40 },
    );
    // The features' own lines and leaks must be among them, or the property says little of them.
    expect(counts).toEqual({ violations: 91, early: 0, loads: 572, loaded: 565, hostEvicts: 1132, draftLeaks: 18, hostLeaks: 25 });
  }, 60_000);
});

// Draft KV under the radix tree (its logged pool keeps the draft KV too, conformance/radix.ts): the handoff's insert logged, eviction on.
const radixDraftConfigs = radixConfigs({ variants: VARIANTS, faults: ['draft-stale', 'silent-stub'], features: { draft: true }, lastPrefixed: true });

describe('validate-log on logs of spec runs with draft KV and the radix tree', () => {
  it('is never a deviation, and finds every violation at the line where the run breaks an invariant', () => {
    const seen = { violations: 0, draftLeaks: 0, insertsAtHandoff: 0 };
    fc.assert(
      fc.property(radixDraftConfigs, fc.array(fc.nat({ max: 63 }), { minLength: 8, maxLength: 32 }), (c, picks) => {
        const m = compile(c);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = tierLog(m, c, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });
        seen.insertsAtHandoff += lines.filter((l) => l.includes('"at":"handoff"')).length;
        expect(r.verdict).not.toBe('deviation');
        const k = firstViolation(m, states);
        if (k === 0) {
          expect(r.verdict).toBe('conforms');
          return;
        }
        expect([r.verdict, r.at?.line]).toEqual(['violation', lineOf[k - 1]]);
        seen.violations++;
        if (r.headline.some((h) => h.includes('draft KV'))) seen.draftLeaks++;
      }),
      { numRuns: 600, seed: 40 },
    );
    expect(seen).toEqual({ violations: 35, draftLeaks: 15, insertsAtHandoff: 856 });
  }, 60_000);
});

const run = (text: readonly string[]): ReturnType<typeof runLog> => runLog('tier.jsonl', text);
const setting = (variant: string, faults: readonly string[], extra: Record<string, unknown> = {}): string => config({ pages: 4, prefillLimit: 4, variant, faults, ...extra });

// B (no prefix) is served on pages 0 and 1 and released; A, with prefix sys, then takes them.
const before = [ev('arrive', 'B', { length: 2 }), ev('allocate', 'B', { pages: [0, 1] }), ev('done', 'B'), ev('handoff', 'B'), ev('decode', 'B', { pages: [0, 1], step: 0 }), ev('free', 'B', { pages: [0, 1] })];

// A's prefix missed D's cache; P writes it, and under draft-stale its draft part skips page 0, which keeps B's draft KV.
const stale = (variant: string, faults: readonly string[]): string[] => [
  setting(variant, faults, { draft: true }),
  ...before,
  ev('arrive', 'A', { length: 2, prefix: 'sys' }),
  ev('allocate', 'A', { pages: [0, 1] }),
  ev('done', 'A'),
  ev('handoff', 'A'),
  ev('decode', 'A', { pages: [0, 1], step: 0 }),
];

describe('draft-stale: P\'s draft part skips the prefix its cache hit', () => {
  it('buggy: A reads B\'s draft KV in page 0: Isolation at the decode line, naming B', () => {
    const r = run(stale('buggy', ['draft-stale']));
    expect([summary(r), ...r.headline]).toEqual(['violation Isolation 12', "A read the draft KV of page 0, which holds B's draft KV."]);
    // The spec's own trace of the log (its draft parts as steps of their own) breaks Isolation too.
    expect(specTrace(r)?.trace.steps.map((x) => x.action.kind).join(' ')).toBe('allocate prefill landDraft handoff decode free allocate prefill landDraft handoff decode');
  });
});

describe('draft-stale: the variants, and a draft never written', () => {
  it('owner-check does not stop it (its tags are the target\'s); hardened (draft-fills-hit) and no fault conform', () => {
    expect(summary(run(stale('owner-check', ['draft-stale'])))).toBe('violation Isolation 12');
    expect(summary(run(stale('hardened', ['draft-stale'])))).toBe('conforms - -');
    expect(summary(run(stale('buggy', [])))).toBe('conforms - -');
  });

  it('on fresh pages the skipped draft KV was never written: Integrity at the decode line with --integrity, conforms without', () => {
    const fresh = [stale('buggy', ['draft-stale'])[0]!, ...stale('buggy', ['draft-stale']).slice(7)];
    const integrity = validate({ files: [], lines: asSource(fresh), overrides: {}, window: 8, integrity: true });
    expect([summary(integrity), ...integrity.headline]).toEqual(['violation Integrity 6', 'A read the draft KV of page 0, never written: its answer is garbage (nothing leaked).']);
    expect(summary(run(fresh))).toBe('conforms - -');
  });
});

// A's prefix missed D's cache and is on the host: D loads page 0 from host memory while P writes page 1; host memory evicts the copy mid-load.
const evicting = (variant: string, faults: readonly string[]): string[] => [
  setting(variant, faults, { loadback: true }),
  ev('arrive', 'A', { length: 2, prefix: 'sys' }),
  ev('allocate', 'A', { pages: [0, 1] }),
  ev('load', 'A', { pages: [0] }),
  JSON.stringify({ kind: 'hostEvict', prefix: 'sys' }),
  ev('posted', 'A', { pages: [1] }),
  ev('done', 'A'),
  ev('loaded', 'A'),
  ev('handoff', 'A'),
  ev('decode', 'A', { pages: [0, 1], step: 0 }),
];

describe('host-evict-during-load: the host copy is evicted and reused while the load reads it', () => {
  it('buggy, and owner-check (the load is tagged as the prefix\'s): another user\'s KV in page 0, Isolation at the decode line', () => {
    for (const variant of ['buggy', 'owner-check']) {
      const r = run(evicting(variant, ['host-evict-during-load']));
      expect([summary(r), ...r.headline]).toEqual(['violation Isolation 10', "A read page 0, which holds another user's KV (the host copy of its prefix, evicted and reused while its load read it)."]);
      expect(specTrace(r)?.trace.steps.map((x) => x.action.kind).join(' ')).toBe('allocate evictHost prefill loadBack handoff decode');
    }
  });

  it('hardened (protect-host) and no fault: evict_host skips the copy until the ack, so the load landed first; the log conforms', () => {
    expect(summary(run(evicting('hardened', ['host-evict-during-load'])))).toBe('conforms - -');
    expect(summary(run(evicting('buggy', [])))).toBe('conforms - -');
  });

  it('once the copy is gone a later request with the prefix loads nothing: its load line, and a second eviction, are deviations', () => {
    const after = [...evicting('buggy', []), ev('free', 'A', { pages: [0, 1] }), ev('arrive', 'C', { length: 2, prefix: 'sys' }), ev('allocate', 'C', { pages: [0, 1] })];
    expect(summary(run([...after, ev('posted', 'C', { pages: [0, 1] }), ev('done', 'C')]))).toBe('conforms - -');
    const load = run([...after, ev('load', 'C', { pages: [0] })]);
    expect([summary(load), load.refusals[0]?.why]).toEqual(['deviation - 14', "D loads nothing from host memory for C: its prefix hit D's cache, or has none, or its host copy was evicted"]);
    const twice = run([...after, JSON.stringify({ kind: 'hostEvict', prefix: 'sys' })]);
    expect([summary(twice), twice.refusals[0]?.why]).toEqual(['deviation - 14', 'the host copy of prefix "sys" was evicted already (the spec keeps one host copy per prefix, and P computes the prefix once it is gone)']);
  });

  it('P\'s write starts past the loaded page: a posted line naming page 0 is a deviation, and a load naming page 1', () => {
    const text = evicting('buggy', []);
    const posted = run([...text.slice(0, 5), ev('posted', 'A', { pages: [0, 1] })]);
    expect([summary(posted), posted.refusals[0]?.why]).toEqual(['deviation - 6', "P's write for A lands in [1]; the log says [0, 1], which is not a run of them"]);
    const load = run([...text.slice(0, 3), ev('load', 'A', { pages: [1] })]);
    expect([summary(load), load.refusals[0]?.why]).toEqual(['deviation - 4', "A's load from host memory fills its prefix pages [0]; the log says [1]"]);
  });
});

// B's KV is in pages 0 and 1; A takes them, D loads its prefix into page 0, and A decodes before the load is acknowledged.
const early = (variant: string, faults: readonly string[], decode = ev('decode', 'A', { pages: [0, 1], step: 0 })): string[] => [
  setting(variant, faults, { loadback: true }),
  ...before,
  ev('arrive', 'A', { length: 2, prefix: 'sys' }),
  ev('allocate', 'A', { pages: [0, 1] }),
  ev('load', 'A', { pages: [0] }),
  ev('done', 'A'),
  ev('handoff', 'A'),
  decode,
  ev('loaded', 'A'),
];

describe('read-before-load: decode does not wait for its own load', () => {
  it('buggy: A reads B\'s KV still in page 0: Isolation at the decode line, naming B', () => {
    const r = run(early('buggy', ['read-before-load']));
    expect([summary(r), ...r.headline]).toEqual(['violation Isolation 13', "A read page 0, which holds B's data."]);
    expect(specTrace(r)?.trace.steps.map((x) => x.action.kind).join(' ')).toBe('allocate prefill handoff decode free allocate prefill handoff decode');
  });

  it('the ack before the decode conforms, with the caveat that the log shows the ack, not when the copy ran', () => {
    const text = early('buggy', ['read-before-load']);
    const r = run([...text.slice(0, -2), text.at(-1)!, text.at(-2)!]);
    expect([summary(r), r.caveats?.filter((c) => c.startsWith('loadback:')).length]).toEqual(['conforms - -', 1]);
  });

  it('owner-check stops it loudly: the allocation cleared the tags, only the load stamps them, so the decode fails', () => {
    expect(summary(run(early('owner-check', ['read-before-load'])))).toBe('deviation - 13');
    expect(summary(run(early('owner-check', ['read-before-load'], ev('fail', 'A'))))).toBe('conforms - -');
  });

  it('hardened (wait-own-load) and no fault: the decode waits, so the load landed before it although its ack comes later; the log conforms', () => {
    expect(summary(run(early('hardened', ['read-before-load'])))).toBe('conforms - -');
    expect(summary(run(early('buggy', [])))).toBe('conforms - -');
    // The ack may come after the request's release too (loading_check runs once per scheduler step).
    const text = early('buggy', []);
    expect(summary(run([...text.slice(0, -1), ev('free', 'A', { pages: [0, 1] }), text.at(-1)!]))).toBe('conforms - -');
  });
});

describe('loads and draft KV as input', () => {
  it('a bad field is exit 2 naming the field and the value', () => {
    expect(() => run([setting('buggy', [], { loadback: 'yes' })])).toThrow('tier.jsonl:1: loadback:');
    expect(() => run([setting('buggy', [], { loadback: true }), JSON.stringify({ kind: 'hostEvict' })])).toThrow('tier.jsonl:2: prefix:');
    expect(() => run([setting('buggy', [], { loadback: true }), JSON.stringify({ kind: 'hostEvict', prefix: 7 })])).toThrow('tier.jsonl:2: prefix:');
    expect(() => run([setting('buggy', [], { loadback: true }), ev('arrive', 'A', { length: 2 }), ev('load', 'A', { pages: [-1] })])).toThrow('tier.jsonl:3: pages[0]:');
  });

  it('a fault without its switch, and the switches the spec does not model them with, are exit 2 naming the field', () => {
    const first = ev('arrive', 'A', { length: 2 });
    expect(() => run([config({ pages: 4, prefillLimit: 4, faults: ['read-before-load'] }), first])).toThrow('faults: fault read-before-load needs loadback: true');
    expect(() => run([config({ pages: 4, prefillLimit: 4, faults: ['draft-stale'] }), first])).toThrow('faults: fault draft-stale needs draft: true');
    expect(() => run([setting('buggy', [], { loadback: true, radix: true, eviction: true }), first])).toThrow('loadback: loadback: true with radix');
    expect(() => run([setting('buggy', [], { draft: true, retraction: true }), first])).toThrow('draft: draft: true with retraction');
  });

  it('a load or hostEvict line without loadback in the config is a deviation', () => {
    const r = run([setting('buggy', []), ev('arrive', 'A', { length: 2, prefix: 'sys' }), ev('allocate', 'A', { pages: [0, 1] }), ev('load', 'A')]);
    expect([summary(r), why(r)]).toEqual(['deviation - 4', 'load needs loadback: true in the config event | no state the system may be in accepts this event (one state)']);
    const h = run([setting('buggy', []), ev('arrive', 'A', { length: 2, prefix: 'sys' }), JSON.stringify({ kind: 'hostEvict', prefix: 'sys' })]);
    expect([summary(h), why(h)]).toEqual(['deviation - 3', 'hostEvict needs loadback: true in the config event | no state the system may be in accepts this event (one state)']);
  });

  it('the fast decoder reads load and loaded lines as Schema does: 2,000 random lines', () => {
    const pages = fc.constantFrom(undefined, [0], [0, [2, 3]], [-1], ['x'], 3, [[3, 2]]);
    const line = fc.record({ kind: fc.constantFrom('load', 'loaded', 'hostEvict'), id: fc.constantFrom('A', '', 7), pages, prefix: fc.constantFrom(undefined, 'sys', 3) });
    expect(fastAgreesWithSchema(line, 2000, 40)).toBe(352);
  });
});

describe('examples/logs/host-evict-during-load.jsonl through the command line', () => {
  it('exit 1, Isolation at line 10 under owner-check, and the spec\'s own trace with its eviction and load', async () => {
    const example = 'examples/logs/host-evict-during-load.jsonl';
    const r = await pagecheck('validate-log', example);
    expect(r.code).toBe(1);
    expect(r.out).toContain('model: owner-check, 4 pages, prefill limit 4 pages, faults host-evict-during-load, allocator sorted, host-cache load back');
    expect(r.out).toContain(`violation of Isolation at ${example}:10`);
    expect(r.out).toContain('actions: allocate(A) evictHost(A) prefill(A) loadBack(A) handoff(A) decode(A)');
  });
});
