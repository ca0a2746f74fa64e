/**
 * The pool with a prompt prefix of more than one page (`PoolOptions.prefixLengths`, the
 * spec's `prefixPages`): every reachable state of small 2-page-prefix configurations,
 * every action, pool against spec; then random runs on the same configurations.
 */
import { describe, expect, it } from 'vitest';
import { abstractState, applyAction, PagePool, poolOptionsFor, refinementDiff, runMbt, sameState } from '../../impl/index.ts';
import { allActions, compile, configFrom, initial, step, type Action, type Config, type Fault, type Variant } from '../../spec/index.ts';

/** 4 pages, prefill limit 3: A and B (3 pages, prefix sys of 2 pages), C (3 pages). */
const config = (variant: Variant, faults: readonly Fault[], eviction: boolean, allocator: 'sorted' | 'sglang' | 'lifo' = 'sorted'): Config =>
  configFrom({
    pages: 4,
    prefillLimit: 3,
    requests: [{ length: 3, prefix: 'sys' }, { length: 3, prefix: 'sys' }, { length: 3 }],
    variant,
    faults: [...faults],
    prefixPages: { sys: 2 },
    allocator,
    ...(eviction ? { eviction } : {}),
  });

/**
 * Every state the spec reaches (no symmetry) and every action there, the pool driven along
 * the same path: it accepts exactly the enabled actions and lands in the same state.
 * Returns the number of states visited, or throws at the first difference.
 */
function exhaustive(c: Config): number {
  const m = compile(c);
  const actions = allActions(m);
  const seen = new Set<string>();
  const queue: Action[][] = [[]];
  const key = (s: Uint8Array): string => Buffer.from(s).toString('hex');
  seen.add(key(initial(m)));
  while (queue.length > 0) {
    const path = queue.shift()!;
    let s = initial(m);
    for (const a of path) s = step(m, s, a)!;
    for (const a of actions) {
      const pool = new PagePool(poolOptionsFor(m));
      for (const b of path) applyAction(m, pool, b);
      const next = step(m, s, a);
      const accepted = applyAction(m, pool, a);
      if (accepted !== (next !== undefined)) throw new Error(`${[...path, a].map((x) => `${x.kind}(${x.r})`).join(' ')}: spec ${next !== undefined}, pool ${accepted}`);
      if (next === undefined) continue;
      const got = abstractState(m, pool);
      if (!sameState(next, got)) throw new Error(`${[...path, a].map((x) => `${x.kind}(${x.r})`).join(' ')}: ${refinementDiff(m, next, got).join('; ')}`);
      if (seen.has(key(next))) continue;
      seen.add(key(next));
      queue.push([...path, a]);
    }
  }
  return seen.size;
}

describe('the pool with a 2-page prefix refines the spec, state by state', () => {
  it('buggy with lock-underflow and eviction: all 444 reachable states (no symmetry), every action, agree', { timeout: 60_000 }, () => {
    expect(exhaustive(config('buggy', ['silent-stub', 'lock-underflow'], true))).toBe(444);
  });

  it('owner-check with early-free and prefix-poison, eviction on: all 1,258 reachable states, every action, agree', { timeout: 60_000 }, () => {
    expect(exhaustive(config('owner-check', ['silent-stub', 'early-free', 'prefix-poison'], true))).toBe(1258);
  });

  it('hardened with double-free under sglang\'s order: all 629 reachable states, every action, agree', { timeout: 60_000 }, () => {
    expect(exhaustive(config('hardened', ['silent-stub', 'double-free', 'stale-free', 'prefix-poison'], true, 'sglang'))).toBe(629);
  });

  it('owner-check with double-free under sglang\'s order: one page twice in a table, at both prefix positions, is cached once, as in the spec (4,811 states)', { timeout: 60_000 }, () => {
    expect(exhaustive(config('owner-check', ['double-free', 'stale-free', 'prefix-poison', 'lock-underflow'], true, 'sglang'))).toBe(4811);
  });
});

describe('random runs with a 2-page prefix', () => {
  it.each([
    ['buggy', ['silent-stub', 'lock-underflow', 'prefix-poison', 'early-free'], false],
    ['owner-check', ['silent-stub', 'lock-underflow', 'prefix-poison', 'early-free', 'stale-free'], true],
    ['hardened', ['silent-stub', 'lock-underflow', 'prefix-poison', 'early-free', 'stale-free', 'double-free'], true],
  ] as const)('%s: 1,000 runs, the pool refines the spec (Isolation checked where the variant keeps it)', (variant, faults, isolation) => {
    const result = runMbt({ config: config(variant, faults, true, 'lifo'), runs: 1_000, seed: 21, isolation });
    expect(result.failure?.message).toBeUndefined();
    expect(result.verdict).toBe('pass');
  }, 60_000);

  it('rejects a table no longer than its prefix, and a length per group that does not match the groups', () => {
    const pool = new PagePool({ pages: 4, prefillLimit: 3, slots: 2, maxLength: 3, variant: 'buggy', prefixes: 1, prefixLengths: [2] });
    expect(() => pool.allocate(0, 2, 0)).toThrow(/a prefix of 2 pages needs at least 3 pages, got 2/);
    expect(() => new PagePool({ pages: 4, prefillLimit: 3, slots: 2, maxLength: 3, variant: 'buggy', prefixes: 2, prefixLengths: [2] })).toThrow(/one length per prefix group \(2\), got 1/);
  });
});
