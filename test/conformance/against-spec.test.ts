/**
 * The validator held against the spec itself: random runs of the spec (fast-check, small
 * configurations, random faults) are written out as logs, one event per action, and
 * validated. A log of a spec run must never be a deviation; its verdict must be a
 * violation exactly when the run breaks an invariant, at that action's line (without
 * `early-free`, where the log fixes the order of everything); and a log with one event
 * removed must conform exactly when the spec can run the actions left and no invariant breaks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, Integrity, initial, step, tableOf } from '../../spec/index.ts';
import { configArbitrary } from '../../impl/index.ts';
import { validate, VALIDATOR_FAULTS } from '../../conformance/index.ts';
import { asSource, firstViolation, INVARIANTS, logOf, runOf } from './spec-log.ts';

// Only the faults the validator checks (conformance/events.ts): the others are refused as input.
const checkable = configArbitrary().map((c) => ({ ...c, faults: c.faults.filter((f) => VALIDATOR_FAULTS.includes(f)) }));
const runs = fc.tuple(checkable, fc.array(fc.nat({ max: 63 }), { minLength: 1, maxLength: 30 }));
// With eviction drawn as well (lock-underflow fires only with it); a separate arbitrary, so that the seeds above keep their cases.
const evicting = fc.tuple(
  configArbitrary(undefined, undefined, ['sorted'], true).map((c) => ({ ...c, faults: c.faults.filter((f) => VALIDATOR_FAULTS.includes(f)) })),
  fc.array(fc.nat({ max: 63 }), { minLength: 1, maxLength: 30 }),
);

describe('validate-log on logs of spec runs', () => {
  it('is never a deviation, and finds a violation exactly where the run breaks an invariant (at or before it with early-free)', () => {
    let violations = 0;
    fc.assert(
      fc.property(runs, ([config, picks]) => {
        const m = compile(config);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = logOf(m, config, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });
        expect(r.verdict).not.toBe('deviation');
        const k = firstViolation(m, states);
        const early = config.faults.includes('early-free');
        // With early-free the log leaves a late write's landing open: another landing order may break an invariant first.
        if (k === 0) {
          if (!early) expect(r.verdict).toBe('conforms');
          return;
        }
        violations++;
        expect(r.verdict).toBe('violation');
        const line = lineOf[k - 1] ?? 0;
        if (early) expect(r.at?.line ?? 0).toBeLessThanOrEqual(line);
        else expect(r.at?.line).toBe(line);
      }),
      { numRuns: 2000, seed: 16 },
    );
    // The property must have met violations, or it says little.
    expect(violations).toBeGreaterThan(50);
  }, 120_000);

  it('with eviction and lock-underflow: never a deviation, a violation exactly where the run breaks an invariant', () => {
    let evictions = 0;
    fc.assert(
      fc.property(evicting, ([config, picks]) => {
        if (config.faults.includes('early-free')) return;
        const m = compile(config);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = logOf(m, config, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });
        const k = firstViolation(m, states);
        if (actions.some((a) => a.kind === 'evict')) evictions++;
        if (k === 0) {
          expect(r.verdict).toBe('conforms');
          return;
        }
        expect([r.verdict, r.at?.line]).toEqual(['violation', lineOf[k - 1]]);
      }),
      { numRuns: 2000, seed: 19 },
    );
    // Runs that evict at all (an underflow needs a hit, a live reader and a shortage: rare at random; test/conformance/lock-underflow.test.ts pins one).
    expect(evictions).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('with integrity: a violation exactly where the run breaks an invariant or Integrity, the Integrity ones named so', () => {
    let integrity = 0;
    fc.assert(
      fc.property(runs, ([config, picks]) => {
        if (config.faults.includes('early-free')) return;
        const m = compile(config);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = logOf(m, config, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8, integrity: true });
        const k = firstViolation(m, states, [...INVARIANTS, Integrity]);
        if (k === 0) {
          expect(r.verdict).toBe('conforms');
          return;
        }
        expect([r.verdict, r.at?.line]).toEqual(['violation', lineOf[k - 1]]);
        // Integrity is named only where no other invariant breaks.
        const others = firstViolation(m, states) === k;
        if (!others) {
          integrity++;
          expect(r.invariant).toBe('Integrity');
        }
      }),
      { numRuns: 2000, seed: 18 },
    );
    // Integrity-only breaches are rare in short random runs (a stub over pages nobody wrote, nothing leaked): they must occur.
    expect(integrity).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('a log with one action removed conforms exactly when the spec can run what is left, and no invariant breaks', () => {
    let deviations = 0;
    fc.assert(
      fc.property(runs, fc.nat(), ([config, picks], drop) => {
        const m = compile(config);
        const { actions, states } = runOf(m, picks);
        if (actions.length < 2 || firstViolation(m, states) !== 0 || config.faults.includes('early-free')) return;
        const i = drop % actions.length;
        // An allocation is needed for every later event; a write may always be hidden (its landing is never logged).
        const kind = actions[i]?.kind;
        if (kind === 'allocate' || kind === 'prefill' || kind === 'stub') return;
        // Runnable: the spec takes the actions left, and its allocations take the pages the log names.
        let s = initial(m);
        let runnable = true;
        let broken = false;
        for (const [j, a] of actions.entries()) {
          if (j === i) continue;
          const next = step(m, s, a);
          const logged = tableOf(m, states[j + 1] ?? s, a.r).join(',');
          if (next === undefined || (a.kind === 'allocate' && tableOf(m, next, a.r).join(',') !== logged)) {
            runnable = false;
            break;
          }
          broken ||= INVARIANTS.some((p) => !p.holds(m, next));
          s = next;
        }
        // The log of the full run, with the removed action's event taken out.
        const { lines, lineOf } = logOf(m, config, actions, states);
        const removed = (lineOf[i] ?? 0) - 1;
        const r = validate({ files: [], lines: asSource(lines.filter((_, j) => j !== removed)), overrides: {}, window: 8 });
        // Not runnable: a deviation, or a violation where the log now allocates a page still held (no free came).
        if (!runnable) {
          expect(r.verdict).not.toBe('conforms');
          if (r.verdict === 'violation') expect(r.invariant).toBe('ExclusiveHold');
          else deviations++;
        } else expect(r.verdict).toBe(broken ? 'violation' : 'conforms');
      }),
      { numRuns: 2000, seed: 17 },
    );
    expect(deviations).toBeGreaterThan(50);
  }, 120_000);
});
