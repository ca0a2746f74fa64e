/**
 * State counts for the four allocation orders (docs/ALLOCATOR.md) on several
 * configurations, the whole reachable space each (`continueAfterViolation`), with the
 * first violation of each invariant. Produced by `check(checkedModel(m), { continueAfterViolation:
 * true })` with symmetry on; the command line of each row is
 * `npm run -s pagecheck -- check --continue --prefill-limit 2 --allocator ORDER <flags>`.
 */
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { actionLabel, compile, ExclusiveHold, HandedOutTwice, Isolation, requestName, tableOf, lastState, type Allocator, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { MINIMAL_LEAK } from '../spec/helpers.ts';

const config = (pages: number, lengths: number[], variant: Variant, faults: Fault[], allocator: Allocator): Config => ({
  pages,
  prefillLimit: 2,
  requests: lengths.map((length, i) => ({ name: requestName(i), length })),
  variant,
  faults,
  allocator,
});

/** flags, then per order (sorted, sglang, lifo, any): states, depth, first violations. */
const EXPECTED = `
--pages 3 --requests 2,3 --variant buggy                                                  | 21 10 Isolation@9 | 21 10 Isolation@9 | 21 10 Isolation@9 | 52 10 Isolation@9
--pages 3 --requests 2,3 --variant length-fix                                             | 16 8 | 17 8 | 16 8 | 26 8
--pages 4 --requests 2,3,1 --variant buggy                                                | 363 15 Isolation@9 | 296 15 Isolation@9 | 399 15 Isolation@9 | 799 15 Isolation@9
--pages 4 --requests 1,1,2 --variant owner-check --faults silent-stub,early-free,stale-free | 10187 18 ExclusiveHold@5 Conservation@5 NoUseAfterFree@5 ReadsOwnPages@8 | 2449 18 | 17973 18 ExclusiveHold@5 Conservation@5 NoUseAfterFree@5 ReadsOwnPages@8 | 8504 18 ExclusiveHold@5 Conservation@5 NoUseAfterFree@5 ReadsOwnPages@8
--pages 3 --requests 1,1,2 --variant buggy --faults double-free                            | 1019 18 Conservation@6 NoDuplicateFree@6 NoUseAfterFree@7 ExclusiveHold@7 ReadsOwnPages@11 Isolation@12 | 747 18 Conservation@6 NoDuplicateFree@6 ExclusiveHold@8 NoUseAfterFree@8 | 1651 18 Conservation@6 NoDuplicateFree@6 NoUseAfterFree@7 ExclusiveHold@7 ReadsOwnPages@11 Isolation@12 | 1451 18 Conservation@6 NoDuplicateFree@6 NoUseAfterFree@7 ExclusiveHold@7 ReadsOwnPages@11 Isolation@12
`;

const ORDERS: readonly Allocator[] = ['sorted', 'sglang', 'lifo', 'any'];

/** The configuration a row's flags describe (prefill limit 2). */
function fromFlags(flags: string, allocator: Allocator): Config {
  const arg = (name: string): string => flags.match(new RegExp(`--${name} (\\S+)`))?.[1] ?? '';
  const faults = arg('faults');
  const variant = arg('variant') as Variant;
  return config(Number(arg('pages')), arg('requests').split(',').map(Number), variant, faults === '' ? (variant === 'length-fix' ? [] : ['silent-stub']) : (faults.split(',') as Fault[]), allocator);
}

describe('state counts per allocation order', () => {
  for (const line of EXPECTED.trim().split('\n')) {
    const [flags = '', ...cells] = line.split('|').map((x) => x.trim());
    it(flags, () => {
      const got = ORDERS.map((allocator) => {
        const r = check(checkedModel(compile(fromFlags(flags, allocator))), { continueAfterViolation: true });
        return [r.distinctStates, r.depth, ...r.violations.map((v) => `${v.invariant}@${v.depth}`)].join(' ');
      });
      expect(got).toEqual(cells);
    }, 60_000);
  }

  it('under any, every violation found under another order is found too (any over-approximates them all)', () => {
    for (const line of EXPECTED.trim().split('\n')) {
      const cells = line.split('|').slice(1).map((c) => new Set(c.trim().split(' ').slice(2).map((v) => v.split('@')[0])));
      for (const other of cells.slice(0, 3)) for (const name of other) expect(cells[3]!.has(name), `${line.split('|')[0]}: ${name}`).toBe(true);
    }
  });
});

describe('the minimal incident under sglang', () => {
  it('keeps its 9 actions, with page ids from 1 (page 0 is the padding page)', () => {
    const m = compile(config(3, [2, 3], 'buggy', ['silent-stub'], 'sglang'));
    const r = check(checkedModel(m));
    const trace = r.violations[0]!.trace;
    expect(trace.steps.map((s) => actionLabel(m, s.action))).toEqual([...MINIMAL_LEAK]);
    // A's table as it was at its decode (step 4); after its free the table is dead and empty.
    expect(tableOf(m, trace.steps[3]!.state, 0)).toEqual([1, 2]);
    expect(tableOf(m, lastState(trace), 1)).toEqual([1, 2, 3]);
  });
});

describe('fault double-free', () => {
  it('ExclusiveHold: the shortest trace in which one page has two live owners (8 actions; --pages 2 --requests 1,1,1 --faults double-free --invariant ExclusiveHold)', () => {
    const m = compile(config(2, [1, 1, 1], 'buggy', ['double-free'], 'sorted'));
    const r = check(checkedModel(m), { invariants: [ExclusiveHold] });
    const trace = r.violations[0]!.trace;
    expect(trace.steps.map((s) => actionLabel(m, s.action))).toEqual([
      'allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'free(A)', 'free(A)', 'allocate(B)', 'allocate(C)',
    ]);
    const last = lastState(trace);
    expect([tableOf(m, last, 1), tableOf(m, last, 2)]).toEqual([[0], [0]]);
    expect(HandedOutTwice.holds(m, last)).toBe(true);
  });

  it('owner-check keeps Isolation with double-free, stale-free and early-free on together, on every order', () => {
    for (const allocator of ORDERS) {
      const m = compile(config(3, [1, 1, 2], 'owner-check', ['silent-stub', 'early-free', 'stale-free', 'double-free'], allocator));
      const r = check(checkedModel(m), { invariants: [Isolation], continueAfterViolation: true });
      expect(r.violations, allocator).toEqual([]);
    }
  });
});

describe('the text trace shows the free list where it is stored', () => {
  it('under sglang: the release list waits, then the merge hands B pages 1 2 3', async () => {
    const { formatTrace } = await import('../../trace/index.ts');
    const m = compile(config(3, [2, 3], 'buggy', ['silent-stub'], 'sglang'));
    const text = formatTrace(m, check(checkedModel(m)).violations[0]!.trace, { color: false });
    expect(text).toContain('  free   [1 2 3]  release []');
    expect(text).toContain('  free   [3]  release [1 2]');
    expect(text).toContain('D gives B pages 1, 2, 3');
  });
});

describe('ITF round trip under every order', () => {
  it('a counterexample saved as ITF replays to the same violation, allocate(A: …) choices included under any', async () => {
    const { toItf, replayItf } = await import('../../trace/index.ts');
    for (const allocator of ORDERS) {
      const m = compile(config(3, [2, 3], 'buggy', ['silent-stub'], allocator));
      const trace = check(checkedModel(m)).violations[0]!.trace;
      const back = replayItf(JSON.parse(JSON.stringify(toItf(m, trace, 'Isolation'))));
      expect(back.outcome, allocator).toBe('violation');
      expect(back.trace.steps.map((s) => actionLabel(back.model, s.action)), allocator).toEqual(trace.steps.map((s) => actionLabel(m, s.action)));
    }
  });
});
