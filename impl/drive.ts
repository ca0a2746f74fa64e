/**
 * Driving a pool with the spec's actions: the pool a model stands for, one action applied
 * to it, and what an accepted action did, in the words of the fault catalogue. Shared by
 * the model-based tests, `pagecheck mbt` and anything else that runs spec traces on the
 * implementation.
 */
import { match } from 'ts-pattern';
import type { Action } from '../spec/actions.ts';
import type { Model } from '../spec/model.ts';
import { flagsOf, HIT, phaseOf, Ph, type State } from '../spec/state.ts';
import type { PoolOptions } from './options.ts';
import { PagePool } from './pool.ts';
import { ServingPool } from './serving-pool.ts';
import { SteppingPool } from './stepping-pool.ts';
import { SlotPool } from './slot-pool.ts';
import { DraftPool } from './draft-pool.ts';
import { RadixPool, type RadixPoolOptions } from './radix-pool.ts';
import { LoadbackPool } from './loadback-pool.ts';
import { TornPool } from './torn-pool.ts';
import { AuxPool } from './aux-pool.ts';
import { loadsBack } from '../spec/loadback.ts';
import { isPoolKind } from './coverage.ts';

/** Builds a pool from options; tests substitute mutants here. */
export type PoolFactory = (options: PoolOptions) => PagePool;

/** The real pool: with the radix tree the pool that has it (radix-pool.ts), with the host tier's loads the pool that has them (loadback-pool.ts), with state slots or a draft model the pool that has them (slot-pool.ts, draft-pool.ts), with decode steps, growth or retraction the pool that has those (stepping-pool.ts), else the plain one. */
export const realPool: PoolFactory = (options: RadixPoolOptions) => {
  // The radix tree (radix-pool.ts) extends the pool with every other switch.
  if (options.radix === true) return new RadixPool(options);
  if (options.loadback === true) return new LoadbackPool(options);
  // SlotPool's chain has TornPool (torn-pool.ts), whose writes land in parts under torn-write, and AuxPool (aux-pool.ts), D's metadata slot under aux-torn.
  const wire = (options.faults ?? []).some((f) => f === 'torn-write' || f === 'aux-torn');
  if (options.stateSlots === true || options.draft === true || wire) return new SlotPool(options);
  return (options.decodeSteps ?? 1) > 1 || options.tableGrowth === true || options.retraction === true ? new SteppingPool(options) : new PagePool(options);
};

/** The pool that stands for model `m`: slot `r` is request `r`, and a slot is admitted once, as a spec request is. */
export function poolOptionsFor(m: Model): RadixPoolOptions {
  let maxLength = 1;
  for (let r = 0; r < m.n; r++) maxLength = Math.max(maxLength, m.len[r] ?? 0);
  return {
    pages: m.config.pages,
    // The spec's limit is in tokens; the pool's in pages, with the tokens beside it.
    prefillLimit: Math.ceil(m.config.prefillLimit / m.pageSize),
    prefillTokens: m.config.prefillLimit,
    lengthRule: m.lengthRule,
    variant: m.config.variant,
    faults: m.config.faults,
    slots: m.n,
    maxLength,
    prefixes: m.groups,
    ...(m.prefixPages.some((k) => k > 1) ? { prefixLengths: [...m.prefixPages] } : {}),
    reuseSlots: false,
    eviction: m.eviction,
    ...(m.allocator === 'any' ? {} : { allocator: m.allocator }),
    pageSize: m.pageSize,
    // A request's life on D, only where the configuration has it (the table's width above counts its growth).
    ...(m.decodeSteps > 1 ? { decodeSteps: m.decodeSteps } : {}),
    ...(m.tableGrowth ? { tableGrowth: true } : {}),
    ...(m.retraction ? { retraction: true } : {}),
    // D's state slots and metadata rows, one of each per request.
    ...(m.config.stateSlots === true ? { stateSlots: true } : {}),
    // A draft model's KV beside every page.
    ...(m.config.draft === true ? { draft: true } : {}),
    // The radix tree, and the prefixes that extend others in it (spec/nesting.ts).
    ...(m.radix ? { radix: true } : {}),
    ...(m.prefixParent.some((up) => up >= 0) ? { prefixParents: [...m.prefixParent] } : {}),
    // P's source pages, read by a torn write's content parts.
    ...(m.sourcePages ? { sourcePages: true } : {}),
    // The host tier of D's prefix cache, only where the spec has it (a prefix, no retraction).
    ...(loadsBack(m) ? { loadback: true } : {}),
  };
}

/** Applies spec action `a` to the pool; whether the pool accepted it (an action it does not have, impl/coverage.ts, it refuses). */
export function applyAction(m: Model, pool: PagePool, a: Action): boolean {
  const kind = a.kind;
  if (!isPoolKind(kind)) return false;
  return match(kind)
    .with('allocate', () => {
      const g = m.group[a.r] ?? -1;
      // The prompt's pages: a table that grows takes the rest one `grow` at a time.
      const length = m.promptPages[a.r] ?? 0;
      const tokens = m.tokens[a.r] ?? 0;
      return g >= 0 ? pool.allocate(a.r, length, g, tokens) : pool.allocate(a.r, length, undefined, tokens);
    })
    .with('prefill', () => pool.prefill(a.r))
    .with('stub', () => pool.stub(a.r))
    .with('handoff', () => pool.handoff(a.r))
    .with('grow', () => pool instanceof ServingPool && pool.grow(a.r))
    .with('decode', () => pool.decode(a.r))
    .with('free', () => pool.free(a.r))
    .with('timeout', () => pool.timeout(a.r))
    .with('insert', () => pool.insert(a.r))
    .with('evict', () => {
      const g = m.group[a.r] ?? -1;
      const length = m.promptPages[a.r] ?? 0;
      return g >= 0 ? pool.evict(a.r, length, g) : pool.evict(a.r, length);
    })
    .with('retract', () => pool instanceof ServingPool && pool.retract(a.r))
    .with('offload', () => pool instanceof ServingPool && pool.offload(a.r))
    .with('resume', () => pool instanceof ServingPool && pool.resume(a.r))
    .with('landDraft', () => pool instanceof DraftPool && pool.landDraft(a.r))
    .with('loadBack', () => pool instanceof LoadbackPool && pool.loadBack(a.r))
    .with('evictHost', () => pool instanceof LoadbackPool && pool.evictHost(m.group[a.r]))
    .with('landData', () => pool instanceof TornPool && pool.landData(a.r))
    .with('landTag', () => pool instanceof TornPool && pool.landTag(a.r))
    .with('landRoom', () => pool instanceof AuxPool && pool.landRoom(a.r))
    .with('landPayload', () => pool instanceof AuxPool && pool.landPayload(a.r))
    .with('abortSource', () => pool instanceof TornPool && pool.abortSource(a.r))
    .exhaustive();
}

/** What an accepted action did that a run's coverage counts: the faults firing, the defences acting. */
export const EVENTS = [
  'decoded',
  'silent-stub',
  'refusal',
  'timeout',
  'late-write',
  'stale-release',
  'prefix-hit',
  'poisoned-insert',
  'failed-loudly',
] as const;

/** One of {@link EVENTS}. */
export type Event = (typeof EVENTS)[number];

/** What a request's life on D did (decode steps, growth, retraction): counted only where it happened, so runs without it count what they always did. */
export const LIFE_EVENTS = ['decode-step', 'grew', 'retracted', 'late-offload', 'resumed'] as const;

/** One of {@link LIFE_EVENTS}. */
export type LifeEvent = (typeof LIFE_EVENTS)[number];

/** What the host tier did (config `loadback`): a load landed, a host copy evicted; counted only where it happened. */
export const LOAD_EVENTS = ['loaded-back', 'host-evicted'] as const;

/** One of {@link LOAD_EVENTS}. */
export type LoadEvent = (typeof LOAD_EVENTS)[number];

/** Counts of each event over a test run; a life event's and a load event's only once it happened. */
export type EventCounts = Record<Event, number> & Partial<Record<LifeEvent | LoadEvent, number>>;

/** All counts zero. */
export function noEvents(): EventCounts {
  return Object.fromEntries(EVENTS.map((e) => [e, 0])) as EventCounts;
}

/** The event of spec step `before --a--> after`, if it is one that coverage counts. */
export function eventOf(m: Model, before: State, after: State, a: Action): Event | LifeEvent | LoadEvent | undefined {
  const was = phaseOf(m, before, a.r);
  const now = phaseOf(m, after, a.r);
  const kind = a.kind;
  // The pool takes only its own kinds (applyAction), so only they have events to count.
  if (!isPoolKind(kind)) return undefined;
  return match(kind)
    .with('allocate', () => ((flagsOf(m, after, a.r) & HIT) !== 0 ? ('prefix-hit' as const) : undefined))
    .with('prefill', () => (now === Ph.landed ? ('late-write' as const) : undefined))
    .with('stub', () => (now === Ph.landed ? ('late-write' as const) : now === Ph.written ? ('silent-stub' as const) : ('refusal' as const)))
    .with('handoff', () => undefined)
    .with('grow', () => 'grew' as const)
    .with('decode', () => (now === Ph.failed ? ('failed-loudly' as const) : now === Ph.decoding ? ('decode-step' as const) : ('decoded' as const)))
    .with('free', () => (now === Ph.released ? ('stale-release' as const) : undefined))
    .with('timeout', () => 'timeout' as const)
    .with('insert', () => (was === Ph.decoded ? undefined : ('poisoned-insert' as const)))
    .with('evict', () => undefined)
    .with('retract', () => 'retracted' as const)
    .with('offload', () => 'late-offload' as const)
    .with('resume', () => 'resumed' as const)
    .with('landDraft', () => undefined)
    .with('loadBack', () => 'loaded-back' as const)
    .with('evictHost', () => 'host-evicted' as const)
    .with('landData', 'landTag', () => (now === Ph.landed ? ('late-write' as const) : undefined))
    .with('landRoom', 'landPayload', 'abortSource', () => undefined)
    .exhaustive();
}
