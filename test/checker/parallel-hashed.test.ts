import { describe, expect, it } from 'vitest';
import { check, checkParallel, type Checkable, type CheckOptions, type CheckResult, type HashedSuccessors } from '../../checker/index.ts';
import { actionLabel, compile, configFrom, type Action, type Config, type Model } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { inFastFamily } from '../../binding/successors.ts';
import { bundledFactory } from './bundled-factory.ts';

/** The workers' factory: `specFactory`'s, its module bundled once for the file. */
const factoryOf = bundledFactory();

const requests = (lengths: readonly number[]) => lengths.map((length) => ({ length }));

/**
 * Configurations of the fast family, where the model gives its successors fingerprint
 * first and, without symmetry, both searches take that path. Counts are regression pins
 * of the one-worker search (`check --no-symmetry --workers 1`), the same ones
 * test/checker/parallel.test.ts pins through `check`.
 */
const FAMILY: readonly { name: string; config: Config; options: CheckOptions & { growAhead?: boolean }; states: number }[] = [
  {
    name: 'buggy, silent stub, 6 pages 2,3,2,3,2: stops at the leak',
    config: configFrom({ pages: 6, prefillLimit: 2, requests: requests([2, 3, 2, 3, 2]), variant: 'buggy', faults: ['silent-stub'] }),
    options: { symmetry: false },
    states: 1488,
  },
  {
    name: 'buggy, silent stub, 6 pages 2,3,2,3,2: whole space',
    config: configFrom({ pages: 6, prefillLimit: 2, requests: requests([2, 3, 2, 3, 2]), variant: 'buggy', faults: ['silent-stub'] }),
    options: { symmetry: false, continueAfterViolation: true },
    states: 45_164,
  },
  {
    // The table starts small and is not grown ahead: it fills within levels, and the threads wait for it to grow.
    name: 'length-fix, 7 pages 1,2,2,3,3, the table growing within a level',
    config: configFrom({ pages: 7, prefillLimit: 3, requests: requests([1, 2, 2, 3, 3]), variant: 'length-fix' }),
    options: { symmetry: false, continueAfterViolation: true, growAhead: false },
    states: 175_194,
  },
];

/** Everything a result says, traces as labels, that must not depend on the number of workers. */
const summary = (m: Model, r: CheckResult<Action>) => ({
  verdict: r.verdict,
  distinctStates: r.distinctStates,
  depth: r.depth,
  witnesses: r.witnesses,
  violations: r.violations.map((v) => ({ invariant: v.invariant, depth: v.depth, trace: v.trace.steps.map((s) => actionLabel(m, s.action)) })),
});

/** `model` with its fingerprint-first successors counted, and its other successor functions counted too. */
function counted(model: Checkable<Action>): { model: Checkable<Action>; calls: { hashed: number; written: number; plain: number } } {
  const calls = { hashed: 0, written: 0, plain: 0 };
  const hashed = model.fast!.hashed!;
  const spy: HashedSuccessors = {
    fingerprints: (s, h1, h2, z, sink) => {
      calls.hashed++;
      hashed.fingerprints(s, h1, h2, z, sink);
    },
    apply: (s, action, out) => {
      calls.written++;
      hashed.apply(s, action, out);
    },
  };
  const successors = model.fast!.successors!;
  return {
    model: {
      ...model,
      fast: {
        ...model.fast,
        hashed: spy,
        successors: (s, sink) => {
          calls.plain++;
          successors(s, sink);
        },
      },
    },
    calls,
  };
}

describe('the parallel search with fingerprint-first successors gives what the one-worker search gives', () => {
  it('every configuration is in the fast family and offers hashed successors', () => {
    for (const c of FAMILY) {
      const m = compile(c.config);
      expect(inFastFamily(m), c.name).toBe(true);
      expect(checkedModel(m).fast?.hashed, c.name).toBeDefined();
    }
  });

  // 3 workers: test/checker/parallel.test.ts compares these three configurations, with these options, with 2 workers (the
  // same fingerprint-first path); each search here started its workers for about 0.6 s of CPU a thread (issue 28).
  it('3 workers: the same counts, verdicts, witnesses and traces, action for action', async () => {
    for (const c of FAMILY) {
      const m = compile(c.config);
      const one = summary(m, check(checkedModel(m), c.options));
      expect(one.distinctStates, c.name).toBe(c.states);
      for (const workers of [3]) {
        // parallelFrom 0: every level goes to the workers, however small.
        const n = summary(m, await checkParallel(checkedModel(m), factoryOf(c.config), { ...c.options, workers, parallelFrom: 0 }));
        expect(n, `${c.name}, ${workers} workers`).toEqual(one);
      }
    }
    // The violating configuration's trace is a real one: the leak, at a depth below the whole space's.
    const stops = summary(compile(FAMILY[0]!.config), check(checkedModel(compile(FAMILY[0]!.config)), FAMILY[0]!.options));
    expect(stops.verdict).toBe('violation');
    expect(stops.violations[0]!.trace.length).toBe(stops.violations[0]!.depth);
  }, 120_000);

  it('takes the fingerprint-first path: successors are fingerprinted, and only the candidates are written', async () => {
    const c = FAMILY[1]!;
    const m = compile(c.config);
    const { model, calls } = counted(checkedModel(m));
    // parallelFrom infinity: the main thread does every level with this model.
    const r = await checkParallel(model, factoryOf(c.config), { ...c.options, workers: 2, parallelFrom: Number.POSITIVE_INFINITY });
    expect(summary(m, r)).toEqual(summary(m, check(checkedModel(m), c.options)));
    expect(calls.plain).toBe(0);
    // Every state is expanded once; the initial state is not written from a parent, every other stored state is, at least once.
    expect(calls.hashed).toBe(c.states);
    expect(calls.written).toBeGreaterThanOrEqual(c.states - 1);
    // Most successors are old states, which are never written.
    expect(calls.written).toBeLessThan(2 * c.states);
  }, 60_000);
});
