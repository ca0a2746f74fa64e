/**
 * The actions of the model, named as in SGLang's prefill/decode handoff:
 * the six of the real handoff, plus `grow` (a decode step's page, config `tableGrowth`), `timeout` (fault `early-free`), `insert` (the
 * prefix cache), `evict` (the prefix cache's eviction, config `eviction`), and `landData`
 * and `landTag` (the two parts of a page write landing, fault `torn-write`), and `retract`,
 * `offload` and `resume` (a running request retracted and resumed, config `retraction`,
 * `offload` with fault `offload-after-free`), and `allocFail` (a failed allocation attempt,
 * which under `sglang` still merges the release list; spec/alloc-fail.ts) and `abortCommit` (D
 * aborts a written request at commit; spec/abort-commit.ts), `abortSource` (P aborts a
 * request whose transfer is still reading its source pages, fault `source-early-free`;
 * spec/source-pages.ts), and `landRoom` and `landPayload` (the two parts of a metadata
 * slot's write landing, fault `aux-torn`; spec/aux.ts), and `landDraft` (the draft model's
 * part of a write landing, config `draft`; spec/draft.ts). Every action
 * is taken by, or on behalf of, one request.
 */
import { match } from 'ts-pattern';
import type { Model } from './model.ts';

/** Action kinds in their fixed order; the order is part of the spec (it decides which shortest trace is found first). */
export const ACTION_KINDS = ['allocate', 'prefill', 'stub', 'handoff', 'grow', 'decode', 'free', 'timeout', 'insert', 'evict', 'landData', 'landTag', 'retract', 'offload', 'resume', 'allocFail', 'abortCommit', 'abortSource', 'landRoom', 'landPayload', 'landDraft', 'loadBack', 'evictHost'] as const;

/** One of {@link ACTION_KINDS}. */
export type ActionKind = (typeof ACTION_KINDS)[number];

/** The kinds no search takes: a failed allocation attempt and a commit-time abort are taken only where a harness or a log observed one (spec/alloc-fail.ts, spec/abort-commit.ts). */
export const OBSERVED_ONLY_KINDS = ['allocFail', 'abortCommit'] as const satisfies readonly ActionKind[];

/** An action: a kind and the index of the request it acts for. */
export interface Action {
  /** What happens. */
  readonly kind: ActionKind;
  /** Index of the request, into `config.requests`. */
  readonly r: number;
  /** Under allocator `any`, `allocate` and `grow` only: the page ids taken, in table order (every choice is its own action). */
  readonly pages?: readonly number[];
}

/** The switches of a configuration that decide which action kinds exist. */
export interface KindSwitches {
  /** Fault `early-free` (action `timeout`). */
  readonly earlyFree: boolean;
  /** Some request has a prefix (action `insert`). */
  readonly prefixes: boolean;
  /** Eviction is on and there is a prefix cache to evict from (action `evict`). */
  readonly eviction: boolean;
  /** Fault `torn-write` (actions `landData`, and `landTag` under an owner check). */
  readonly tornWrite: boolean;
  /** The variant checks owner tags. */
  readonly ownerCheck: boolean;
  /** Config `tableGrowth` (action `grow`). */
  readonly tableGrowth: boolean;
  /** Config `retraction` (actions `retract`, `resume`). */
  readonly retraction: boolean;
  /** Fault `offload-after-free` under `retraction` (action `offload`). */
  readonly offloadAfterFree: boolean;
  /** Fault `source-early-free` with `sourcePages` (action `abortSource`). */
  readonly sourceEarlyFree: boolean;
  /** Fault `aux-torn` (actions `landRoom`, `landPayload`). */
  readonly auxTorn: boolean;
  /** Config `draft` (action `landDraft`). */
  readonly draft: boolean;
  /** Config `loadback` with a prefix (actions `loadBack`, `evictHost`). */
  readonly loadback: boolean;
}

/** Whether kind `k` exists under `on`: the one rule that `allActions` and the configuration's size check share. */
export function kindPresent(k: ActionKind, on: KindSwitches): boolean {
  return match(k)
    .with('allocate', 'prefill', 'stub', 'handoff', 'decode', 'free', () => true)
    .with('grow', () => on.tableGrowth)
    .with('timeout', () => on.earlyFree)
    .with('insert', () => on.prefixes)
    .with('evict', () => on.eviction)
    .with('landData', () => on.tornWrite)
    .with('landTag', () => on.tornWrite && on.ownerCheck)
    .with('retract', 'resume', () => on.retraction)
    .with('offload', () => on.retraction && on.offloadAfterFree)
    .with('abortSource', () => on.sourceEarlyFree)
    .with('landRoom', 'landPayload', () => on.auxTorn)
    .with('landDraft', () => on.draft)
    .with('loadBack', 'evictHost', () => on.loadback)
    // Taken only where a harness or a log observed one (OBSERVED_ONLY_KINDS): SGLang's D never makes a failed attempt, and a commit-time abort only frees what free would.
    .with(...OBSERVED_ONLY_KINDS, () => false)
    .exhaustive();
}

/**
 * The list per model, built once: a model is never changed after `compile`, and the
 * model-based tests, the scale reference and the simulator ask for it at every step, where
 * building it again was half of their CPU. Not frozen: V8 iterates a frozen array more
 * slowly, which cost the successor agreement tests 8% (39.2 against 36.4 CPU s); the
 * readonly type keeps callers from changing it.
 */
const listed = new WeakMap<Model, readonly Action[]>();

/** Every action the model can ever take, in the deterministic order of exploration: kind-major, then request. */
export function allActions(m: Model): readonly Action[] {
  let out = listed.get(m);
  if (out === undefined) {
    out = listActions(m);
    listed.set(m, out);
  }
  return out;
}

/** {@link allActions}'s list, built. */
function listActions(m: Model): Action[] {
  const kinds = ACTION_KINDS.filter((k) =>
    kindPresent(k, { earlyFree: m.fault['early-free'], prefixes: m.groups > 0, eviction: m.eviction, tornWrite: m.fault['torn-write'], ownerCheck: m.ownerCheck, tableGrowth: m.tableGrowth, retraction: m.retraction, offloadAfterFree: m.fault['offload-after-free'], sourceEarlyFree: m.fault['source-early-free'] && m.sourcePages, auxTorn: m.fault['aux-torn'], draft: m.config.draft === true, loadback: m.layout.fields.load !== undefined }),
  );
  const out: Action[] = [];
  for (const kind of kinds) {
    for (let r = 0; r < m.n; r++) {
      if (kind === 'allocate' && m.allocator === 'any') for (const pages of choices(m, r)) out.push({ kind, r, pages });
      // Under `any` a grow may take any one free page.
      else if (kind === 'grow' && m.allocator === 'any') for (let p = m.firstPage; p < m.pages; p++) out.push({ kind, r, pages: [p] });
      else out.push({ kind, r });
    }
  }
  return out;
}

/**
 * Under allocator `any`, the page lists `allocate(r)` may take: every ordered choice of
 * `len(r)` page ids (and of `len(r) - k`, for a hit on a prefix of `k` pages), distinct unless the free
 * list is a multiset (`double-free`), in lexicographic order.
 */
export function choices(m: Model, r: number): number[][] {
  const len = m.promptPages[r] ?? 0;
  const g = m.group[r] ?? -1;
  const sizes = g >= 0 ? [len, len - (m.prefixPages[g] ?? 1)] : [len];
  const out: number[][] = [];
  const grow = (prefix: number[], size: number): void => {
    if (prefix.length === size) {
      out.push([...prefix]);
      return;
    }
    for (let p = m.firstPage; p < m.pages; p++) {
      if (!m.multiset && prefix.includes(p)) continue;
      prefix.push(p);
      grow(prefix, size);
      prefix.pop();
    }
  };
  for (const size of sizes) grow([], size);
  return out;
}

/** The action as people read it: `allocate(A)`, or under allocator `any` `allocate(A: 2 0)` (and `grow(A: 1)`). */
export function actionLabel(m: Model, a: Action): string {
  const pages = a.pages === undefined ? '' : `: ${a.pages.join(' ')}`;
  return `${a.kind}(${m.config.requests[a.r]?.name ?? `#${a.r}`}${pages})`;
}

/** Parses `allocate(A)` (or `allocate(A: 2 0)`) back into an action, or returns `undefined` when it names no action of this model. */
export function parseAction(m: Model, label: string): Action | undefined {
  const match = /^\s*([a-zA-Z]+)\(\s*([^()\s:]+)\s*(?::((?:\s*\d+)*)\s*)?\)\s*$/.exec(label);
  if (!match) return undefined;
  const kind = ACTION_KINDS.find((k) => k === match[1]);
  const r = m.config.requests.findIndex((q) => q.name === match[2]);
  if (kind === undefined || r < 0) return undefined;
  if (match[3] === undefined) return { kind, r };
  if (kind !== 'allocate' && kind !== 'grow') return undefined;
  return { kind, r, pages: match[3].trim().split(/\s+/).filter((x) => x !== '').map(Number) };
}
