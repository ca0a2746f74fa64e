/**
 * The model-based test at the scale the pool runs at: hundreds to thousands of pages,
 * tables longer than 64 pages, pools run to exhaustion, hundreds of admissions through
 * reused slots. The spec's byte encoding cannot hold such sizes, so the pool is compared
 * with the reference model (scale/reference.ts, anchored to the spec on small sizes)
 * through the incremental comparer (scale/compare.ts).
 *
 * A run is a list of steps, each naming a slot, a starting action kind and a request
 * length. A step tries the actions on that slot in the fixed order from its starting kind
 * until the reference enables one; every try is made on both sides, so a disabled action
 * the pool accepts fails at once, and the first enabled one is taken. Lengths are drawn
 * to hit the sizes that matter: one page, short, longer than 64, exactly P's limit or one
 * over, and exactly what is free (the pool runs dry).
 */
import fc from 'fast-check';
import { match } from 'ts-pattern';
import type { Fault, Variant } from '../spec/config.ts';
import type { RadixPoolOptions } from '../impl/radix-pool.ts';
import { realPool, type PoolFactory } from '../impl/drive.ts';
import { ScaleComparer } from './compare.ts';
import { ReferencePool } from './reference.ts';
import { LIFE_ACTIONS, POOL_ACTIONS, TREE_ACTIONS, type PoolAction, type ScaleStep, type ScaleConfig, type ScaleAllocation, scaleConfigArbitrary, scaleLifeArbitrary, scaleStepsArbitrary, scaleTreeArbitrary } from './generator.ts';
import { act, actPool, count, noStats, type ScaleStats } from './mbt-actions.ts';

export * from './generator.ts';
export * from './mbt-actions.ts';

/** The pool options of a configuration: tables as wide as the pool, slots reused. */
export function scalePoolOptions(c: ScaleConfig): RadixPoolOptions {
  return {
    pages: c.pages,
    prefillLimit: c.prefillLimit,
    variant: c.variant,
    faults: faultsOf(c),
    slots: c.slots,
    // A table grows by one page per token past its prompt's.
    maxLength: c.pages + (c.decodeSteps ?? 1),
    prefixes: c.prefixes,
    reuseSlots: true,
    allocator: c.allocator,
    pageSize: c.pageSize,
    ...(c.decodeSteps === undefined ? {} : { decodeSteps: c.decodeSteps }),
    ...(c.tableGrowth === true ? { tableGrowth: true } : {}),
    ...(c.retraction === true ? { retraction: true } : {}),
    ...(c.eviction === true ? { eviction: true } : {}),
    ...(c.radix === true ? { radix: true } : {}),
  };
}

/** The faults both sides get: the configuration's, with `double-free` when it is on. */
function faultsOf(c: ScaleConfig): readonly Fault[] {
  const named = c.faults as readonly string[];
  // Until the spec's catalogue names `double-free`, it travels as a plain string.
  return (c.doubleFree && !named.includes('double-free') ? [...named, 'double-free'] : named) as readonly Fault[];
}

/** The length a step asks for, given what is free now. */
function lengthOf(step: ScaleStep, c: ScaleConfig, ref: ReferencePool, group: number): number {
  const pick = (lo: number, hi: number): number => Math.min(hi, lo + Math.floor(step.at * (hi - lo + 1)));
  // A table that grows leaves room in the pool for its tokens' pages: what runs it dry is another admission, or a retracted one's resume.
  const max = c.tableGrowth === true ? Math.max(2, c.pages - (c.decodeSteps ?? 1) + 1) : c.pages;
  const n = match(step.length)
    .with('one', () => 1)
    .with('short', () => pick(2, 32))
    .with('long', () => pick(65, max))
    .with('at-limit', () => c.prefillLimit)
    .with('over-limit', () => c.prefillLimit + 1)
    .with('exhaust', () => ref.freePages + (ref.need(2, group) === 1 ? 1 : 0))
    .with('any', () => pick(1, max))
    .exhaustive();
  // A prefix is one page: a request with one needs a page of its own besides.
  return Math.max(group >= 0 ? 2 : 1, Math.min(max, n));
}

/** One run: the steps on a fresh pool and a fresh reference; the first difference in words, or undefined. */
export function runScaleCase(
  c: ScaleConfig,
  steps: readonly ScaleStep[],
  makePool: PoolFactory,
  stats: ScaleStats,
  isolation: boolean,
  log?: string[],
): string | undefined {
  const ref = new ReferencePool({ ...c, faults: faultsOf(c), reuseSlots: true });
  const kinds = kindsOf(c);
  const pool = makePool(scalePoolOptions(c));
  const cmp = new ScaleComparer(ref, pool);
  stats.maxPages = Math.max(stats.maxPages, c.pages);
  let taken = 0;
  for (const [i, s] of steps.entries()) {
    const slot = s.slot % c.slots;
    const group = c.prefixes > 0 && (s.prefix >= 0 || c.everyPrefixed === true) ? Math.max(0, s.prefix) % c.prefixes : -1;
    for (let t = 0; t < kinds.length; t++) {
      const kind = kinds[(s.kind + t) % kinds.length] ?? 'allocate';
      const where = `step ${i + 1}, ${kind}(slot ${slot})`;
      const before = ref.slots[slot];
      const freeBefore = ref.freePages;
      const length = kind === 'allocate' || kind === 'evict' ? lengthOf(s, c, ref, group) : 0;
      const want = act(ref, kind, slot, length, group);
      let got: boolean;
      try {
        got = actPool(pool, kind, slot, length, group);
      } catch (e) {
        return `${where}: the pool threw ${e instanceof Error ? e.message : String(e)}`;
      }
      if (got !== want) return `${where}${kind === 'allocate' ? ` of ${length} pages` : ''}: the reference ${want ? 'enables' : 'does not enable'} it, the pool ${got ? 'accepted' : 'refused'} it`;
      if (!want) continue;
      taken++;
      stats.actions++;
      log?.push(kind === 'allocate' ? `allocate(${slot}, ${length}${group >= 0 ? `, prefix ${group}` : ''})` : `${kind}(${slot})`);
      const diff = (kind === 'allocate' ? cmp.admitted(slot) : undefined) ?? cmp.compareStep(slot) ?? (taken % 64 === 0 ? cmp.compareAll() : undefined);
      if (diff !== undefined) return `${where}: ${diff}`;
      count(stats, ref, kind, slot, before, freeBefore);
      if (kind === 'allocate') stats.byAllocator[c.allocator]++;
      const r = ref.slots[slot];
      if (isolation && kind === 'decode' && r !== undefined && ref.foreignReads(r) > 0) return `${where}: Isolation: it read another request's data`;
      break;
    }
  }
  stats.maxAdmissions = Math.max(stats.maxAdmissions, ref.requests.length);
  stats.takenTwice += ref.takenTwice;
  stats.inserts += ref.inserts;
  stats.underflows += ref.underflows;
  stats.negativeEvictions += ref.negativeEvictions;
  const diff = cmp.compareAll();
  return diff === undefined ? undefined : `at the end: ${diff}`;
}

/** Whether configuration `c` has a request's life on D: its runs try the actions of {@link LIFE_ACTIONS}. */
function isLife(c: ScaleConfig): boolean {
  return (c.decodeSteps ?? 1) > 1 || c.tableGrowth === true || c.retraction === true;
}

/** The actions a run of `c` tries: with eviction {@link TREE_ACTIONS}, with a request's life {@link LIFE_ACTIONS}, else {@link POOL_ACTIONS}. */
function kindsOf(c: ScaleConfig): readonly PoolAction[] {
  if (c.eviction === true) return TREE_ACTIONS;
  return isLife(c) ? LIFE_ACTIONS : POOL_ACTIONS;
}

/** What to test at scale. */
export interface ScaleMbtOptions {
  /** The variant (random when left out). */
  readonly variant?: Variant;
  /** The faults (a random subset when left out). */
  readonly faults?: readonly Fault[];
  /** One configuration instead of random ones. */
  readonly config?: ScaleConfig;
  /** For random configurations: the orders and the double-free setting. */
  readonly allocation?: ScaleAllocation;
  /** Number of runs. */
  readonly runs: number;
  /** fast-check's seed. */
  readonly seed: number;
  /** Longest run, in steps (default 1,500). */
  readonly maxSteps?: number;
  /** Shortest run, in steps (default a tenth of the longest). */
  readonly minSteps?: number;
  /** Whether a decode that read another request's data fails the run (default false). */
  readonly isolation?: boolean;
  /** The pool under test (default the real one). */
  readonly makePool?: PoolFactory;
  /** Whether to shrink a failure (default true; off makes a mutant's failure cheap). */
  readonly shrink?: boolean;
  /** Coverage counts to add to. */
  readonly stats?: ScaleStats;
  /** Whether random configurations draw a request's life on D (decode steps, growth, retraction; default off). */
  readonly life?: boolean;
  /** Whether random configurations have the evicting prefix cache, the radix tree drawn (default off). */
  readonly tree?: boolean;
}

/** The outcome of a run at scale. */
export interface ScaleMbtResult {
  /** `pass` when every run passed. */
  readonly verdict: 'pass' | 'fail';
  /** Runs done. */
  readonly runs: number;
  /** The first difference, in words, with the failing configuration. */
  readonly failure?: {
    /** The difference. */
    readonly message: string;
    /** The configuration. */
    readonly config: ScaleConfig;
    /** Steps of the (shrunk) run. */
    readonly steps: number;
    /** The actions taken up to the difference, as `allocate(slot, pages)` and `decode(slot)`. */
    readonly actions: readonly string[];
  };
  /** What the runs reached. */
  readonly stats: ScaleStats;
}

/** Runs the model-based test at scale. */
export function runScaleMbt(options: ScaleMbtOptions): ScaleMbtResult {
  const stats = options.stats ?? noStats();
  const makePool = options.makePool ?? realPool;
  const plain = options.config === undefined ? scaleConfigArbitrary(options.variant, options.faults, options.allocation) : fc.constant(options.config);
  const lives = options.life === true ? scaleLifeArbitrary(plain, options.faults === undefined) : plain;
  const configs = options.tree === true ? scaleTreeArbitrary(lives, options.faults === undefined) : lives;
  const kinds = options.tree === true ? TREE_ACTIONS.length : options.life === true ? LIFE_ACTIONS.length : options.config === undefined ? POOL_ACTIONS.length : kindsOf(options.config).length;
  const property = fc.property(configs, scaleStepsArbitrary(options.maxSteps ?? 1_500, kinds, options.minSteps), (c, steps) => {
    const diff = runScaleCase(c, steps, makePool, stats, options.isolation ?? false);
    if (diff !== undefined) throw new Error(diff);
  });
  const details = fc.check(property, { numRuns: options.runs, seed: options.seed, endOnFailure: options.shrink === false });
  if (!details.failed || details.counterexample === null) return { verdict: 'pass', runs: details.numRuns, stats };
  const [config, steps] = details.counterexample;
  const actions: string[] = [];
  const message = runScaleCase(config, steps, makePool, noStats(), options.isolation ?? false, actions) ?? String(details.errorInstance);
  return { verdict: 'fail', runs: details.numRuns, failure: { message, config, steps: steps.length, actions }, stats };
}
