/**
 * Model-based tests of the pool with the prefix cache as a radix tree (config `radix`,
 * impl/radix-pool.ts): `lock-underflow`'s shortest leak, as short as the checker's
 * (test/spec/radix.test.ts, radix-nested.test.ts), flat and nested; `hardened` holding; the
 * refinement on the pinned configurations and on random ones, with what the tree did
 * counted; the radix pool's mutants caught; and `pagecheck mbt --radix --eviction`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { register } from '../../cli/commands/mbt.ts';
import { EXIT } from '../../cli/errors.ts';
import { runCommand } from '../support/cli.ts';
import { check } from '../../checker/index.ts';
import { checkedModel } from '../../binding/index.ts';
import { actionLabel, compile, Isolation, type Config, type Fault, type Variant } from '../../spec/index.ts';
import { noEvents, POOL_FAULTS, RadixPool, runMbt, type PoolOptions, type RadixPoolOptions } from '../../impl/index.ts';
import { radix } from '../spec/helpers.ts';
import { RADIX_MUTANTS } from './radix-mutants.ts';

const ORDERS = ['sorted', 'sglang', 'lifo'] as const;

/** The spec test's lock-underflow configuration: 3 pages, A and B share sys, C of 2 pages evicts. */
const flat = (variant: Variant): Config => radix(variant, ['lock-underflow'], 3, ['2:sys', '2:sys', '2']);
/** The nested one (radix-nested.test.ts): 4 pages, A with sys, B with sys/doc of 2 pages, C of 2. */
const nested = (variant: Variant, faults: readonly Fault[] = ['lock-underflow']): Config => radix(variant, faults, 4, ['2:sys', '3:sys/doc', '2'], { prefixPages: { 'sys/doc': 2 } });

/** The checker's shortest `Isolation` counterexample's length on `config`. */
function checkerLength(config: Config): number {
  const m = compile(config);
  const r = check(checkedModel(m), { invariants: [Isolation] });
  return (r.violations[0]?.trace.steps ?? []).map((s) => actionLabel(m, s.action)).length;
}

/** What the tree did over a test's runs: evictions, partial matches, nodes below 0, pools with nested prefixes. */
const seen = { evictions: 0, partial: 0, negative: 0, nested: 0 };

/** The real radix pool, counting into {@link seen}. */
class Counted extends RadixPool {
  constructor(options: RadixPoolOptions) {
    super(options);
    if (options.prefixParents !== undefined) seen.nested++;
  }
  protected override evictEntry(own: number): boolean {
    const evicted = super.evictEntry(own);
    if (evicted) seen.evictions++;
    return evicted;
  }
  override allocate(slot: number, length: number, prefix?: number, tokens?: number): boolean {
    if (!super.allocate(slot, length, prefix, tokens)) return false;
    const d = this.depth[slot] ?? 0;
    if (prefix !== undefined && d > 0 && d < (this.prefixLengths[prefix] ?? 1)) seen.partial++;
    return true;
  }
  override free(slot: number): boolean {
    if (!super.free(slot)) return false;
    if (this.nodeLock.some((lock) => lock < 0)) seen.negative++;
    return true;
  }
}

const counted = (o: PoolOptions): RadixPool => new Counted(o);
const reset = (): void => void Object.assign(seen, { evictions: 0, partial: 0, negative: 0, nested: 0 });

describe('model-based test with the radix tree: lock-underflow shrinks to the checker\'s length', () => {
  it('buggy, 3 pages, A 2:sys, B 2:sys, C 2: Isolation at run 28 in 12 commands, the checker\'s length (A\'s double unlock takes B\'s lock, C evicts the node and writes it, B reads C)', () => {
    const config = flat('buggy');
    const result = runMbt({ config, runs: 300, seed: 1 });
    const trace = ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'allocate(B)', 'free(A)', 'prefill(B)', 'evict(C)', 'allocate(C)', 'prefill(C)', 'handoff(B)', 'decode(B)'];
    expect([result.runs, result.failure?.property, result.failure?.commands]).toEqual([28, 'Isolation', trace]);
    expect(checkerLength(config)).toBe(12);
  });

  it('nested, buggy: 4 pages, A sys, B sys/doc (2 pages), C 2: Isolation at run 43 in 12 commands, the checker\'s length; A\'s double unlock takes B\'s lock on sys\'s node', () => {
    const config = nested('buggy');
    const result = runMbt({ config, runs: 300, seed: 1 });
    expect([result.runs, result.failure?.property, result.failure?.commands.length]).toEqual([43, 'Isolation', 12]);
    expect(result.failure?.commands.slice(0, 6)).toEqual(['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'decode(A)', 'free(A)']);
    expect(checkerLength(config)).toBe(12);
  });
});

describe('hardened and owner-check with the radix tree', () => {
  it.each([
    ['hardened, flat', 0, flat('hardened')],
    ['hardened, nested', 0, nested('hardened')],
    ['owner-check, flat', 1, flat('owner-check')],
    ['hardened, every fault the pool has (radix.test.ts\'s every-fault configuration, 3 pages, 2:sys,2:sys,3)', 0, radix('hardened', POOL_FAULTS, 3, ['2:sys', '2:sys', '3'])],
  ] as const)('%s, with lock-underflow: 100 runs pass with Isolation; a node below 0 seen: %i', (_name, negative, config) => {
    reset();
    const events = noEvents();
    expect(runMbt({ config, runs: 100, seed: 1, events, makePool: counted }).failure?.message).toBeUndefined();
    expect([seen.negative > 0 ? 1 : 0, events.decoded > 0]).toEqual([negative, true]);
  });

  it('hardened, random radix configurations, every order, token slots or a request\'s life besides: 100 runs pass', () => {
    expect(runMbt({ variant: 'hardened', radix: true, allocators: ORDERS, life: {}, runs: 50, seed: 63 }).failure?.message).toBeUndefined();
    expect(runMbt({ variant: 'hardened', radix: true, allocators: ORDERS, slots: true, runs: 50, seed: 63 }).failure?.message).toBeUndefined();
  });
});

describe('the pool refines the spec with the radix tree, leaks and all', () => {
  it('the pinned configurations without faults (radix.test.ts, radix-nested.test.ts): 50 runs each; 70 evictions, 80 partial matches, 150 pools with nested prefixes', () => {
    const configs = [
      radix('buggy', [], 2, ['2:sys', '2:sys', '1']),
      radix('buggy', [], 3, ['3:sys', '3:sys', '2'], { prefixPages: { sys: 2 } }),
      radix('owner-check', [], 4, ['3:sys', '3:sys', '2:doc'], { prefixPages: { sys: 2 } }),
      nested('owner-check', []),
      radix('owner-check', [], 4, ['3:sys/doc', '3:sys/faq', '2'], { prefixPages: { 'sys/doc': 2, 'sys/faq': 2 } }),
      radix('owner-check', [], 5, ['2:sys', '3:sys/doc', '4:sys/doc/faq'], { prefillLimit: 4, prefixPages: { 'sys/doc': 2, 'sys/doc/faq': 3 } }),
    ];
    reset();
    for (const config of configs) expect(runMbt({ config, runs: 50, seed: 2, makePool: counted }).failure?.message).toBeUndefined();
    expect(seen).toEqual({ evictions: 70, partial: 80, negative: 0, nested: 150 });
  });

  it.each([
    ['buggy', 13, { evictions: 13, partial: 3, negative: 54, nested: 13 }],
    ['length-fix', 13, { evictions: 12, partial: 3, negative: 49, nested: 13 }],
    ['owner-check', 13, { evictions: 13, partial: 3, negative: 54, nested: 13 }],
  ] as const)('%s, random radix configurations and faults, every order: 100 runs refine, %i of them with nested prefixes', (variant, _nested, counts) => {
    reset();
    expect(runMbt({ variant, radix: true, allocators: ORDERS, runs: 100, seed: 61, isolation: false, makePool: counted }).failure?.message).toBeUndefined();
    expect(seen).toEqual(counts);
  });
});

describe('an admission locks its matched path before it takes pages', () => {
  // A double free puts the node's page on the free list while the tree still holds it; under lifo the admission that matched it is handed that very page. The spec locks first (the lock stays on the page); the pool locked after, when the page was no longer a node, and lost it (found by the scale reference). Without the fix: Refinement at run 105 of the default seed.
  it('buggy, lifo, double-free and lock-underflow, 3 pages, A 2:sys, B 2:sys, C 2: 300 runs refine', () => {
    const config = radix('buggy', ['double-free', 'lock-underflow'], 3, ['2:sys', '2:sys', '2'], { allocator: 'lifo' });
    const result = runMbt({ config, runs: 300, seed: 20260827, isolation: false });
    expect([result.failure?.message, result.runs]).toEqual([undefined, 300]);
  });
});

describe('model-based test with the radix tree: mutants fail it', () => {
  it.each(RADIX_MUTANTS.map(([name, Mutant], k) => [name, [8, 40, 40, 1][k]!, Mutant] as const))('a pool that %s fails (owner-check, seed 67, unshrunk) at run %i', (_name, run, Mutant) => {
    const result = runMbt({ variant: 'owner-check', radix: true, runs: 100, seed: 67, isolation: false, shrink: false, makePool: (o: PoolOptions) => new Mutant(o) });
    expect([result.verdict, result.runs]).toEqual(['fail', run]);
    expect(['Refinement', 'Enabledness']).toContain(result.failure?.property);
  });

  it('the same 100 runs pass on the real pool', () => {
    expect(runMbt({ variant: 'owner-check', radix: true, runs: 100, seed: 67, isolation: false }).failure?.message).toBeUndefined();
  });
});

describe('pagecheck mbt --radix --eviction', () => {
  afterEach(() => vi.restoreAllMocks());

  it('lock-underflow under buggy: the shrunk leak of seed 1 replays from its path in 12 actions, and the replay line keeps --eviction --radix', async () => {
    const path = '27:4:4:7:30:33:33:33:35:34:35:34:36:39:39:39@SE7B//D:1B';
    const flags = ['--variant', 'buggy', '--pages', '3', '--prefill-limit', '3', '--requests', '2:sys,2:sys,2', '--faults', 'lock-underflow', '--eviction', '--radix', '--seed', '1', '--runs', '300', '--path', path, '--json'];
    const leak = await runCommand(register, 'mbt', flags);
    if ('error' in leak) throw new Error(leak.error);
    expect(leak.code).toBe(EXIT.violation);
    const result = JSON.parse(leak.out) as { property: string; traceLength: number; replay: string };
    expect([result.property, result.traceLength]).toEqual(['Isolation', 12]);
    expect(result.replay).toMatch(/--faults lock-underflow --eviction --radix --seed 1 /);
  });

  it('--random under hardened passes 50 runs', async () => {
    const pass = await runCommand(register, 'mbt', ['--random', '--radix', '--eviction', '--variant', 'hardened', '--runs', '50', '--json']);
    if ('error' in pass) throw new Error(pass.error);
    expect(pass.code).toBe(EXIT.ok);
  });
});
