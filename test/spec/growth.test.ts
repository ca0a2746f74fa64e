/**
 * Table growth (config `tableGrowth`, action `grow`, SGLang's `alloc_decode`): a decode
 * step whose token falls past the table's last slot first takes one more page. Pinned
 * here: the counts and shortest traces of the configurations docs/SLOTS.md cites, the leak
 * through a grown page under `buggy`, what the owner check does with a grown page whose
 * tag or contents are stale, `hardened`'s verdict with every fault, and the deadlock
 * where no page can be had (SGLang retracts; the model has no `retract` yet).
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import type { Checkable } from '../../checker/model.ts';
import {
  actionLabel,
  allActions,
  compile,
  configFrom,
  dataOf,
  dataPosOf,
  decodeConfig,
  FAULTS,
  Integrity,
  Isolation,
  matrixConfig,
  phaseOf,
  Ph,
  TableGrew,
  tableOf,
  tagOf,
  view,
  type Action,
  type Config,
  type Fault,
  type Model,
  type Variant,
} from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { inFastFamily } from '../../binding/family.ts';
import { runLabels } from './helpers.ts';
import { pagecheck } from '../support/cli.ts';
import { toPromela } from '../../spin/promela.ts';
import { referenceFor } from '../../scale/to-spec.ts';
import { decodeConfigObject } from '../../conformance/events.ts';

const READS = [Isolation, Integrity];
const labels = (m: Model, steps: readonly { readonly action: Action }[]): string[] => steps.map((s) => actionLabel(m, s.action));

/** The minimal incident (3 pages, prefill limit 2, A of 2 pages then B of 3), two decode steps, the table growing. */
const incident = (variant: Variant, faults?: readonly Fault[], extra: Partial<Config> = {}): Model =>
  compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }], variant, ...(faults === undefined ? {} : { faults: [...faults] }), decodeSteps: 2, tableGrowth: true, ...extra }));

/** `m` checked with one more invariant, by name: the search reports a shortest trace to where `holds` first fails. */
function withInvariant(m: Model, name: string, holds: (s: Uint8Array) => boolean): Checkable<Action> {
  const base = checkedModel(m);
  return { ...base, properties: [...base.properties, { name, kind: 'always', holds }] };
}

/** A leak at a table position past the prompt's pages: through a page `grow` added. */
const leaksAtGrown = (m: Model) => (s: Uint8Array): boolean => (Isolation.breach!(m, s)?.pages ?? []).every((p) => p.i < m.promptPages[p.r]!);

describe('the configuration', () => {
  it('tableGrowth needs two decode steps or more, and a boolean; refused naming the field otherwise', () => {
    const base = { pages: 3, prefillLimit: 2, requests: [{ length: 1 }] };
    const one = decodeConfig({ ...base, tableGrowth: true });
    expect(one._tag === 'Left' && one.left.message).toMatch(/^tableGrowth: .*needs decodeSteps of 2 or more, got 1$/);
    const text = decodeConfig({ ...base, decodeSteps: 2, tableGrowth: 'yes' });
    expect(text._tag === 'Left' && text.left.message).toBe('tableGrowth: expected true or false, got "yes"');
    // false is the default, and is left out of the decoded configuration
    expect(configFrom({ ...base, tableGrowth: false })).not.toHaveProperty('tableGrowth');
  });

  it('the table has room for the prompt and every token its steps write; allocate takes the prompt\'s pages only', () => {
    const m = compile(configFrom({ pages: 4, pageSize: 2, prefillLimit: 4, requests: [{ length: 4 }, { length: 3 }], decodeSteps: 3, tableGrowth: true }));
    // A: 4 tokens + 2 written = 6 slots, 3 pages; B: 3 + 2 = 5 slots, 3 pages
    expect([Array.from(m.promptPages), Array.from(m.len)]).toEqual([[2, 2], [3, 3]]);
    const { last } = runLabels(m.config, ['allocate(A)']);
    expect(tableOf(m, last, 0)).toEqual([0, 1]);
  });

  it('grow is a kind of its own, right before decode, only under tableGrowth; the fast path refuses it', () => {
    const m = incident('buggy');
    expect([...new Set(allActions(m).map((a) => a.kind))]).toEqual(['allocate', 'prefill', 'stub', 'handoff', 'grow', 'decode', 'free']);
    expect(allActions(incident('buggy', undefined, { tableGrowth: false, decodeSteps: 2 })).some((a) => a.kind === 'grow')).toBe(false);
    expect(inFastFamily(m)).toBe(false);
  });
});

describe('a small configuration that grows: 3 pages, A and B of 1 page, 2 decode steps', () => {
  const m = compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 1 }, { length: 1 }], decodeSteps: 2, tableGrowth: true }));

  it('buggy holds, 76 states, depth 14, TableGrew reached', () => {
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 76, 14]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });

  it('the shortest way to a grown table is 5 actions: A served to its first step, then its page for the token', () => {
    const r = check(withInvariant(m, 'NeverGrows', (s) => !TableGrew.holds(m, s)), { invariants: [{ name: 'NeverGrows' }] });
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['NeverGrows', 5]]);
    expect(labels(m, r.violations[0]!.trace.steps)).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'grow(A)']);
  });

  it('the token is written into the grown page and read at the next step; the page is freed with the table', () => {
    const m3 = compile({ ...m.config, decodeSteps: 3 });
    const { last, trace } = runLabels(m3.config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'grow(A)', 'decode(A)', 'grow(A)', 'decode(A)']);
    expect(view(m3, last).requests[0]).toMatchObject({ phase: 'decoded', table: [0, 1, 2], read: ['A'] });
    expect(view(m3, last).pages.map((p) => p.data)).toEqual(['A', 'A', 'A']);
    // decode waits for grow: with the token's page missing, the step is not enabled
    expect(() => runLabels(m3.config, ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'decode(A)'])).toThrow('step 5: decode(A) is not enabled');
    const freed = runLabels(m3.config, [...trace.steps.map((s) => actionLabel(m3, s.action)), 'free(A)']);
    expect(view(m3, freed.last).pages.map((p) => p.holder)).toEqual([null, null, null]);
  });

  it('with token slots the table grows only when the token falls past the last slot (27 states, depth 13)', () => {
    const slots = compile(configFrom({ pages: 3, pageSize: 2, prefillLimit: 4, requests: [{ length: 4 }, { length: 3 }], decodeSteps: 2, tableGrowth: true }));
    const r = check(checkedModel(slots));
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 27, 13]);
    // A's 4 tokens fill its 2 pages: its token needs a third; B's 3 leave a slot free in its second
    expect(Array.from(slots.len)).toEqual([3, 2]);
  });

  it('where nothing can free a page the request waits, and the search reports Deadlock (SGLang would retract)', () => {
    const two = compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 1 }], decodeSteps: 2, tableGrowth: true }));
    const r = check(checkedModel(two));
    expect([r.verdict, r.distinctStates]).toEqual(['violation', 49]);
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['Deadlock', 8]]);
    expect(labels(two, r.violations[0]!.trace.steps)).toEqual(['allocate(A)', 'allocate(B)', 'prefill(A)', 'prefill(B)', 'handoff(A)', 'handoff(B)', 'decode(A)', 'decode(B)']);
  });
});

describe('which page grow takes: the allocation order\'s own rule', () => {
  it('sorted the lowest free id, lifo the page freed last, sglang the front of its free list: alloc_decode merges only when it is empty', () => {
    const run = ['allocate(A)', 'allocate(B)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'grow(A)', 'decode(A)', 'free(A)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'grow(B)'];
    const tableOfB = (allocator: 'sorted' | 'sglang' | 'lifo'): number[] => {
      const { m, last } = runLabels(configFrom({ pages: 4, pageSize: 2, prefillLimit: 4, requests: [{ length: 2 }, { length: 2 }], allocator, decodeSteps: 2, tableGrowth: true }), run);
      return tableOf(m, last, 1);
    };
    // sglang: A's pages 1 and 3 wait in the release list; one page (4) is left on the free list, and alloc_decode
    // takes it (alloc_extend's test, need + 2 > free, would have merged and handed out 1)
    expect([tableOfB('sorted'), tableOfB('lifo'), tableOfB('sglang')]).toEqual([[1, 0], [2, 1], [2, 4]]);
  });
});

describe('the incident with growth: 3 pages, A (2 pages) then B (3 pages), 2 decode steps', () => {
  it('buggy: B cannot grow past the pool, so the search stops at a Deadlock in 4 actions (9 states)', () => {
    const m = incident('buggy');
    const r = check(checkedModel(m));
    expect([r.verdict, r.distinctStates, r.violations.map((v) => [v.invariant, v.depth])]).toEqual(['violation', 9, [['Deadlock', 4]]]);
  });

  it('buggy, deadlocks aside: an 11-action leak, B reading A\'s prompt page and A\'s grown page, which holds A\'s generated token', () => {
    const m = incident('buggy');
    const r = check(checkedModel(m), { deadlock: false });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['violation', 16, 11]);
    const trace = r.violations[0]!.trace;
    expect(labels(m, trace.steps)).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'grow(A)', 'decode(A)', 'free(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)']);
    // page 2 is A's grown page: its content is the token A's second step wrote, at table position 2
    expect(Isolation.breach!(m, trace.steps.at(-1)!.state)?.pages).toEqual([
      { r: 1, i: 1, page: 1 },
      { r: 1, i: 2, page: 2 },
    ]);
    // A's prompt is 2 pages: content written for A's position 2 is the token its second step wrote into its grown page
    const last = trace.steps.at(-1)!.state;
    expect([dataOf(m, last, 2), dataPosOf(m, last, 2), m.promptPages[0]]).toEqual([1, 2, 2]);
    // B reads it as a page of its own prompt: no leak at a position B itself grew (B never grows: the pool has no fourth page)
    const atGrown = check(withInvariant(m, 'LeakAtGrown', leaksAtGrown(m)), { invariants: [{ name: 'LeakAtGrown' }], deadlock: false });
    expect([atGrown.verdict, atGrown.distinctStates]).toEqual(['holds', 16]);
  });

  it('length-fix holds (20 states, depth 10) and owner-check holds (25 states, depth 12), every witness reached', () => {
    for (const [variant, states, depth] of [['length-fix', 20, 10], ['owner-check', 25, 12]] as const) {
      const r = check(checkedModel(incident(variant)), { invariants: READS });
      expect([variant, r.verdict, r.distinctStates, r.depth]).toEqual([variant, 'holds', states, depth]);
      expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
    }
  });

  it('the allocation orders agree on the leak with a fourth page (sorted, sglang, lifo: 22 states; any: 103), 11 actions each', () => {
    for (const [allocator, states] of [['sorted', 22], ['sglang', 22], ['lifo', 22], ['any', 103]] as const) {
      const r = check(checkedModel(incident('buggy', undefined, { pages: 4, allocator })), { deadlock: false });
      expect([allocator, r.verdict, r.distinctStates, r.violations[0]?.depth]).toEqual([allocator, 'violation', states, 11]);
    }
  });
});

describe('a grown page with a stale tag or late contents, under the owner check', () => {
  // pages of 2 tokens; A and B fill one page each, B's second step writes its token into a page of its own
  const slots = (variant: Variant, faults: readonly Fault[]): Model =>
    compile(configFrom({ pages: 2, pageSize: 2, prefillLimit: 4, requests: [{ length: 2 }, { length: 2 }], variant, faults: [...faults], decodeSteps: 3, tableGrowth: true }));
  const served = ['allocate(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'timeout(A)'];

  it('grow clears the stale tag of the page it takes (A\'s late write had tagged it), and B is served from its own data', () => {
    const m = slots('owner-check', ['early-free']);
    const before = runLabels(m.config, ['allocate(A)', 'allocate(B)', 'timeout(A)', 'prefill(A)', 'prefill(B)', 'handoff(B)', 'decode(B)']);
    expect(tagOf(m, before.last, 0)).toBe(1);
    const { last } = runLabels(m.config, ['allocate(A)', 'allocate(B)', 'timeout(A)', 'prefill(A)', 'prefill(B)', 'handoff(B)', 'decode(B)', 'grow(B)', 'decode(B)', 'decode(B)']);
    expect(view(m, last).requests[1]).toMatchObject({ phase: 'decoded', table: [1, 0], read: ['B'] });
  });

  it('a late write that lands whole in the grown page after the token is caught: B fails loudly (buggy leaks on the same run)', () => {
    const run = [...served, 'grow(B)', 'decode(B)', 'prefill(A)', 'decode(B)'];
    const caught = runLabels(slots('owner-check', ['early-free']).config, run);
    expect(phaseOf(caught.m, caught.last, 1)).toBe(Ph.failed);
    expect(Isolation.holds(caught.m, caught.last)).toBe(true);
    const leaked = runLabels(slots('buggy', ['early-free']).config, run);
    expect(Isolation.breach!(leaked.m, leaked.last)?.pages).toEqual([{ r: 1, i: 1, page: 0 }]);
  });

  it('owner-check with early-free holds (115 states, depth 16); with torn writes, a 13-action leak through the grown page', () => {
    const whole = check(checkedModel(slots('owner-check', ['early-free'])), { invariants: READS, deadlock: false });
    expect([whole.verdict, whole.distinctStates, whole.depth]).toEqual(['holds', 115, 16]);
    const m = slots('owner-check', ['early-free', 'torn-write']);
    const r = check(withInvariant(m, 'LeakAtGrown', leaksAtGrown(m)), { invariants: [{ name: 'LeakAtGrown' }], deadlock: false });
    expect(r.violations.map((v) => [v.invariant, v.depth])).toEqual([['LeakAtGrown', 13]]);
    // A's late content lands after B's token stamped the page's tag B: the tag passes, the content is A's
    expect(labels(m, r.violations[0]!.trace.steps)).toEqual([
      'allocate(A)', 'allocate(B)', 'prefill(A)', 'prefill(B)', 'timeout(A)', 'landData(B)', 'landTag(B)', 'handoff(B)', 'decode(B)', 'grow(B)', 'decode(B)', 'landData(A)', 'decode(B)',
    ]);
  });

  it('hardened stops it: revoke-writer drops A\'s late parts (219 states, depth 20)', () => {
    const r = check(checkedModel(slots('hardened', ['early-free', 'torn-write'])), { invariants: READS, deadlock: false });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 219, 20]);
  });
});

describe('a fault that growth makes leak: double-free', () => {
  // the matrix's configuration (A 2 pages, B 3 and C 2 with prefix sys), two decode steps, the table growing
  const matrix = (variant: Variant): Model => compile({ ...matrixConfig(variant, ['double-free']), decodeSteps: 2, tableGrowth: true });

  it('buggy: the grown page is handed out twice and A\'s token lands in C\'s page: a 14-action leak (without growth the cell holds)', () => {
    const m = matrix('buggy');
    const r = check(checkedModel(m), { invariants: [Isolation], deadlock: false });
    expect([r.verdict, r.violations[0]?.depth]).toEqual(['violation', 14]);
    expect(labels(m, r.violations[0]!.trace.steps)).toEqual([
      'allocate(B)', 'stub(B)', 'free(B)', 'free(B)', 'allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'grow(A)', 'allocate(C)', 'prefill(C)', 'handoff(C)', 'decode(A)', 'decode(C)',
    ]);
    const fixed = check(checkedModel(compile({ ...matrixConfig('buggy', ['double-free']), decodeSteps: 2 })), { invariants: [Isolation], deadlock: false });
    expect(fixed.verdict).toBe('holds');
  });

  it('owner-check: the token write stamps A\'s tag on C\'s page and C fails loudly: Isolation holds (1,438 states)', () => {
    const r = check(checkedModel(matrix('owner-check')), { invariants: [Isolation], deadlock: false });
    expect([r.verdict, r.distinctStates]).toEqual(['holds', 1438]);
  });
});

describe('hardened with growth and every fault', () => {
  const STUBBING: readonly Fault[] = FAULTS.filter((f) => f !== 'auto-truncate');

  it('the incident: Isolation and Integrity hold with every fault (1,556 states, depth 24; 624 and 20 before the wire faults of issue 24; with auto-truncate 3,420, depth 26)', () => {
    const r = check(checkedModel(incident('hardened', STUBBING)), { invariants: READS, deadlock: false });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 1556, 24]);
    const all = check(checkedModel(incident('hardened', FAULTS)), { invariants: READS, deadlock: false });
    expect([all.verdict, all.distinctStates, all.depth]).toEqual(['holds', 3420, 26]);
  });

  it('issue 14\'s acceptance configuration with growth: they hold (79,890 states, depth 39; 28,344 and 33 before the wire faults of issue 24), every witness reached', { timeout: 60_000 }, () => {
    const m = compile(configFrom({ pages: 3, prefillLimit: 2, requests: [{ length: 2 }, { length: 3, prefix: 'sys' }, { length: 2, prefix: 'sys' }], variant: 'hardened', faults: [...STUBBING], decodeSteps: 2, tableGrowth: true }));
    const r = check(checkedModel(m), { invariants: READS, deadlock: false });
    expect([r.verdict, r.distinctStates, r.depth]).toEqual(['holds', 79890, 39]);
    expect(r.witnesses.filter((w) => w.applies && !w.reached).map((w) => w.name)).toEqual([]);
  });
});

describe('the command line, and the consumers that do not follow growth', () => {
  const INCIDENT = ['--pages', '3', '--prefill-limit', '2', '--requests', '2,3', '--decode-steps', '2', '--table-growth'];

  it('check --table-growth reports the Deadlock loudly (exit 1), and its replay line keeps the flag', async () => {
    const { code, out } = await pagecheck('check', ...INCIDENT);
    expect(code).toBe(1);
    expect(out).toContain('Deadlock (shortest counterexample: 4 actions)');
    expect(/^replay: (.*)$/m.exec(out)?.[1]).toContain('--table-growth');
  });

  it('--table-growth without two decode steps is exit 2, one line naming the flag', async () => {
    const { code, err } = await pagecheck('check', '--pages', '3', '--prefill-limit', '2', '--requests', '2,3', '--table-growth');
    expect(code).toBe(2);
    expect(err.trim()).toBe('pagecheck: invalid model configuration: --table-growth: the table grows only when a decode step writes a token past its last slot, and only steps after the first write one: needs decodeSteps of 2 or more, got 1');
  });

  it('export refuses it with exit 2 naming --table-growth; SPIN\'s model refuses tableGrowth; mbt, validate-log and the scale reference follow it', async () => {
    const { code, err } = await pagecheck('export', 'promela', ...INCIDENT);
    expect(code).toBe(2);
    expect(err).toContain('--table-growth: ');
    // the pool grows its table as the spec does (impl/stepping-pool.ts): the buggy incident leaks, and the replay keeps the flag
    const mbt = await pagecheck('mbt', ...INCIDENT);
    expect(mbt.code).toBe(1);
    expect(mbt.out).toContain('grow(A)');
    expect(/^replay: (.*)$/m.exec(mbt.out)?.[1]).toContain('--table-growth');
    const m = incident('buggy');
    expect(() => toPromela(m.config)).toThrow('the Promela model keeps a fixed page table: it has no table growth (action grow)');
    // The scale reference grows its tables since issue 23 (scale/reference-life.ts; test/scale/reference.test.ts holds it to the spec).
    expect(() => referenceFor(m)).not.toThrow();
    // validate-log reads tableGrowth since issue 25 (the grow event).
    const log = decodeConfigObject({ pages: 3, prefillLimit: 2, tableGrowth: true });
    expect(log._tag === 'Right' && log.right.tableGrowth).toBe(true);
  });
});
