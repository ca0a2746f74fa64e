/**
 * The model interface: what the checker needs from a model, and nothing more. It is
 * Stateright's `Model` trait in TypeScript: five required members (the state's size, the
 * initial states, the actions, the next state for an action, the properties), two
 * optional ones that change what a search means (legitimate ends, symmetry), and one
 * optional {@link Accelerator} that holds every speed hook. A model without the
 * accelerator is checked the same way, with the same counts and traces, only slower.
 *
 * States are fixed-length byte strings (`stateBytes` bytes), so that the checker can
 * fingerprint and store them as they are; a model chooses its own layout. Actions are
 * numbered by their place in `actions`, a fixed order: a path is a list of these numbers,
 * rebuilt into a trace by replay, which is why the order must be deterministic. An action
 * is enabled in a state exactly when `nextState` gives a state for it.
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

/** A model the checker can explore; `A` is the model's own action type. */
export interface Checkable<A = unknown> {
  /** Bytes per state. */
  readonly stateBytes: number;
  /** The initial states (most models have one). */
  initialStates(): readonly Uint8Array[];
  /** Every action, in the model's fixed order: action number `i` is `actions[i]` (what traces carry). */
  readonly actions: readonly A[];
  /** The state after action number `i` in `s`, or `undefined` when it is not enabled. The result may be reused by the next call: copy it to keep it. */
  nextState(s: Uint8Array, i: number): Uint8Array | undefined;
  /** The invariants and witnesses, in the order they are checked and reported. */
  readonly properties: readonly ModelProperty[];
  /**
   * Optional: whether `s` is a legitimate end, a state in which it is right that nothing
   * more happens. A state with no enabled action that is not a legitimate end is a
   * `Deadlock`. Default: every state is a legitimate end (no deadlock check).
   */
  isLegitimateEnd?(s: Uint8Array): boolean;
  /**
   * Optional symmetry (Stateright's `Representative`): the canonical member of `s`'s
   * orbit. Returns `s` or a buffer the next call may overwrite. Must map every state of
   * an orbit to the same state of that orbit, and the properties must be symmetric. Not
   * a speed hook: a search with it counts orbits, not states.
   */
  canonicalize?(s: Uint8Array): Uint8Array;
  /**
   * Optional partial-order reduction (see {@link Reduction}): asked for by the option
   * `por`, and offered only where it is sound for every property of the model. Not a
   * speed hook either: a search with it counts the states of a reduced graph.
   */
  readonly reduction?: Reduction;
  /** Optional speed hooks; the search gives the same results without them. */
  readonly fast?: Accelerator;
}

/**
 * Partial-order reduction (docs/POR.md): from each state the search expands only an ample
 * subset of its successors, one that keeps every deadlock and, for the properties still
 * open, every value they can take: a violation of an invariant, a witness reached or
 * seen false. The model knows which actions are independent; the search tells it which
 * properties are open, at the start of each level (so that every number of threads reduces
 * alike), and re-finds a violation's shortest trace without the reduction
 * (`reduction.ts`).
 */
export interface Reduction {
  /** A reducer that keeps the values of the properties `open[k]` marks (by index in the model's `properties`). */
  reducer(open: readonly boolean[]): Reducer;
}

/** The ample sets of one level's states (see {@link Reduction}). */
export interface Reducer {
  /**
   * Of the successors of `s`, made by the actions `actions[from .. to)` (ascending), those
   * to keep: writes their offsets from `from` into `keep`, ascending, and returns how many;
   * `to - from` keeps every one (and `keep` is then not read). Keeps at least one.
   */
  ample(s: Uint8Array, actions: Uint8Array, from: number, to: number, keep: Int32Array): number;
}

/**
 * Every speed hook of a model in one object. Each one must agree with the model's
 * required members (the model's tests hold them to it); the search uses those it finds
 * and supplies the plain form of the others.
 */
export interface Accelerator {
  /**
   * Passes every successor of `s` to `sink`, with its action number, in ascending action
   * order: the states `nextState` gives over `actions`. Default: `nextState` for every action.
   */
  readonly successors?: (s: Uint8Array, sink: SuccessorSink) => void;
  /**
   * True when `successors`, per successor, copies the state it was given at most once by
   * an argument-less `s.slice()`, and keeps no such copy past the sink. The search may
   * then hand in a `ScratchState` (`scratch.ts`) whose `slice()` writes straight into the
   * search's own storage. Default false.
   */
  readonly slicesOnce?: boolean;
  /** Several invariants tested at once (see {@link Conjunction}). */
  readonly conjunction?: Conjunction;
  /** Successors as fingerprints first (see {@link HashedSuccessors}); used by a search without a canonicaliser in effect. */
  readonly hashed?: HashedSuccessors;
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
 * The successors of a state as fingerprints first, from the parent's fingerprint and the
 * bytes each action changes (`zobrist.ts`), written out only for those the search keeps.
 */
export interface HashedSuccessors {
  /** Passes each successor of `s`, whose fingerprint under `z` is `(h1, h2)`, to `sink` as its action number and fingerprint under `z`, in ascending action order: the model's successors. */
  fingerprints(s: Uint8Array, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void;
  /** Writes into `out`, which holds a copy of `s`, what action `action` (one that `fingerprints` gave for `s`) changes. */
  apply(s: Uint8Array, action: number, out: Uint8Array): void;
}

/** A model's successors through its accelerator, or through `nextState` over every action when it has none. */
export function successorsOf<A>(model: Checkable<A>): (s: Uint8Array, sink: SuccessorSink) => void {
  const fast = model.fast?.successors;
  if (fast !== undefined) return fast;
  const count = model.actions.length;
  return (s, sink) => {
    for (let i = 0; i < count; i++) {
      const t = model.nextState(s, i);
      if (t !== undefined) sink(t, i);
    }
  };
}

/** Puts the numbers of the actions enabled in `s`, ascending, into `out` (cleared first). */
export function enabledActions<A>(model: Checkable<A>, s: Uint8Array, out: number[]): void {
  out.length = 0;
  for (let i = 0; i < model.actions.length; i++) if (model.nextState(s, i) !== undefined) out.push(i);
}

/** Action number `i` of `model` as people read it in the checker's own messages. */
export function describeAction<A>(model: Checkable<A>, i: number): string {
  const a = model.actions[i];
  return typeof a === 'string' ? a : `action ${i} ${JSON.stringify(a)}`;
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
