/**
 * validate-log on logs of spec runs whose writes land in parts (`torn-write`, without an
 * owner check) with P's source pages and an early commit (faults `source-early-free`,
 * `premature-success`): P logs `posted` when it posts a write, `done` when its last part
 * lands, `sourceFree` at `abortSource`. A log cannot show when each part landed, so the
 * validator keeps the latest landing the log allows (the worst case): it must never deviate
 * from a run of the spec, and must find a violation no later than the run's own.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, partsInFlight, phaseOf, Ph, type Action, type Config, type Fault, type Model, type State } from '../../spec/index.ts';
import { validate } from '../../conformance/index.ts';
import { asSource, firstViolation, logOf, runOf, radixConfigs } from './spec-log.ts';

/** The log of a torn run: a write's posting is `posted`, its last part's landing `done`, P's early free of its source pages `sourceFree`. */
function tornLog(m: Model, c: Config, actions: readonly Action[], states: readonly State[]): { lines: string[]; lineOf: number[] } {
  const { lines, lineOf } = logOf(m, c, actions, states);
  const out = [JSON.stringify({ ...(JSON.parse(lines[0] ?? '{}') as object), sourcePages: true })];
  const at: number[] = [];
  let from = 1;
  actions.forEach((a, i) => {
    const after = states[i + 1]!;
    const own = lines.slice(from, lineOf[i]);
    from = lineOf[i] ?? from;
    const id = c.requests[a.r]?.name ?? `#${a.r}`;
    const last = own.pop() ?? '';
    out.push(...own);
    const phase = phaseOf(m, after, a.r);
    const posting = (a.kind === 'prefill' || a.kind === 'stub') && (phase === Ph.writing || phase === Ph.landing);
    if (posting) out.push(JSON.stringify({ kind: 'posted', id }));
    else if (a.kind === 'landData' || a.kind === 'landTag') {
      if (!partsInFlight(m, after, a.r)) out.push(JSON.stringify({ kind: 'done', id }));
    } else if (a.kind === 'abortSource') out.push(JSON.stringify({ kind: 'sourceFree', id }));
    else out.push(last);
    at.push(out.length);
  });
  return { lines: out, lineOf: at };
}

const EXTRA: readonly Fault[] = ['premature-success', 'source-early-free', 'early-free', 'silent-stub'];
const tornConfigs = fc
  .record({
    pages: fc.integer({ min: 2, max: 4 }),
    prefillLimit: fc.integer({ min: 1, max: 3 }),
    lengths: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 2, maxLength: 3 }),
    variant: fc.constantFrom('buggy' as const, 'length-fix' as const),
    faults: fc.subarray([...EXTRA]),
  })
  .map((r): Config => ({ pages: r.pages, prefillLimit: r.prefillLimit, requests: r.lengths.map((length, i) => ({ length, name: 'ABC'[i]! })), variant: r.variant, faults: ['torn-write', ...r.faults], sourcePages: true }));

describe('validate-log on logs of torn spec runs with source pages and early commits', () => {
  it('is never a deviation, and finds a violation no later than the run breaks an invariant', () => {
    let spec = 0;
    let found = 0;
    let early = 0;
    let sourceFrees = 0;
    let earlyCommits = 0;
    fc.assert(
      fc.property(tornConfigs, fc.array(fc.nat({ max: 63 }), { minLength: 1, maxLength: 24 }), (c, picks) => {
        const m = compile(c);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = tornLog(m, c, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });
        expect(r.verdict).not.toBe('deviation');
        if (r.verdict === 'violation') found++;
        sourceFrees += lines.filter((l) => l.includes('"sourceFree"')).length;
        // A handoff logged before its request's done: D committed before the write had landed.
        earlyCommits += lines.filter((l, i) => l.includes('"handoff"') && lines.slice(i).some((x) => x.includes('"done"') && x.includes(l.slice(l.indexOf('"id"'))))).length;
        const k = firstViolation(m, states);
        if (k === 0) return;
        spec++;
        expect(r.verdict).toBe('violation');
        expect(r.at?.line ?? 0).toBeLessThanOrEqual(lineOf[k - 1] ?? 0);
        if ((r.at?.line ?? 0) < (lineOf[k - 1] ?? 0)) early++;
      }),
      { numRuns: 600, seed: 39 },
    );
    // Runs the spec leaks in (all found, none late), runs the validator reports (the worst case adds some), and the lines that exercise the two faults.
    expect([spec, found, early, sourceFrees, earlyCommits]).toEqual([23, 25, 0, 140, 50]);
  }, 60_000);
});

// Under the radix tree (its logged pool keeps P's source pages too, conformance/radix.ts): prompts with a prefix, the handoff's insert logged; no early commit (refused with radix).
const radixTornConfigs = radixConfigs({ variants: ['buggy', 'length-fix'], faults: ['source-early-free', 'silent-stub'], always: ['torn-write'], features: { sourcePages: true } });

describe('validate-log on logs of torn spec runs with source pages and the radix tree', () => {
  it('is never a deviation, and finds a violation no later than the run breaks an invariant', () => {
    const seen = { spec: 0, found: 0, early: 0, sourceFrees: 0, insertsAtHandoff: 0, staleSources: 0 };
    fc.assert(
      fc.property(radixTornConfigs, fc.array(fc.nat({ max: 63 }), { minLength: 8, maxLength: 30 }), (c, picks) => {
        const m = compile(c);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = tornLog(m, c, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });
        expect(r.verdict).not.toBe('deviation');
        if (r.verdict === 'violation') seen.found++;
        seen.sourceFrees += lines.filter((l) => l.includes('"sourceFree"')).length;
        seen.insertsAtHandoff += lines.filter((l) => l.includes('"at":"handoff"')).length;
        const k = firstViolation(m, states);
        if (k === 0) return;
        seen.spec++;
        expect(r.verdict).toBe('violation');
        expect(r.at?.line ?? 0).toBeLessThanOrEqual(lineOf[k - 1] ?? 0);
        if ((r.at?.line ?? 0) < (lineOf[k - 1] ?? 0)) seen.early++;
        if (r.headline.some((h) => h.includes("P's source pages"))) seen.staleSources++;
      }),
      { numRuns: 1000, seed: 40 },
    );
    expect(seen).toEqual({ spec: 290, found: 290, early: 0, sourceFrees: 425, insertsAtHandoff: 1179, staleSources: 250 });
  }, 60_000);
});
