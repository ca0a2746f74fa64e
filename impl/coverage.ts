/**
 * What the pool follows of the spec, declared once: the model-based test draws only these
 * faults and actions, the abstraction stands only for these configurations, and `mbt`
 * refuses any other (spec/coverage.ts derives the refusals). A fault, switch or action the
 * spec gains is refused here until the pool has it and this list names it.
 */
import { coverage, coveredFaults, coveredKinds, kindsGuard, type Coverage } from '../spec/coverage.ts';
import type { ActionKind } from '../spec/actions.ts';
import type { Fault } from '../spec/config.ts';

/** The action kinds the pool has: its code matches over these alone, and refuses any other. */
export const POOL_KINDS = ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert', 'evict'] as const satisfies readonly ActionKind[];

/** One of {@link POOL_KINDS}. */
export type PoolKind = (typeof POOL_KINDS)[number];

/** Whether the pool has action kind `k`. */
export const isPoolKind = kindsGuard(POOL_KINDS);

/** The pool's coverage. double-free is in impl/allocator-order.ts, lock-underflow with eviction, auto-truncate in `prefill`. */
export const POOL_COVERAGE: Coverage = coverage('the pool', {
  variants: ['buggy', 'length-fix', 'owner-check', 'hardened'],
  allocators: ['sorted', 'sglang', 'lifo'],
  switches: ['eviction', 'tokenSlots', 'prefixes', 'prefixPages', 'lengthRule'],
  faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'auto-truncate'],
  actions: POOL_KINDS,
  instead: {
    'allocator:any': 'hands out pages in one order',
    tableGrowth: 'keeps a fixed page table',
    retraction: 'holds each request once',
    decodeSteps: 'decodes in one step',
    'fault:torn-write': 'lands every write whole',
    'fault:segment-overlap': 'releases a table without overlapping its calls',
  },
});

/** The faults the pool implements, in the catalogue's order: what its model-based test draws. */
export const POOL_FAULTS: readonly Fault[] = coveredFaults(POOL_COVERAGE);

/** The action kinds the pool implements, in ACTION_KINDS's order: what its model-based test names. */
export const POOL_ACTION_KINDS: readonly ActionKind[] = coveredKinds(POOL_COVERAGE);
