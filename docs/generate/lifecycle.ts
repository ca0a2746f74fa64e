/**
 * A request's lifecycle, derived from the spec rather than drawn: every reachable state of
 * the minimal incident and of the fault matrix's configuration is explored, under every
 * variant and every subset of the fault catalogue (but lock-underflow, inert without
 * eviction), and each step records the acting request's phase before and after. What comes out is every phase change the spec
 * allows, each with the configurations in which it happens.
 */
import {
  ACTION_KINDS,
  allActions,
  compile,
  incidentConfig,
  initial,
  matrixConfig,
  PHASES,
  phaseOf,
  step,
  type ActionKind,
  type Config,
  type Phase,
  type State,
} from '../../spec/index.ts';
import { allPoints, describe, pointKey, type Point } from './conditions.ts';

/** One phase change of the acting request. */
export interface Transition {
  /** The phase before. */
  readonly from: Phase;
  /** The action. */
  readonly kind: ActionKind;
  /** The phase after (the same, for an action such as `insert`). */
  readonly to: Phase;
  /** When it can happen, in words, among the configurations in which a request reaches `from`; `undefined` when in all of them. */
  readonly when: string | undefined;
}

/** The derived lifecycle. */
export interface Lifecycle {
  /** Every transition, in phase order, then action order. */
  readonly transitions: readonly Transition[];
  /** Phases a request can stay in for good: in some configuration no action leaves them. */
  readonly finals: readonly Phase[];
  /** How much was explored, for the document's caption. */
  readonly explored: { readonly configurations: number; readonly states: number };
}

/** The configuration shapes explored: the minimal incident, the matrix's (with a shared prefix), the minimal incident decoding in two steps, and with retraction (with and without `offload-after-free`, whose copy reads the pages late: phase `offloading`). */
export const LIFECYCLE_SHAPES: readonly { readonly name: string; readonly config: (p: Point) => Config }[] = [
  { name: 'incidentConfig', config: (p) => incidentConfig(p.variant, p.faults) },
  { name: 'matrixConfig', config: (p) => matrixConfig(p.variant, p.faults) },
  { name: 'incidentConfig with decodeSteps 2', config: (p) => ({ ...incidentConfig(p.variant, p.faults), decodeSteps: 2 }) },
  { name: 'incidentConfig with retraction', config: (p) => ({ ...incidentConfig(p.variant, p.faults), retraction: true }) },
  { name: 'incidentConfig with retraction and offload-after-free', config: (p) => ({ ...incidentConfig(p.variant, [...p.faults, 'offload-after-free']), retraction: true }) },
];

const stateKey = (s: State): string => Buffer.from(s).toString('latin1');

/** An edge as one number: phase before, action kind, phase after (a string per step would dominate the run time). */
const edgeCode = (from: number, kind: number, to: number): number => (from * ACTION_KINDS.length + kind) * PHASES.length + to;

/** The `from kind to` key of an edge code. */
function edgeKey(code: number): string {
  const to = code % PHASES.length;
  const kind = Math.floor(code / PHASES.length) % ACTION_KINDS.length;
  const from = Math.floor(code / (PHASES.length * ACTION_KINDS.length));
  return `${PHASES[from] ?? '?'} ${ACTION_KINDS[kind] ?? '?'} ${PHASES[to] ?? '?'}`;
}

/** Explores one configuration: its phase changes (`from kind to` keys) and the phases reached. */
function explore(config: Config): { edges: Set<string>; reached: Set<Phase>; states: number } {
  const m = compile(config);
  const actions = allActions(m).map((a) => ({ a, kind: ACTION_KINDS.indexOf(a.kind) }));
  const edges = new Set<number>();
  const reached = new Set<number>();
  const s0 = initial(m);
  const seen = new Set<string>([stateKey(s0)]);
  let frontier: State[] = [s0];
  while (frontier.length > 0) {
    const next: State[] = [];
    for (const s of frontier) {
      for (let r = 0; r < m.n; r++) reached.add(phaseOf(m, s, r));
      for (const { a, kind } of actions) {
        const t = step(m, s, a);
        if (t === undefined) continue;
        edges.add(edgeCode(phaseOf(m, s, a.r), kind, phaseOf(m, t, a.r)));
        // Skip a state already seen; otherwise it joins the next layer.
        const k = stateKey(t);
        if (seen.has(k)) continue;
        seen.add(k);
        next.push(t);
      }
    }
    frontier = next;
  }
  return {
    edges: new Set([...edges].map(edgeKey)),
    reached: new Set([...reached].map((p) => PHASES[p] ?? 'new')),
    states: seen.size,
  };
}

/** Derives the lifecycle by exploring every shape at every point of the variant × fault space. */
export function deriveLifecycle(): Lifecycle {
  const universe = allPoints();
  const seenAt = new Map<string, Set<string>>();
  const reachedAt = new Map<Phase, Set<string>>();
  const finals = new Set<Phase>();
  let states = 0;
  let configurations = 0;
  const add = <K>(map: Map<K, Set<string>>, key: K, point: string): void => {
    const at = map.get(key) ?? new Set<string>();
    at.add(point);
    map.set(key, at);
  };
  for (const point of universe) {
    for (const shape of LIFECYCLE_SHAPES) {
      const { edges, reached, states: n } = explore(shape.config(point));
      configurations++;
      states += n;
      for (const e of edges) add(seenAt, e, pointKey(point));
      for (const phase of reached) add(reachedAt, phase, pointKey(point));
      const leaving = new Set([...edges].map((e) => e.split(' ')[0]));
      for (const phase of reached) if (!leaving.has(phase)) finals.add(phase);
    }
  }
  const order = (e: string): [number, number, number] => {
    const [from = '', kind = '', to = ''] = e.split(' ');
    return [PHASES.indexOf(from as Phase), ACTION_KINDS.indexOf(kind as ActionKind), PHASES.indexOf(to as Phase)];
  };
  const transitions = [...seenAt.keys()]
    .sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    })
    .map((e) => {
      const [from, kind, to] = e.split(' ') as [Phase, ActionKind, Phase];
      // Where no request ever reaches `from`, the arrow can neither happen nor fail to: those configurations do not count.
      const reached = reachedAt.get(from) ?? new Set<string>();
      const dontCare = new Set(universe.map(pointKey).filter((k) => !reached.has(k)));
      return { from, kind, to, when: describe(seenAt.get(e) ?? new Set(), universe, dontCare) };
    });
  return { transitions, finals: PHASES.filter((p) => finals.has(p)), explored: { configurations, states } };
}

/** ` (when)`, or nothing for an unconditional transition. */
export function whenSuffix(t: Transition): string {
  return t.when === undefined ? '' : ` (${t.when})`;
}

/**
 * The lifecycle as a Mermaid state diagram: one arrow per phase change, labelled with its
 * action and condition. Actions that leave the phase as it is (such as `insert`) are not
 * drawn: a loop on a box says little and tangles the layout; the caption lists them.
 */
export function lifecycleDiagram(lifecycle: Lifecycle): string {
  const lines = ['stateDiagram-v2', '    [*] --> new'];
  for (const t of lifecycle.transitions) if (t.from !== t.to) lines.push(`    ${t.from} --> ${t.to} : ${t.kind}${whenSuffix(t)}`);
  for (const p of lifecycle.finals) lines.push(`    ${p} --> [*]`);
  return lines.join('\n');
}
