/**
 * A fast form of the spec's successor generation, for the search's hot loop, on the
 * plainest family of configurations (`family.ts`): whole pages (one slot per page), the
 * `sorted` allocator, no prompt prefixes, no eviction, the owner check on or off,
 * `hardened` (its `revoke-writer` and `release-checks-holder`, each on or off), one decode
 * step, at most faults `silent-stub`, `early-free`, `stale-free` and `torn-write`,
 * one-byte widths. The readable transitions are in `spec/transitions.ts`; the family's
 * actions (`allocate`, `prefill`, `stub`, `handoff`, `decode`, `free`, `timeout` under
 * `early-free`, `landData` and `landTag` under `torn-write`) are described once, as data,
 * in `fast-actions.ts`, and their code is emitted from that description (`fast-emit.ts`).
 *
 * Why: the readable transitions ask the model for every switch and offset through
 * dozens of small accessors per successor, which V8 cannot all inline; a successor cost
 * about as much as the rest of the search together. The emitted code is one loop per kind
 * with the offsets in locals, the free pages are found once per state, and a read record's
 * severity is a table lookup (the same table as `properties.ts`, from `verdictOf`).
 *
 * Two ways: successors written into a copy of the state (`fastSuccessorsOf`, through
 * `slice()`, so that a `ScratchState` writes them straight into the search's batch), or
 * folded into the parent's Zobrist fingerprint without writing anything (`fastHashedOf`,
 * for the fingerprint-first search, which writes only the successors that are new, with
 * `apply`). A quiet successor (`checker/model.ts`) is said so; which actions are quiet
 * follows from the description too (`fast-emit.ts`, `isQuiet`).
 *
 * Successors come out exactly as the expanders give them: the same states, in the
 * spec's action order. Tests hold both ways to `step` over `allActions` on every
 * reachable state of configurations of the family, pinned (test/binding/successors.test.ts)
 * and random (test/binding/agreement.test.ts); a configuration outside it gets
 * `undefined` and the expanders.
 */
import type { HashedSuccessors } from '../checker/model.ts';
import { FastFamily, inFastFamily } from './family.ts';
import { apply } from './fast-apply.ts';
import { fingerprints } from './fast-fingerprints.ts';
import { successors, type Sink } from './fast-successors.ts';
import type { Model } from '../spec/model.ts';
import type { State } from '../spec/state.ts';

export { inFastFamily } from './family.ts';

/** The fast successor function of `m`, or `undefined` when `m` is outside the family. */
export function fastSuccessorsOf(m: Model): ((s: State, sink: Sink) => void) | undefined {
  if (!inFastFamily(m)) return undefined;
  const family = new FastFamily(m);
  return (s, sink) => successors(family, s, sink);
}

/** The fingerprint-first successors of `m` (`checker/model.ts`), or `undefined` when `m` is outside the family. */
export function fastHashedOf(m: Model): HashedSuccessors | undefined {
  if (!inFastFamily(m)) return undefined;
  const family = new FastFamily(m);
  return {
    fingerprints: (s, h1, h2, z, sink) => fingerprints(family, s, h1, h2, z, sink),
    apply: (s, action, out) => apply(family, s, action, out),
  };
}
