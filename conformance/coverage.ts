/**
 * What `validate-log` follows of the spec, declared once: the faults whose logs it holds
 * against the spec, the actions a log event stands for (`table.ts`), and the switches a
 * log's `config` event may turn on; any other is refused (spec/coverage.ts derives the
 * refusals, and `table.ts`'s unlogged actions with their reasons). A feature the spec gains
 * is refused here until the log format has its events and this list names it.
 */
import { coverage, type Coverage } from '../spec/coverage.ts';

/** validate-log's coverage. A write's part landings are hidden steps (table.ts) that the pool lands whole, its draft model's part with them; D's state slots are slot-ledger.ts's, P's source pages and the early commit pool.ts's, the host tier's loads and the draft model's KV tier-pool.ts's (under `radix`, radix.ts keeps the slots, the source pages and the draft KV; the early commit and the host tier are refused with it, log-model.ts); aux-torn stays refused (what a log cannot show, in its words below). */
export const VALIDATOR_COVERAGE: Coverage = coverage('validate-log', {
  variants: ['buggy', 'length-fix', 'owner-check', 'hardened'],
  allocators: ['sorted', 'sglang', 'lifo', 'any'],
  switches: ['eviction', 'radix', 'tableGrowth', 'retraction', 'decodeSteps', 'tokenSlots', 'prefixes', 'prefixPages', 'lengthRule', 'stateSlots', 'sourcePages', 'draft', 'loadback'],
  faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'torn-write', 'offload-after-free', 'resume-stale', 'source-early-free', 'premature-success', 'state-slot-reuse', 'metadata-collision', 'draft-stale', 'host-evict-during-load', 'read-before-load'],
  instead: {
    // What a log shows of D's metadata slot is the commit's verdict on its room (handoff, or abortCommit), not when the room and the payload landed.
    'fault:aux-torn': "reads D's metadata slot only as the commit's verdict on its room (a handoff or an abortCommit line), never when its room and its payload landed apart",
  },
  actions: ['allocate', 'prefill', 'stub', 'handoff', 'grow', 'decode', 'free', 'timeout', 'insert', 'evict', 'landData', 'landTag', 'retract', 'offload', 'resume', 'allocFail', 'abortCommit', 'abortSource', 'landDraft', 'loadBack', 'evictHost'],
});
