/**
 * The spec's transitions, arranged for the search. `step` matches on the action kind for
 * every call; the search instead resolves each kind once, into an expander that tries the
 * kind's action for every request in turn. Each expander calls one spec function from
 * its own call site, which V8 can inline, where one shared call site for every kind
 * could not; disabled actions are most of the calls, and this halves their cost.
 * Enabledness and effects stay the spec's own, and successors come out in the spec's
 * action order (kind-major, then request), so numbering and traces are unchanged.
 */
import { match } from 'ts-pattern';
import {
  ACTION_KINDS,
  allActions,
  allocate,
  decode,
  evict,
  free,
  handoff,
  insert,
  landData,
  landTag,
  prefill,
  stub,
  timeout,
  type Action,
  type ActionKind,
  type Model,
  type State,
} from '../spec/index.ts';

/** A transition of one kind: the next state, or `undefined` when not enabled. */
export type Transition = (m: Model, s: State, r: number) => State | undefined;

/** Receives a successor and the index (in `allActions`) of the action that made it. */
export type Sink = (t: State, action: number) => void;

/** Tries one kind's action for every request of a state, in request order, passing each successor to the sink. */
export type Expander = (s: State, sink: Sink) => void;

/** The spec's function for an action kind. */
export function transitionOf(kind: ActionKind): Transition {
  return match(kind)
    .with('allocate', () => allocate)
    .with('prefill', () => prefill)
    .with('stub', () => stub)
    .with('handoff', () => handoff)
    .with('decode', () => decode)
    .with('free', () => free)
    .with('timeout', () => timeout)
    .with('insert', () => insert)
    .with('evict', () => evict)
    .with('landData', () => landData)
    .with('landTag', () => landTag)
    .exhaustive();
}

/** The expander of `kind`, whose actions start at index `base`; one function literal per kind, so one call site each. */
function expanderOf(m: Model, kind: ActionKind, base: number): Expander {
  const n = m.n;
  return match(kind)
    .with('allocate', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = allocate(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('prefill', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = prefill(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('stub', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = stub(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('handoff', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = handoff(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('decode', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = decode(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('free', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = free(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('timeout', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = timeout(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('insert', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = insert(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('evict', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = evict(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('landData', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = landData(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .with('landTag', (): Expander => (s, sink) => {
      for (let r = 0; r < n; r++) {
        const t = landTag(m, s, r);
        if (t !== undefined) sink(t, base + r);
      }
    })
    .exhaustive();
}

/** The actions of a model in the spec's order, with their transitions resolved. */
export interface ActionTable {
  /** The actions, as `allActions` lists them. */
  readonly actions: readonly Action[];
  /** Per action: its transition. */
  readonly fns: readonly Transition[];
  /** Per action: its request. */
  readonly requests: Int32Array;
  /** Per kind present, in order: its expander. Together they yield successors in `actions` order. */
  readonly expanders: readonly Expander[];
}

/** Resolves every action of `m` once. */
export function actionTable(m: Model): ActionTable {
  const actions = allActions(m);
  const expanders: Expander[] = [];
  for (const kind of ACTION_KINDS) {
    const base = actions.findIndex((a) => a.kind === kind);
    if (base < 0) continue;
    // Under allocator `any`, allocate is a block of actions naming their pages: one expander runs the block.
    if (kind === 'allocate' && m.allocator === 'any') {
      expanders.push(choiceExpander(m, actions, base));
      continue;
    }
    // The expander assumes the spec's layout: a kind's actions are contiguous, one per request in order.
    for (let r = 0; r < m.n; r++) {
      const a = actions[base + r];
      if (a?.kind !== kind || a.r !== r) throw new Error(`checker: allActions is not kind-major at ${kind}(${r})`);
    }
    expanders.push(expanderOf(m, kind, base));
  }
  return {
    actions,
    fns: actions.map((a): Transition => (a.pages === undefined ? transitionOf(a.kind) : (mm, s, r) => allocate(mm, s, r, a.pages))),
    requests: Int32Array.from(actions, (a) => a.r),
    expanders,
  };
}

/** The expander of allocator `any`'s allocate block: every action from `base` that names pages, in order. */
function choiceExpander(m: Model, actions: readonly Action[], base: number): Expander {
  let end = base;
  while (actions[end]?.kind === 'allocate') end++;
  const block = actions.slice(base, end);
  return (s, sink) => {
    for (let i = 0; i < block.length; i++) {
      const a = block[i]!;
      const t = allocate(m, s, a.r, a.pages);
      if (t !== undefined) sink(t, base + i);
    }
  };
}
