/**
 * The properties of the model, Stateright style: named predicates with a kind. An
 * `always` property is an invariant, checked in every reachable state; a `sometimes`
 * property is a non-vacuity witness, a state that must be reachable, or the invariants
 * could hold only because nothing happens. A witness that does not apply to a
 * configuration (no over-long request, say) is not expected there.
 */
import { INVARIANTS } from './invariants.ts';
import type { Model } from './model.ts';
import type { State } from './state.ts';
import { WITNESSES } from './witnesses.ts';

export * from './invariants.ts';
export * from './witnesses.ts';

/** What breaks an invariant in a state: the requests, and the pages (with their table positions), at fault. */
export interface Breach {
  /** Indices of the requests at fault. */
  readonly requests: readonly number[];
  /** The pages at fault: the request, its table position and the page id. */
  readonly pages: readonly { readonly r: number; readonly i: number; readonly page: number }[];
}

/** A named state predicate: an invariant (`always`) or a witness (`sometimes`). */
export interface Property {
  /** The name printed in counterexamples and reports. */
  readonly name: string;
  /** `always`: must hold in every reachable state; `sometimes`: must hold in some. */
  readonly kind: 'always' | 'sometimes';
  /** Whether the property is expected to matter for this configuration. */
  readonly appliesTo: (m: Model) => boolean;
  /** The predicate itself. */
  readonly holds: (m: Model, s: State) => boolean;
  /** For an invariant that says so: what breaks it in `s`, or `undefined` when it holds. */
  readonly breach?: (m: Model, s: State) => Breach | undefined;
}

/** The property of that name, if there is one. */
export function propertyNamed(name: string): Property | undefined {
  return [...INVARIANTS, ...WITNESSES].find((p) => p.name === name);
}
