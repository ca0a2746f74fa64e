/**
 * The actions of the model, named as in SGLang's prefill/decode handoff:
 * the six of the real handoff, plus `timeout` (fault `early-free`), `insert` (the
 * prefix cache), and `landData` and `landTag` (the two parts of a page write landing,
 * fault `torn-write`). Every action is taken by, or on behalf of, one request.
 */
import type { Model } from './model.ts';

/** Action kinds in their fixed order; the order is part of the spec (it decides which shortest trace is found first). */
export const ACTION_KINDS = ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', 'timeout', 'insert', 'landData', 'landTag'] as const;

/** One of {@link ACTION_KINDS}. */
export type ActionKind = (typeof ACTION_KINDS)[number];

/** An action: a kind and the index of the request it acts for. */
export interface Action {
  /** What happens. */
  readonly kind: ActionKind;
  /** Index of the request, into `config.requests`. */
  readonly r: number;
}

/** Every action the model can ever take, in the deterministic order of exploration: kind-major, then request. */
export function allActions(m: Model): readonly Action[] {
  const kinds = ACTION_KINDS.filter(
    (k) =>
      (k !== 'timeout' || m.fault['early-free']) &&
      (k !== 'insert' || m.groups > 0) &&
      (k !== 'landData' || m.fault['torn-write']) &&
      (k !== 'landTag' || (m.fault['torn-write'] && m.ownerCheck)),
  );
  const out: Action[] = [];
  for (const kind of kinds) for (let r = 0; r < m.n; r++) out.push({ kind, r });
  return out;
}

/** The action as people read it: `allocate(A)`. */
export function actionLabel(m: Model, a: Action): string {
  return `${a.kind}(${m.config.requests[a.r]?.name ?? `#${a.r}`})`;
}

/** Parses `allocate(A)` back into an action, or returns `undefined` when it names no action of this model. */
export function parseAction(m: Model, label: string): Action | undefined {
  const match = /^\s*([a-zA-Z]+)\(\s*([^()\s]+)\s*\)\s*$/.exec(label);
  if (!match) return undefined;
  const kind = ACTION_KINDS.find((k) => k === match[1]);
  const r = m.config.requests.findIndex((q) => q.name === match[2]);
  if (kind === undefined || r < 0) return undefined;
  return { kind, r };
}
