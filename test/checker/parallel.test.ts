import { describe, expect, it } from 'vitest';
import { check, checkParallel, type CheckOptions, type CheckResult } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, FAULTS, incidentConfig, VARIANTS, withFaultSwitches, type Action, type Config, type Model } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { bundledFactory } from './bundled-factory.ts';

/**
 * Every configuration whose counts are pinned in test/checker and test/spin, with the options they are pinned under.
 * The faults reach a worker's model through its configuration (`specFactory`): two configurations carry every fault, one
 * with every switch the faults act under (eviction, retraction, P's source pages, drafts, state slots, the host tier's loads), so a fault or a switch
 * lost on the way to a worker changes their counts. A search's worker costs about 0.6 s of CPU to start: one matrix cell per
 * fault column took 12 s of this file's CPU, and the matrix's every-fault configuration (4,370,285 states) 18 s (issue 28);
 * the matrix's cells are pinned by test/checker/matrix.test.ts.
 */
const PINNED: readonly { name: string; config: Config; options: CheckOptions }[] = [
  ...VARIANTS.flatMap((v) => [
    { name: `incident ${v}`, config: incidentConfig(v), options: {} },
    { name: `incident ${v}, whole space`, config: incidentConfig(v), options: { continueAfterViolation: true, symmetry: false } },
  ]),
  // Six invariants broken at depths 6 to 11: a first trace per invariant, each cut at its own level.
  { name: 'incident buggy, every fault, raw (7,848 states)', config: { ...incidentConfig('buggy'), faults: [...FAULTS] }, options: { symmetry: false, continueAfterViolation: true } },
  {
    name: 'incident hardened, every fault and its switches, raw (42,156 states)',
    config: withFaultSwitches({ ...incidentConfig('hardened'), faults: [...FAULTS] }),
    options: { symmetry: false, continueAfterViolation: true },
  },
  { name: '4 pages 2,2,3', config: configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2 }, { length: 2 }, { length: 3 }] }), options: {} },
  { name: '5 pages 2,2,2, raw', config: configFrom({ pages: 5, prefillLimit: 2, requests: [{ length: 2 }, { length: 2 }, { length: 2 }] }), options: { symmetry: false, continueAfterViolation: true } },
  {
    name: 'owner-check 1,2,2,1, reduced',
    config: configFrom({ pages: 4, prefillLimit: 1, requests: [{ length: 1 }, { length: 2 }, { length: 2 }, { length: 1 }], variant: 'owner-check' }),
    options: { continueAfterViolation: true },
  },
  {
    name: 'shared prefix, two faults',
    config: configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2, prefix: 's' }, { length: 2, prefix: 's' }, { length: 3 }], faults: ['silent-stub', 'stale-free', 'prefix-poison'] }),
    options: { continueAfterViolation: true },
  },
  {
    name: 'early-free and stale-free, raw',
    config: configFrom({ pages: 4, prefillLimit: 1, requests: [{ length: 2 }, { length: 2 }, { length: 2 }], faults: ['early-free', 'stale-free'] }),
    options: { symmetry: false, continueAfterViolation: true },
  },
  { name: 'the deadlock', config: configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2 }] }), options: {} },
  { name: 'the deadlock, whole space', config: configFrom({ pages: 2, prefillLimit: 2, requests: [{ length: 2, prefix: 'sys' }, { length: 2 }] }), options: { continueAfterViolation: true } },
  { name: '6 pages 2,3,2,3,2 (stops at the leak)', config: configFrom({ pages: 6, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }, { length: 2 }, { length: 3 }, { length: 2 }] }), options: { symmetry: false } },
  { name: '6 pages 2,3,2,3,2, whole space', config: configFrom({ pages: 6, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }, { length: 2 }, { length: 3 }, { length: 2 }] }), options: { symmetry: false, continueAfterViolation: true } },
  { name: 'budget', config: incidentConfig('owner-check'), options: { maxStates: 10 } },
  ...(['buggy', 'length-fix'] as const).map((variant) => ({
    name: `4 pages 2,3,1 ${variant}, whole space`,
    config: configFrom({ pages: 4, prefillLimit: 2, requests: [{ length: 2 }, { length: 3 }, { length: 1 }], variant }),
    options: { symmetry: false, continueAfterViolation: true },
  })),
  {
    name: '7 pages 1,2,2,3,3 length-fix, raw (172,114 states)',
    config: configFrom({ pages: 7, prefillLimit: 3, requests: [{ length: 1 }, { length: 2 }, { length: 2 }, { length: 3 }, { length: 3 }], variant: 'length-fix' }),
    options: { symmetry: false, continueAfterViolation: true },
  },
];

/** The workers' factory: `specFactory`'s, its module bundled once for the file (bundled-factory.ts). */
const factoryOf = bundledFactory();

/** Everything a result says, traces as labels, that must not depend on the number of workers. */
const summary = (m: Model, r: CheckResult<Action>) => ({
  verdict: r.verdict,
  distinctStates: r.distinctStates,
  depth: r.depth,
  witnesses: r.witnesses,
  violations: r.violations.map((v) => ({ invariant: v.invariant, depth: v.depth, trace: v.trace.steps.map((s) => actionLabel(m, s.action)) })),
});

/** The pinned configurations that stop in the middle of a level (a violation, a deadlock, the budget) or are the largest: where a wrong cut or numbering shows first. */
const SAMPLE = PINNED.filter((c) => /deadlock|budget|stops at|172,114|incident (buggy|owner-check)$/.test(c.name));

/** One thread's summary of each configuration, searched once for all the tests below. */
const singles = new Map<string, ReturnType<typeof summary>>();
function single(c: (typeof PINNED)[number], m: Model): ReturnType<typeof summary> {
  let s = singles.get(c.name);
  if (s === undefined) singles.set(c.name, (s = summary(m, check(checkedModel(m), c.options))));
  return s;
}

describe('--workers N gives what --workers 1 gives, on every pinned configuration', () => {
  it('2 workers: same counts, verdicts, witnesses, and the same shortest traces, action for action', async () => {
    for (const c of PINNED) {
      const m = compile(c.config);
      const one = single(c, m);
      // parallelFrom 0: every level goes to the two threads, however small.
      const two = summary(m, await checkParallel(checkedModel(m), factoryOf(c.config), { ...c.options, workers: 2, parallelFrom: 0 }));
      expect(two, c.name).toEqual(one);
    }
    expect(PINNED.filter((c) => c.name.includes('every fault')).map((c) => singles.get(c.name)?.distinctStates)).toEqual([7_848, 42_156]);
  }, 300_000);

  it('1 and 3 workers as well, on the configurations that cut a level or are largest', async () => {
    expect(SAMPLE.length).toBeGreaterThanOrEqual(7);
    for (const c of SAMPLE) {
      const m = compile(c.config);
      const one = single(c, m);
      for (const workers of [1, 3]) {
        const n = summary(m, await checkParallel(checkedModel(m), factoryOf(c.config), { ...c.options, workers, parallelFrom: 0 }));
        expect(n, `${c.name}, ${workers} workers`).toEqual(one);
      }
    }
  }, 300_000);

  it('the same when the table fills within a level and the threads wait for it to grow', async () => {
    const c = PINNED.at(-1)!;
    const m = compile(c.config);
    const grown = await checkParallel(checkedModel(m), factoryOf(c.config), { ...c.options, workers: 2, parallelFrom: 0, growAhead: false });
    expect(summary(m, grown)).toEqual(single(c, m));
    expect(grown.distinctStates).toBe(175_194);
  }, 120_000);

  it('the main thread alone (a level below parallelFrom) gives the same as well', async () => {
    const c = PINNED.at(-1)!;
    const m = compile(c.config);
    const alone = await checkParallel(checkedModel(m), factoryOf(c.config), { ...c.options, workers: 2, parallelFrom: Number.POSITIVE_INFINITY });
    expect(summary(m, alone)).toEqual(single(c, m));
  }, 300_000);

  it('with partial-order reduction: the same reduced counts and the same re-found traces as one thread', async () => {
    const reducing = PINNED.filter((c) => /deadlock|stops at|172,114|owner-check 1,2,2,1|incident buggy$/.test(c.name));
    for (const c of reducing) {
      const m = compile(c.config);
      const options = { ...c.options, por: true };
      const one = check(checkedModel(m), options);
      const two = await checkParallel(checkedModel(m), factoryOf(c.config), { ...options, workers: 2, parallelFrom: 0 });
      expect([summary(m, two), two.reduction], c.name).toEqual([summary(m, one), one.reduction]);
    }
  }, 300_000);

  it('a worker that cannot build its model fails the search with its error', async () => {
    const config = incidentConfig('buggy');
    const bad = { module: new URL('./no-such-model.ts', import.meta.url).href, config };
    await expect(checkParallel(checkedModel(compile(config)), bad, { workers: 2, parallelFrom: 0 })).rejects.toThrow(/no-such-model/);
  }, 60_000);
});
