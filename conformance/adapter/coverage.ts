/**
 * What the adapter protocol (version 1, docs/ADAPTER.md) carries, declared once: the
 * actions sent to an adapter, and the configurations `mbt --adapter` accepts; any other is
 * refused (spec/coverage.ts derives the refusals). A configuration is sent as given, so the
 * faults an adapter implements are its own business, and the comparison says so; those
 * that need an action or a setting the protocol has no word for are refused.
 */
import { coverage, coveredKinds, type Coverage } from '../../spec/coverage.ts';
import type { ActionKind, Fault, Variant } from '../../spec/index.ts';

/** The adapter protocol's coverage. */
export const ADAPTER_COVERAGE: Coverage = coverage('the adapter protocol (version 1)', {
  variants: ['buggy', 'length-fix', 'owner-check', 'hardened'],
  allocators: ['sorted', 'sglang', 'lifo'],
  switches: ['tokenSlots', 'prefixes', 'lengthRule'],
  faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'auto-truncate'],
  actions: ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert'],
  instead: {
    'allocator:any': 'names no pages in its allocate',
    prefixPages: 'has one-page prefixes (the pool, mbt without --adapter, has longer ones)',
  },
});

/** The action kinds an adapter is sent, in ACTION_KINDS's order. */
export const ADAPTER_KINDS: readonly ActionKind[] = coveredKinds(ADAPTER_COVERAGE);

/** The variants random configurations draw when none is named: those of the protocol's first version (`hardened` came later). */
export const ADAPTER_VARIANTS: readonly Variant[] = ['buggy', 'length-fix', 'owner-check'];

/** The faults random configurations switch on: those of the protocol's first version (docs/ADAPTER.md). */
export const ADAPTER_FAULTS: readonly Fault[] = ['silent-stub', 'early-free', 'stale-free', 'prefix-poison'];
