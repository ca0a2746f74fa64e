/**
 * What the pool follows of the spec, declared once: the model-based test draws only these
 * faults and actions, the abstraction stands only for these configurations, and `mbt`
 * refuses any other (spec/coverage.ts derives the refusals). A fault, switch or action the
 * spec gains is refused here until the pool has it and this list names it.
 */
import { coverage, coveredFaults, coveredKinds, kindsGuard, type Coverage } from '../spec/coverage.ts';
import type { ActionKind } from '../spec/actions.ts';
import { FAULT_NEEDS, type Fault } from '../spec/config.ts';

/** The action kinds the pool has: its code matches over these alone, and refuses any other. */
export const POOL_KINDS = ['allocate', 'prefill', 'stub', 'handoff', 'grow', 'decode', 'free', 'timeout', 'insert', 'evict', 'retract', 'offload', 'resume', 'landDraft', 'loadBack', 'evictHost', 'landData', 'landTag', 'landRoom', 'landPayload', 'abortSource'] as const satisfies readonly ActionKind[];

/** One of {@link POOL_KINDS}. */
export type PoolKind = (typeof POOL_KINDS)[number];

/** Whether the pool has action kind `k`. */
export const isPoolKind = kindsGuard(POOL_KINDS);

/** The pool's coverage. double-free is in impl/allocator-order.ts, lock-underflow with eviction, auto-truncate in `prefill`; decode steps, growth and retraction in impl/stepping-pool.ts; state slots and metadata rows in impl/slot-pool.ts, the draft model's KV in impl/draft-pool.ts, the host tier's loads in impl/loadback-pool.ts, writes landing in parts in impl/torn-pool.ts, D's metadata slot in impl/aux-pool.ts; the radix tree (its lock-underflow, nested prefixes) in impl/radix-pool.ts. */
export const POOL_COVERAGE: Coverage = coverage('the pool', {
  variants: ['buggy', 'length-fix', 'owner-check', 'hardened'],
  allocators: ['sorted', 'sglang', 'lifo'],
  switches: ['eviction', 'radix', 'tokenSlots', 'prefixes', 'prefixPages', 'lengthRule', 'decodeSteps', 'tableGrowth', 'retraction', 'stateSlots', 'draft', 'loadback', 'sourcePages'],
  faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'torn-write', 'auto-truncate', 'offload-after-free', 'resume-stale', 'premature-success', 'aux-torn', 'source-early-free', 'state-slot-reuse', 'metadata-collision', 'draft-stale', 'host-evict-during-load', 'read-before-load'],
  actions: POOL_KINDS,
  instead: {
    'allocator:any': 'hands out pages in one order',
    'fault:segment-overlap': 'releases a table without overlapping its calls',
  },
});

/** The faults of retraction (spec/config.ts's FAULT_NEEDS): the model-based test draws them only for configurations with it. */
export const POOL_LIFE_FAULTS: readonly Fault[] = coveredFaults(POOL_COVERAGE).filter((f) => FAULT_NEEDS[f] === 'retraction');

/** The faults of D's state slots and metadata rows (FAULT_NEEDS `stateSlots`): the model-based test draws them only for configurations with the slots. */
export const POOL_SLOT_FAULTS: readonly Fault[] = coveredFaults(POOL_COVERAGE).filter((f) => FAULT_NEEDS[f] === 'stateSlots');

/** The faults of the draft model's KV (FAULT_NEEDS `draft`): the model-based test draws them only for configurations with it. */
export const POOL_DRAFT_FAULTS: readonly Fault[] = coveredFaults(POOL_COVERAGE).filter((f) => FAULT_NEEDS[f] === 'draft');

/** The faults of the host tier's loads (FAULT_NEEDS `loadback`): the model-based test draws them only for configurations with it. */
export const POOL_LOAD_FAULTS: readonly Fault[] = coveredFaults(POOL_COVERAGE).filter((f) => FAULT_NEEDS[f] === 'loadback');

/** The faults of P's source pages (FAULT_NEEDS `sourcePages`): the model-based test draws them only for configurations with them. */
export const POOL_SOURCE_FAULTS: readonly Fault[] = coveredFaults(POOL_COVERAGE).filter((f) => FAULT_NEEDS[f] === 'sourcePages');

/** The faults of writes landing in parts (`torn-write`, `premature-success`, which acts on them, and `aux-torn`, the metadata slot's room apart from its payload): drawn only where the model-based test is asked for them (`torn`), so that the default draws stay those pinned before the pool had them. */
export const POOL_TORN_FAULTS: readonly Fault[] = coveredFaults(POOL_COVERAGE).filter((f) => f === 'torn-write' || f === 'premature-success' || f === 'aux-torn');

/** The faults the pool implements but those of retraction, of the state slots, of the draft model, of the host tier and of torn writes, in the catalogue's order: what its model-based test draws by default. */
export const POOL_FAULTS: readonly Fault[] = coveredFaults(POOL_COVERAGE).filter((f) => !POOL_LIFE_FAULTS.includes(f) && !POOL_SLOT_FAULTS.includes(f) && !POOL_DRAFT_FAULTS.includes(f) && !POOL_LOAD_FAULTS.includes(f) && !POOL_TORN_FAULTS.includes(f) && !POOL_SOURCE_FAULTS.includes(f));

/** The action kinds of a request's life on D: a decode step's page, retraction, the late copy and resume. */
export const POOL_LIFE_KINDS: readonly ActionKind[] = ['grow', 'retract', 'offload', 'resume'];

/** The action kinds of the draft model's KV: its part's landing. */
export const POOL_DRAFT_KINDS: readonly ActionKind[] = ['landDraft'];

/** The action kinds of the host tier: a load's landing and a host copy's eviction. */
export const POOL_LOAD_KINDS: readonly ActionKind[] = ['loadBack', 'evictHost'];

/** The action kinds of writes landing in parts: a content part, a tag part. */
export const POOL_TORN_KINDS: readonly ActionKind[] = ['landData', 'landTag'];

/** The action kinds of P's source pages: P's abort, freeing them. */
export const POOL_SOURCE_KINDS: readonly ActionKind[] = ['abortSource'];

/** The action kinds of D's metadata slot under `aux-torn`: its room and its payload landing. */
export const POOL_AUX_KINDS: readonly ActionKind[] = ['landRoom', 'landPayload'];

/** The action kinds the pool implements but those of a request's life on D, of the draft model, of the host tier, of torn writes, of the metadata slot and of P's source pages, in ACTION_KINDS's order: what its model-based test names by default. */
export const POOL_ACTION_KINDS: readonly ActionKind[] = coveredKinds(POOL_COVERAGE).filter((k) => !POOL_LIFE_KINDS.includes(k) && !POOL_DRAFT_KINDS.includes(k) && !POOL_LOAD_KINDS.includes(k) && !POOL_TORN_KINDS.includes(k) && !POOL_AUX_KINDS.includes(k) && !POOL_SOURCE_KINDS.includes(k));
