/**
 * validate-log with D's state slots and metadata rows (config `stateSlots`,
 * conformance/slot-ledger.ts): logs of spec runs with the slots, their ids on each
 * `allocate` line and a `slotFree` line where the spec returns a slot, hold the verdict the
 * run has at the run's own line; and small logs of each fault's leak, the variant that stops
 * it, and bad lines, each pinned to its verdict and line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastAgreesWithSchema } from './fast-agreement.ts';
import { compile, poolOf, type Action, type Config, type Fault, type Model, type State, type Variant } from '../../spec/index.ts';
import { config, ev, runLog, summary } from './log-lines.ts';
import { asSource, firstViolation, logOf, runOf, radixConfigs } from './spec-log.ts';
import { validate } from '../../conformance/index.ts';

/** The log of a spec run with the slots: each `allocate` names its ids, and a `slotFree` follows the action that returned the request's state slot. */
function slotLog(m: Model, c: Config, actions: readonly Action[], states: readonly State[]): { lines: string[]; lineOf: number[] } {
  const { lines, lineOf } = logOf(m, c, actions, states);
  const out = [JSON.stringify({ ...(JSON.parse(lines[0] ?? '{}') as object), stateSlots: true })];
  const at: number[] = [];
  let from = 1;
  actions.forEach((a, i) => {
    const before = states[i]!;
    const after = states[i + 1]!;
    const own = lines.slice(from, lineOf[i]);
    from = lineOf[i] ?? from;
    const name = c.requests[a.r]?.name ?? `#${a.r}`;
    for (const text of own) {
      const e = JSON.parse(text) as Record<string, unknown>;
      if (e['kind'] === 'allocate') out.push(JSON.stringify({ ...e, stateSlot: poolOf(m, after, 'stateIdx', a.r) - 1, metadataRow: poolOf(m, after, 'metaIdx', a.r) - 1 }));
      else out.push(text);
    }
    at.push(out.length);
    // The state slot left the request's hold in this action: D logs its return.
    const k = poolOf(m, before, 'stateIdx', a.r) - 1;
    if (k >= 0 && poolOf(m, before, 'stateHolder', k) !== 0 && poolOf(m, after, 'stateHolder', k) !== poolOf(m, before, 'stateHolder', k)) out.push(JSON.stringify({ kind: 'slotFree', stateSlot: k, id: name }));
  });
  return { lines: out, lineOf: at };
}

const SLOT_FAULTS: readonly Fault[] = ['state-slot-reuse', 'metadata-collision', 'silent-stub', 'early-free'];
const VARIANTS: readonly Variant[] = ['buggy', 'length-fix', 'owner-check', 'hardened'];
const slotConfigs = fc
  .record({
    pages: fc.integer({ min: 2, max: 4 }),
    prefillLimit: fc.integer({ min: 1, max: 3 }),
    lengths: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 2, maxLength: 3 }),
    variant: fc.constantFrom(...VARIANTS),
    faults: fc.subarray([...SLOT_FAULTS]),
  })
  .map((r): Config => ({ pages: r.pages, prefillLimit: r.prefillLimit, requests: r.lengths.map((length, i) => ({ length, name: 'ABC'[i]! })), variant: r.variant, faults: r.faults, stateSlots: true }));

describe('validate-log on logs of spec runs with state slots', () => {
  it('is never a deviation, and finds a violation exactly at the line where the run breaks an invariant', () => {
    let slotLeaks = 0;
    let violations = 0;
    let slotFrees = 0;
    fc.assert(
      fc.property(slotConfigs, fc.array(fc.nat({ max: 63 }), { minLength: 1, maxLength: 24 }), (c, picks) => {
        const m = compile(c);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = slotLog(m, c, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });
        slotFrees += lines.filter((l) => l.includes('"slotFree"')).length;
        expect(r.verdict).not.toBe('deviation');
        const k = firstViolation(m, states);
        const early = c.faults.includes('early-free');
        if (k === 0) {
          if (!early) expect(r.verdict).toBe('conforms');
          return;
        }
        expect(r.verdict).toBe('violation');
        violations++;
        if (early) expect(r.at?.line ?? 0).toBeLessThanOrEqual(lineOf[k - 1] ?? 0);
        else expect(r.at?.line).toBe(lineOf[k - 1]);
        if (r.headline.some((h) => h.includes('state slot') || h.includes('metadata row'))) slotLeaks++;
      }),
      { numRuns: 600, seed: 39 },
    );
    // The slots' own leaks (a state slot or metadata row read) must be among them, and slot returns logged, or the property says little of the slots.
    expect([violations, slotLeaks, slotFrees]).toEqual([25, 20, 673]);
  }, 60_000);
});

// Under the radix tree (its logged pool, conformance/radix.ts): prompts with a prefix, the handoff's insert logged, eviction on.
const radixSlotConfigs = radixConfigs({ variants: VARIANTS, faults: SLOT_FAULTS.filter((f) => f !== 'early-free'), features: { stateSlots: true } });

describe('validate-log on logs of spec runs with state slots and the radix tree', () => {
  it('is never a deviation, and finds a violation exactly at the line where the run breaks an invariant', () => {
    const seen = { violations: 0, slotLeaks: 0, slotFrees: 0, insertsAtHandoff: 0 };
    fc.assert(
      fc.property(radixSlotConfigs, fc.array(fc.nat({ max: 63 }), { minLength: 8, maxLength: 30 }), (c, picks) => {
        const m = compile(c);
        const { actions, states } = runOf(m, picks);
        const { lines, lineOf } = slotLog(m, c, actions, states);
        const r = validate({ files: [], lines: asSource(lines), overrides: {}, window: 8 });
        seen.slotFrees += lines.filter((l) => l.includes('"slotFree"')).length;
        seen.insertsAtHandoff += lines.filter((l) => l.includes('"at":"handoff"')).length;
        expect(r.verdict).not.toBe('deviation');
        const k = firstViolation(m, states);
        if (k === 0) {
          expect(r.verdict).toBe('conforms');
          return;
        }
        // A handoff's line is followed by its insert's (`at: "handoff"`): the commit's read of its row is at the handoff's.
        const main = (lineOf[k - 1] ?? 0) - (actions[k - 1]?.kind === 'handoff' ? 1 : 0);
        expect([r.verdict, r.at?.line]).toEqual(['violation', main]);
        seen.violations++;
        if (r.headline.some((h) => h.includes('state slot') || h.includes('metadata row'))) seen.slotLeaks++;
      }),
      { numRuns: 1000, seed: 40 },
    );
    expect(seen).toEqual({ violations: 58, slotLeaks: 27, slotFrees: 2259, insertsAtHandoff: 1549 });
  }, 60_000);
});

const run = (text: readonly string[]): ReturnType<typeof runLog> => runLog('slots.jsonl', text);
const setting = (variant: string, faults: readonly string[], extra: Record<string, unknown> = {}): string => config({ pages: 4, prefillLimit: 4, stateSlots: true, variant, faults, ...extra });

// A is committed; under state-slot-reuse the commit returns A's state slot 0, B takes it and P writes B's state there, then A decodes.
const reuse = (variant: string, faults: readonly string[], bSlot = 0, aFree = true): string[] => [
  setting(variant, faults),
  ev('arrive', 'A', { length: 2 }),
  ev('allocate', 'A', { pages: [0, 1], stateSlot: 0, metadataRow: 0 }),
  ev('done', 'A'),
  ev('handoff', 'A'),
  ...(aFree ? [ev('slotFree', 'A', { stateSlot: 0 })] : []),
  ev('arrive', 'B', { length: 2 }),
  ev('allocate', 'B', { pages: [2, 3], stateSlot: bSlot, metadataRow: 0 }),
  ev('done', 'B'),
];

describe('state-slot-reuse: the commit returns the state slot while the request still decodes', () => {
  it('buggy: B\'s state lands in A\'s slot, and A\'s decode reads it: Isolation at the decode line', () => {
    const r = run([...reuse('buggy', ['state-slot-reuse']), ev('decode', 'A', { pages: [0, 1], step: 0 })]);
    expect(summary(r)).toBe('violation Isolation 10');
    expect(r.headline).toEqual(["A read state slot 0, which holds B's state."]);
  });

  it('A\'s first step before B\'s write lands conforms; its next step after it is the leak, at that step\'s line', () => {
    const text = reuse('buggy', ['state-slot-reuse']);
    const early = [...text.slice(0, -1), ev('decode', 'A', { pages: [0, 1], step: 0 }), text.at(-1)!];
    expect(summary(run(early))).toBe('conforms - -');
    expect(summary(run([...early, ev('decode', 'A', { pages: [0, 1], step: 1 })]))).toBe('violation Isolation 11');
  });

  it('owner-check does not stop it (the tags guard pages, not the state slot)', () => {
    expect(summary(run([...reuse('owner-check', ['state-slot-reuse']), ev('decode', 'A', { pages: [0, 1], step: 0 })]))).toBe('violation Isolation 10');
  });

  it('hardened: slot-freed-with-request keeps the slot to A\'s release; the slot returned at the commit, or B taking it, is a deviation', () => {
    const atCommit = run(reuse('hardened', ['state-slot-reuse']));
    expect([summary(atCommit), atCommit.refusals[0]?.why]).toEqual(['deviation - 6', 'A still holds state slot 0: A is handedOff, and the spec returns the slot at its release (free or timeout)']);
    const taken = run(reuse('hardened', ['state-slot-reuse'], 0, false));
    expect([summary(taken), taken.refusals[0]?.why]).toEqual(['deviation - 7', 'allocate(B): state slot 0 is still held by another request']);
    const ok = [...reuse('hardened', ['state-slot-reuse'], 1, false), ev('decode', 'A', { pages: [0, 1], step: 0 }), ev('free', 'A', { pages: [0, 1] }), ev('slotFree', 'A', { stateSlot: 0 })];
    expect(summary(run(ok))).toBe('conforms - -');
  });

  it('without the fault the slotFree after the commit is a deviation, and so is a slotFree naming another slot', () => {
    expect(summary(run(reuse('buggy', [])))).toBe('deviation - 6');
    const wrong = run([...reuse('buggy', [], 1, false), ev('decode', 'A', { pages: [0, 1], step: 0 }), ev('free', 'A', { pages: [0, 1] }), ev('slotFree', 'A', { stateSlot: 2 })]);
    expect([summary(wrong), wrong.refusals[0]?.why]).toEqual(['deviation - 11', "A's state slot is 0; the log says 2"]);
  });
});

// A and B both get metadata row 0; A's write lands, then B's, then A commits.
const collide = (variant: string, faults: readonly string[], bRow = 0): string[] => [
  setting(variant, faults),
  ev('arrive', 'A', { length: 2 }),
  ev('arrive', 'B', { length: 2 }),
  ev('allocate', 'A', { pages: [0, 1], stateSlot: 0, metadataRow: 0 }),
  ev('allocate', 'B', { pages: [2, 3], stateSlot: 1, metadataRow: bRow }),
  ev('done', 'A'),
  ev('done', 'B'),
  ev('handoff', 'A'),
];

describe('metadata-collision: two requests in flight with one metadata row', () => {
  it('buggy: A\'s commit reads B\'s first token from the shared row: Isolation at the handoff line', () => {
    const r = run(collide('buggy', ['metadata-collision']));
    expect(summary(r)).toBe('violation Isolation 8');
    expect(r.headline).toEqual(["A read its metadata row, which holds B's first output token."]);
  });

  it('A committing before B\'s write lands conforms; without row ids the spec hands out row 0 twice all the same', () => {
    const text = collide('buggy', ['metadata-collision']);
    expect(summary(run([...text.slice(0, 5), text[5]!, text[7]!, text[6]!]))).toBe('conforms - -');
    const unnamed = text.map((l) => l.replace(/,"stateSlot":\d,"metadataRow":\d/, ''));
    expect(summary(run(unnamed))).toBe('violation Isolation 8');
  });

  it('without the fault, and under hardened (metadata-alloc-checks-holder), B naming A\'s row is a deviation; another row conforms', () => {
    for (const [variant, faults] of [['buggy', []], ['hardened', ['metadata-collision']]] as const) {
      const r = run(collide(variant, faults));
      expect([summary(r), r.refusals[0]?.why]).toEqual(['deviation - 5', 'allocate(B): metadata row 0 is still held by another request']);
      expect(summary(run(collide(variant, faults, 1)))).toBe('conforms - -');
    }
  });
});

describe('state slots as input', () => {
  it('a bad slot id is exit 2 naming the field and the value', () => {
    expect(() => run([setting('buggy', []), ev('arrive', 'A', { length: 1 }), ev('allocate', 'A', { pages: [0], stateSlot: -1 })])).toThrow('slots.jsonl:3: stateSlot: expected a slot index');
    expect(() => run([setting('buggy', []), ev('arrive', 'A', { length: 1 }), ev('slotFree', 'A', { stateSlot: 'x' })])).toThrow('slots.jsonl:3: stateSlot:');
    expect(() => run([setting('buggy', []), ev('arrive', 'A', { length: 1 }), ev('slotFree', 'A')])).toThrow('slots.jsonl:3: stateSlot:');
  });

  it('the fast decoder reads the slot fields as Schema does: 2,000 random allocate and slotFree lines', () => {
    const value = fc.oneof(fc.integer({ min: -2, max: 9 }), fc.constant(2 ** 53), fc.constant(1.5), fc.constant('3'), fc.constant(null));
    const line = fc.record({ kind: fc.constantFrom('allocate', 'slotFree'), id: fc.constant('A'), pages: fc.constantFrom(undefined, [0, [2, 3]]), stateSlot: value, metadataRow: value });
    const fast = fastAgreesWithSchema(line, 2000, 39);
    expect(fast).toBe(157);
  });

  it('a slot fault without stateSlots is exit 2 naming the field; stateSlots with radix is read (radix.ts keeps the ledger too)', () => {
    expect(() => run([config({ pages: 4, prefillLimit: 4, faults: ['state-slot-reuse'] }), ev('arrive', 'A', { length: 1 })])).toThrow('faults: fault state-slot-reuse needs stateSlots: true');
    const radix = run([...reuse('buggy', ['state-slot-reuse']).map((l, i) => (i === 0 ? setting('buggy', ['state-slot-reuse'], { radix: true, eviction: true }) : l)), ev('decode', 'A', { pages: [0, 1], step: 0 })]);
    expect([summary(radix), ...radix.headline]).toEqual(['violation Isolation 10', "A read state slot 0, which holds B's state."]);
  });
});
