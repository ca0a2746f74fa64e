/**
 * What `validate-log` follows of the spec, declared once: the faults whose logs it holds
 * against the spec, the actions a log event stands for (`table.ts`), and the switches a
 * log's `config` event may turn on; any other is refused (spec/coverage.ts derives the
 * refusals, and `table.ts`'s unlogged actions with their reasons). A feature the spec gains
 * is refused here until the log format has its events and this list names it.
 */
import { coverage, type Coverage } from '../spec/coverage.ts';

/** validate-log's coverage. The part landings are hidden steps of a write (table.ts), though the faults that make them are refused yet. */
export const VALIDATOR_COVERAGE: Coverage = coverage('validate-log', {
  variants: ['buggy', 'length-fix', 'owner-check', 'hardened'],
  allocators: ['sorted', 'sglang', 'lifo', 'any'],
  switches: ['eviction', 'radix', 'tableGrowth', 'retraction', 'decodeSteps', 'tokenSlots', 'prefixes', 'prefixPages', 'lengthRule', 'stateSlots', 'sourcePages'],
  faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'torn-write', 'offload-after-free', 'resume-stale', 'source-early-free', 'state-slot-reuse', 'metadata-collision'],
  actions: ['allocate', 'prefill', 'stub', 'handoff', 'grow', 'decode', 'free', 'timeout', 'insert', 'evict', 'landData', 'landTag', 'retract', 'offload', 'resume', 'allocFail', 'abortCommit', 'abortSource'],
});
