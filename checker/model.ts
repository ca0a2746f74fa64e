/**
 * The model interface: what the checker needs from a model, and nothing more. It is
 * Stateright's `Model` trait in TypeScript: initial states, the actions enabled in a state
 * (pushed into a buffer the caller reuses), the next state for an action, and named
 * properties. Everything else is optional, with a default the checker supplies.
 *
 * States are fixed-length byte strings (`stateBytes` bytes), so that the checker can
 * fingerprint and store them as they are; a model chooses its own layout. Actions are
 * numbered `0 .. actionCount-1` in a fixed order: a path is a list of these numbers,
 * rebuilt into a trace by replay, which is why the order must be deterministic.
 *
 * The checker imports nothing of any particular model; a model imports this file.
 */
import type { Zobrist } from './zobrist.ts';

/** A named state predicate: an invariant (`always`) or a non-vacuity witness (`sometimes`). */
export interface ModelProperty {
  /** The name printed in counterexamples and reports. */
  readonly name: string;
  /** `always`: must hold in every reachable state; `sometimes`: must hold in some, and fail in some. */
  readonly kind: 'always' | 'sometimes';
  /** Whether the property is expected to matter for this model (a witness that does not apply is not looked for); default true. */
  readonly applies?: boolean;
  /** Whether an invariant is checked when the caller names none; default true (false for one that is asked for by name only). */
  readonly byDefault?: boolean;
  /** The predicate. */
  readonly holds: (s: Uint8Array) => boolean;
}

/**
 * A fast test of several invariants at once: `holds(s)` is true exactly when every
 * property named in `names` holds in `s`. The search asks it first and evaluates those
 * properties one by one only where it is false, so that a state in which all of them
 * hold (nearly every state) costs one call.
 */
export interface Conjunction {
  /** The names of the `always` properties it stands for. */
  readonly names: readonly string[];
  /** Whether all of them hold in `s`. */
  readonly holds: (s: Uint8Array) => boolean;
}

/** Receives a successor (valid only until the receiver returns) and the number of the action that made it. */
export type SuccessorSink = (t: Uint8Array, action: number) => void;

/**
 * Receives a successor's action number and its fingerprint (the raw halves of
 * `zobrist.ts`), and optionally whether it is `quiet`: every invariant the model's
 * {@link Conjunction} names has the same value in it as in its parent (the action
 * changes none of what they read). The search then knows them to hold in a new quiet
 * state without evaluating them: an invariant still unviolated held in the parent.
 */
export type FingerprintSink = (action: number, h1: number, h2: number, quiet?: boolean) => void;

/**
 * Optional fast path for a search without symmetry: the successors of a state as
 * fingerprints first, from the parent's fingerprint and the bytes each action changes
 * (`zobrist.ts`), and written out only for those the search keeps.
 */
export interface HashedSuccessors {
  /** Passes each successor of `s`, whose fingerprint under `z` is `(h1, h2)`, to `sink` as its action number and fingerprint under `z`, in ascending action order: the successors `successors` gives. */
  fingerprints(s: Uint8Array, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void;
  /** Writes into `out`, which holds a copy of `s`, what action `action` (one that `fingerprints` gave for `s`) changes. */
  apply(s: Uint8Array, action: number, out: Uint8Array): void;
}

/** A model the checker can explore; `A` is the model's own action type. */
export interface Checkable<A = unknown> {
  /** Bytes per state. */
  readonly stateBytes: number;
  /** The initial states (most models have one). */
  initialStates(): readonly Uint8Array[];
  /** Number of actions; they are numbered `0 .. actionCount-1` in the model's fixed order. */
  readonly actionCount: number;
  /** Action number `i` as the model's own value (what traces carry). */
  action(i: number): A;
  /** Action number `i` as people read it: `allocate(A)`. */
  actionLabel(i: number): string;
  /** Pushes the numbers of the actions enabled in `s`, ascending, into `out` (cleared first). */
  actions(s: Uint8Array, out: number[]): void;
  /** The state after action `i` in `s`, or `undefined` when it is not enabled. The result may be reused by the next call: copy it to keep it. */
  nextState(s: Uint8Array, i: number): Uint8Array | undefined;
  /** The invariants and witnesses, in the order they are checked and reported. */
  readonly properties: readonly ModelProperty[];
  /** Optional fast path: several invariants tested at once (see {@link Conjunction}). */
  readonly conjunction?: Conjunction;
  /**
   * Optional: the canonical member of `s`'s symmetry orbit. Returns `s` or a buffer the
   * next call may overwrite. Must map every state of an orbit to the same state of that
   * orbit, and the properties must be symmetric.
   */
  canonicalize?(s: Uint8Array): Uint8Array;
  /**
   * Optional: whether `s` is a legitimate end, a state in which it is right that nothing
   * more happens. A state with no enabled action that is not a legitimate end is a
   * `Deadlock`. Default: every state is a legitimate end (no deadlock check).
   */
  isLegitimateEnd?(s: Uint8Array): boolean;
  /**
   * Optional fast path: passes every successor of `s` to `sink`, with its action number,
   * in ascending action order; the same successors as `actions` and `nextState` give.
   */
  successors?(s: Uint8Array, sink: SuccessorSink): void;
  /**
   * Optional: true when the model, per successor, copies the state it was given at most
   * once by an argument-less `s.slice()`, and keeps no such copy past the sink. The
   * search may then hand in a `ScratchState` (`scratch.ts`) whose `slice()` writes
   * straight into the search's own storage. Default false.
   */
  readonly slicesOnce?: boolean;
  /** Optional: successors as fingerprints first (see {@link HashedSuccessors}); used by a search without a canonicaliser. */
  readonly hashed?: HashedSuccessors;
}

/** A model's successors through the fast path, or through `actions` and `nextState` when it has none. */
export function successorsOf<A>(model: Checkable<A>): (s: Uint8Array, sink: SuccessorSink) => void {
  const fast = model.successors?.bind(model);
  if (fast !== undefined) return fast;
  const enabled: number[] = [];
  return (s, sink) => {
    model.actions(s, enabled);
    for (const i of enabled) {
      const t = model.nextState(s, i);
      if (t !== undefined) sink(t, i);
    }
  };
}

/**
 * How a worker thread builds a model for itself: a module that exports `createModel`,
 * and the JSON it is called with. Used by the parallel search, which cannot send
 * functions to another thread.
 */
export interface ModelFactory {
  /** A module specifier (a `file://` URL or an absolute path) whose module exports `createModel(config): Checkable`. */
  readonly module: string;
  /** The JSON-serialisable argument of `createModel`. */
  readonly config: unknown;
}

/** The invariants a search checks: those `names` gives, else every `always` property the model checks by default. */
export function invariantsToCheck<A>(model: Checkable<A>, names?: readonly { readonly name: string }[]): ModelProperty[] {
  const all = model.properties.filter((p) => p.kind === 'always');
  if (names === undefined) return all.filter((p) => p.byDefault !== false);
  return all.filter((p) => names.some((q) => q.name === p.name));
}
