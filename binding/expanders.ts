/**
 * The spec's transitions, arranged for the search's fast path. `step` looks the kind up
 * for every call; the search instead resolves each kind once, into an expander that
 * tries the kind's action for every request in turn. Each fast expander calls one spec
 * function from its own call site, which V8 can inline, where one shared call site for
 * every kind could not; disabled actions are most of the calls, and this halves their
 * cost. A kind with no fast expander here gets the generic one, through `TRANSITIONS`:
 * correct, only slower. Enabledness and effects stay the transitions' own, and
 * successors come out in the spec's action order (kind-major, then request), so
 * numbering and traces are those of `step` over `allActions` (an agreement test pins it).
 *
 * Every transition copies its input once, with `slice()`: the search hands in a
 * {@link ScratchState}, whose `slice()` reuses one buffer, so a successor costs no
 * allocation. Each successor is consumed by the sink before the next action is tried.
 */
import { ScratchState } from '../checker/scratch.ts';
import { allActions, ACTION_KINDS, type Action, type ActionKind } from '../spec/actions.ts';
import { fastSuccessorsOf } from './successors.ts';
import type { Model } from '../spec/model.ts';
import type { State } from '../spec/state.ts';
import { allocate, decode, free, grow, handoff, insert, prefill, stub, timeout, TRANSITIONS, type Transition } from '../spec/transitions.ts';

/** Receives a successor and the index (in `allActions`) of the action that made it. */
export type Sink = (t: State, action: number) => void;

/** Tries one kind's action for every request of a state, in request order, passing each successor to the sink. */
export type Expander = (s: State, sink: Sink) => void;

/** A kind's expander for model `m` whose actions start at index `base`. */
type ExpanderOf = (m: Model, base: number) => Expander;

/** The generic expander: one shared call site, through the transition table. */
const generic = (fn: Transition): ExpanderOf => (m, base) => (s, sink) => {
  for (let r = 0; r < m.n; r++) {
    const t = fn(m, s, r);
    if (t !== undefined) sink(t, base + r);
  }
};

/** Fast expanders: one function literal per kind, so one call site each. Optional per kind. */
const FAST: Partial<Record<ActionKind, ExpanderOf>> = {
  allocate: (m, base) => (s, sink) => {
    for (let r = 0; r < m.n; r++) {
      const t = allocate(m, s, r);
      if (t !== undefined) sink(t, base + r);
    }
  },
  prefill: (m, base) => (s, sink) => {
    for (let r = 0; r < m.n; r++) {
      const t = prefill(m, s, r);
      if (t !== undefined) sink(t, base + r);
    }
  },
  stub: (m, base) => (s, sink) => {
    for (let r = 0; r < m.n; r++) {
      const t = stub(m, s, r);
      if (t !== undefined) sink(t, base + r);
    }
  },
  handoff: (m, base) => (s, sink) => {
    for (let r = 0; r < m.n; r++) {
      const t = handoff(m, s, r);
      if (t !== undefined) sink(t, base + r);
    }
  },
  decode: (m, base) => (s, sink) => {
    for (let r = 0; r < m.n; r++) {
      const t = decode(m, s, r);
      if (t !== undefined) sink(t, base + r);
    }
  },
  free: (m, base) => (s, sink) => {
    for (let r = 0; r < m.n; r++) {
      const t = free(m, s, r);
      if (t !== undefined) sink(t, base + r);
    }
  },
  timeout: (m, base) => (s, sink) => {
    for (let r = 0; r < m.n; r++) {
      const t = timeout(m, s, r);
      if (t !== undefined) sink(t, base + r);
    }
  },
  insert: (m, base) => (s, sink) => {
    for (let r = 0; r < m.n; r++) {
      const t = insert(m, s, r);
      if (t !== undefined) sink(t, base + r);
    }
  },
};

/** The expanders of `m`'s kinds, in `ACTION_KINDS` order; `fast: false` gives only generic ones (for the agreement test). */
export function expandersOf(m: Model, actions: readonly Action[] = allActions(m), fast = true): Expander[] {
  const out: Expander[] = [];
  for (const kind of ACTION_KINDS) {
    const base = actions.findIndex((a) => a.kind === kind);
    if (base < 0) continue;
    // Under allocator `any`, allocate (and grow) is a block of actions naming their pages: one expander runs the block.
    if ((kind === 'allocate' || kind === 'grow') && m.allocator === 'any') {
      out.push(choiceExpander(m, actions, base, kind));
      continue;
    }
    // An expander assumes the spec's order: a kind's actions are contiguous, one per request in order.
    for (let r = 0; r < m.n; r++) {
      const a = actions[base + r];
      if (a?.kind !== kind || a.r !== r) throw new Error(`spec: allActions is not kind-major at ${kind}(${r})`);
    }
    out.push(((fast ? FAST[kind] : undefined) ?? generic(TRANSITIONS[kind]))(m, base));
  }
  return out;
}

/** The expander of allocator `any`'s allocate (or grow) block: every action from `base` that names pages, in order. */
function choiceExpander(m: Model, actions: readonly Action[], base: number, kind: 'allocate' | 'grow'): Expander {
  let end = base;
  while (actions[end]?.kind === kind) end++;
  const block = actions.slice(base, end);
  const take = kind === 'allocate' ? allocate : grow;
  return (s, sink) => {
    for (let i = 0; i < block.length; i++) {
      const a = block[i]!;
      const t = take(m, s, a.r, a.pages);
      if (t !== undefined) sink(t, base + i);
    }
  };
}

/**
 * Every successor of `s` in action order, through the expanders, with one reused scratch
 * buffer; a state the search hands in as a scratch state already is one (the model
 * accelerator declares `slicesOnce`, `checked-model.ts`) and is used as it is.
 */
export function successorsFunction(m: Model, fast = true): (s: State, sink: Sink) => void {
  const scratch = new ScratchState(m.size);
  // The plainest configurations have a faster form still, held to the spec by a test (binding/successors.ts).
  const plain = fast ? fastSuccessorsOf(m) : undefined;
  if (plain !== undefined) {
    return (s, sink) => {
      let from: State = scratch;
      if (s instanceof ScratchState) from = s;
      else scratch.set(s);
      plain(from, sink);
    };
  }
  const expanders = expandersOf(m, allActions(m), fast);
  return (s, sink) => {
    let from: State = scratch;
    if (s instanceof ScratchState) from = s;
    else scratch.set(s);
    for (let k = 0; k < expanders.length; k++) expanders[k]!(from, sink);
  };
}
