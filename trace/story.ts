/**
 * A trace told once, for every printer: per state, the action that led to it, what it did
 * in words, what changed, every page cell (marked when it changed or leaked), and at the
 * end the explanation of the violation. The text, Mermaid and HTML printers only format it.
 */
import { actionLabel, view, type ActionKind, type Model, type PageView, type RequestView, type Trace } from '../spec/index.ts';
import { explain, type Explanation } from './explain.ts';
import { narrate, requestChanges } from './narrate.ts';
import { stateAt } from './facts.ts';

/** One page at one state, with what the printers highlight. */
export interface PageCell extends PageView {
  /** Its holder, data, tag or draft changed at this step. */
  readonly changed: boolean;
  /** It is a cell the violation's explanation points at. */
  readonly leak: boolean;
}

/** One state of the story: state 0 has no action. */
export interface StoryStep {
  /** 0 for the initial state, `k` for the state after step `k`. */
  readonly index: number;
  /** The action as people read it, `decode(B)`; `null` for state 0. */
  readonly action: string | null;
  /** The action's kind; `null` for state 0. */
  readonly kind: ActionKind | null;
  /** The name of the request it acts for; `null` for state 0. */
  readonly request: string | null;
  /** What the action did, in one sentence. */
  readonly narration: string;
  /** The requests that changed, and how. */
  readonly changes: ReadonlyArray<{ readonly name: string; readonly change: string }>;
  /** Every page. */
  readonly pages: readonly PageCell[];
  /** Every request, as it is after this step. */
  readonly requests: readonly RequestView[];
}

/** A trace told for printers. */
export interface Story {
  /** The model in one line: variant, pool, limit, requests, faults, and the other fields not at their defaults. */
  readonly model: string;
  /** Whether pages carry owner tags worth showing (`owner-check`). */
  readonly tags: boolean;
  /** States 0..n. */
  readonly steps: readonly StoryStep[];
  /** Why the trace violates its invariant; absent when it names none. */
  readonly explanation?: Explanation;
}

/** The model in one line, as every printer heads its output. */
export function describeModel(m: Model): string {
  const c = m.config;
  const prefix = (name: string): string => {
    const k = c.prefixPages?.[name] ?? 1;
    return k > 1 ? `, prefix ${name} of ${k} pages` : `, prefix ${name}`;
  };
  // With token slots, lengths and the limit are in tokens; with whole pages, tokens are pages.
  const slots = m.pageSize > 1;
  const pagesWord = (k: number): string => `${k} ${k === 1 ? 'page' : 'pages'}`;
  const length = (tokens: number, r: number): string => (slots ? `${tokens} tokens, ${pagesWord(m.promptPages[r] ?? 0)}` : pagesWord(tokens));
  const requests = c.requests.map((q, r) => `${q.name} (${length(q.length, r)}${q.prefix === undefined ? '' : prefix(q.prefix)})`);
  const faults = c.faults.length === 0 ? 'no faults' : `faults ${c.faults.join(', ')}`;
  const limit = slots ? `${c.prefillLimit} tokens${m.lengthRule === 'ge' ? ' (refused from the limit on)' : ''}` : `${c.prefillLimit}${m.lengthRule === 'ge' ? ' (refused from the limit on)' : ''}`;
  const size = slots ? `, ${m.pageSize} token slots per page` : '';
  // The fields left at their defaults are left out, so that the first model's line reads as before.
  const more = [
    c.allocator === undefined || c.allocator === 'sorted' ? '' : `allocator ${c.allocator}`,
    c.eviction === true ? (c.radix === true ? 'eviction, radix tree' : 'eviction') : '',
    c.decodeSteps === undefined || c.decodeSteps === 1 ? '' : `decode steps ${c.decodeSteps}`,
    c.tableGrowth === true ? 'table growth' : '',
    c.draft === true ? "a draft model's KV" : '',
  ].filter((x) => x !== '');
  return `${c.variant}, ${c.pages} pages${size}, prefill limit ${limit}, requests ${requests.join(', ')}; ${faults}${more.length === 0 ? '' : `; ${more.join(', ')}`}`;
}

/** Tells `trace`; with `violation`, explains it and marks the cells it points at. */
export function tell(m: Model, trace: Trace, violation?: string): Story {
  const explanation = violation === undefined ? undefined : explain(m, trace, violation);
  const steps: StoryStep[] = [];
  let previous: readonly PageView[] | undefined;
  for (let k = 0; k <= trace.steps.length; k++) {
    const v = view(m, stateAt(trace, k));
    const taken = k === 0 ? undefined : trace.steps[k - 1];
    const pages = v.pages.map((p): PageCell => {
      const was = previous?.[p.id];
      const changed = was !== undefined && (was.holder !== p.holder || was.data !== p.data || was.tag !== p.tag || was.draft !== p.draft);
      const leak = explanation !== undefined && explanation.step === k && explanation.pages.includes(p.id);
      return { ...p, changed, leak };
    });
    steps.push({
      index: k,
      action: taken === undefined ? null : actionLabel(m, taken.action),
      kind: taken?.action.kind ?? null,
      request: taken === undefined ? null : (m.config.requests[taken.action.r]?.name ?? null),
      narration: narrate(m, trace, k),
      changes: k === 0 ? [] : requestChanges(m, trace, k),
      pages,
      requests: v.requests,
    });
    previous = v.pages;
  }
  return {
    model: describeModel(m),
    tags: m.ownerCheck,
    steps,
    ...(explanation === undefined ? {} : { explanation }),
  };
}
