/**
 * What the adapter protocol (docs/ADAPTER.md) carries, declared once: the actions sent to
 * an adapter, and the configurations `mbt --adapter` accepts; any other is refused
 * (spec/coverage.ts derives the refusals). A configuration is sent as given, so the faults
 * an adapter implements are its own business, and the comparison says so; those that need
 * an action or a setting the protocol has no word for are refused.
 *
 * Version 2 adds a request's life on D (docs/LIFE.md): decode in several steps
 * (`decodeSteps`), the table growing page by page (`tableGrowth`, action `grow`), and
 * retraction and resume (`retraction`, actions `retract`, `offload`, `resume`, faults
 * `offload-after-free` and `resume-stale`). The versioning rule: pagecheck sends its
 * newest version in `hello`, the adapter answers with the one it speaks, and a
 * configuration with any part of the life is refused (exit 2, naming the flags) to an
 * adapter that answered 1, before any `reset`: a version-1 adapter knows no `decoding`
 * phase and no `retract`, and would fail the comparison for a reason that is not a bug.
 * Version 1's configurations and runs are unchanged: the same named actions, drawn in the
 * same order, so that version 1's seeds give the runs they gave.
 */
import { coverage, coveredKinds, type Coverage } from '../../spec/coverage.ts';
import type { ActionKind, Config, Fault, Variant } from '../../spec/index.ts';

/** The adapter protocol's coverage. */
export const ADAPTER_COVERAGE: Coverage = coverage('the adapter protocol (version 2)', {
  variants: ['buggy', 'length-fix', 'owner-check', 'hardened'],
  allocators: ['sorted', 'sglang', 'lifo'],
  switches: ['tokenSlots', 'prefixes', 'lengthRule', 'decodeSteps', 'tableGrowth', 'retraction'],
  faults: ['silent-stub', 'early-free', 'stale-free', 'prefix-poison', 'double-free', 'lock-underflow', 'auto-truncate', 'offload-after-free', 'resume-stale'],
  actions: ['allocate', 'prefill', 'stub', 'handoff', 'grow', 'decode', 'free', 'timeout', 'insert', 'retract', 'offload', 'resume'],
  instead: {
    'allocator:any': 'names no pages in its allocate',
    prefixPages: 'has one-page prefixes (the pool, mbt without --adapter, has longer ones)',
  },
});

/** The actions of a request's life on D (version 2): named in a run only when its configurations have the life. */
export const ADAPTER_LIFE_KINDS: readonly ActionKind[] = ['grow', 'retract', 'offload', 'resume'];

/** The action kinds of version 1, in ACTION_KINDS's order: the named actions of every run. */
export const ADAPTER_KINDS: readonly ActionKind[] = coveredKinds(ADAPTER_COVERAGE).filter((k) => !ADAPTER_LIFE_KINDS.includes(k));

/** The variants random configurations draw when none is named: those of the protocol's first version (`hardened` came later). */
export const ADAPTER_VARIANTS: readonly Variant[] = ['buggy', 'length-fix', 'owner-check'];

/** The faults random configurations switch on: those of the protocol's first version (docs/ADAPTER.md). */
export const ADAPTER_FAULTS: readonly Fault[] = ['silent-stub', 'early-free', 'stale-free', 'prefix-poison'];

/** The faults of retraction, which random configurations with the life switch on besides. */
export const ADAPTER_LIFE_FAULTS: readonly Fault[] = ['offload-after-free', 'resume-stale'];

/** The version that carries a request's life on D. */
export const LIFE_VERSION = 2;

/** The parts of a request's life on D a configuration has, as their flags: `--decode-steps`, `--table-growth`, `--retraction` (empty for a version-1 configuration). */
export function lifeFlags(config: Pick<Config, 'decodeSteps' | 'tableGrowth' | 'retraction'>): string[] {
  return [
    ...((config.decodeSteps ?? 1) > 1 ? ['--decode-steps'] : []),
    ...(config.tableGrowth === true ? ['--table-growth'] : []),
    ...(config.retraction === true ? ['--retraction'] : []),
  ];
}
