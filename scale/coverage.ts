/**
 * What the scale reference follows of the spec, declared once: the variants and faults the
 * scale test draws, and the configurations `to-spec.ts` anchors it to the spec on; any
 * other is refused (spec/coverage.ts derives the refusals). It is written from the
 * documentation of the first model, and a feature the spec gains is refused here until the
 * reference has it and this list names it.
 */
import { coverage, coveredFaults, coveredVariants, type Coverage } from '../spec/coverage.ts';
import { FAULT_NEEDS, type Fault, type Variant } from '../spec/config.ts';

/** The scale reference's coverage. */
export const REFERENCE_COVERAGE: Coverage = coverage('the reference pool', {
  variants: ['buggy', 'length-fix', 'owner-check'],
  allocators: ['sorted', 'sglang', 'lifo'],
  switches: ['eviction', 'radix', 'tokenSlots', 'prefixes', 'decodeSteps', 'tableGrowth', 'retraction'],
  faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'auto-truncate', 'offload-after-free', 'resume-stale'],
  actions: ['allocate', 'prefill', 'stub', 'handoff', 'grow', 'decode', 'free', 'timeout', 'insert', 'evict', 'retract', 'offload', 'resume'],
  instead: {
    'allocator:any': 'takes pages in one order',
    prefixPages: 'has one-page prefixes (its radix tree is the root and one-page leaves)',
    lengthRule: 'has the length rule gt only',
    'fault:torn-write': 'lands every write whole',
    'fault:segment-overlap': 'releases a table in one batch (two under lifo) that never overlap',
  },
});

/** The variants the reference model has, in VARIANTS's order: those the scale test draws. */
export const REFERENCE_VARIANTS: readonly Variant[] = coveredVariants(REFERENCE_COVERAGE);

/** The faults the reference takes, in the catalogue's order: those the scale test draws. */
export const REFERENCE_FAULTS: readonly Fault[] = coveredFaults(REFERENCE_COVERAGE);

/** The faults of retraction (they act only under `retraction`): the scale test draws them only where it draws retraction, so that other runs stay as they were. */
export const REFERENCE_LIFE_FAULTS: readonly Fault[] = REFERENCE_FAULTS.filter((f) => FAULT_NEEDS[f] === 'retraction');
