/**
 * The trace's JSON twin in the Informal Trace Format (ITF) of Apalache and Quint, so that
 * the tools of that ecosystem read it and `pagecheck replay` can check it again. Two
 * variables, in the words of {@link view}: `pages` (a list of records, one per page id) and
 * `requests` (an ITF map from request name to a record; what it read is an ITF set). ITF
 * has no null: a free page's holder, an unwritten page's data and a cleared tag are `""`,
 * and an unwritten page's content position is -1. A request's decode steps taken
 * (`steps`) and the parts of P's write that have landed (`partsLanded`, fault
 * `torn-write`) are recorded too.
 * Each state records the action that led to it (`mbt::actionTaken`, `"init"` for state 0)
 * and the request it acted for (`mbt::nondetPicks.r`, an Option), and `vars` lists those
 * two as well, as Quint's model-based testing does; integers are written as Quint writes
 * them, `{"#bigint": "1"}` (see itf-values.ts).
 * `#meta.invariants` lists the invariants the search checked (ITF allows extra `#meta`
 * fields): replay checks those, so that a trace of `--invariant Isolation` in which
 * another, unchecked invariant breaks first still replays.
 */
import { actionLabel, INVARIANTS, view, type Config, type Model, type State, type Trace } from '../spec/index.ts';
import { explain } from './explain.ts';
import { stateAt } from './facts.ts';
import { encodeInts, option, type ItfEncoded, type ItfOption } from './itf-values.ts';

/** Where the format is described; written into every trace. */
export const ITF_DESCRIPTION = 'https://apalache-mc.org/docs/adr/015adr-trace.html';

/** The variables of a pagecheck ITF trace, in order. */
export const ITF_VARS = ['pages', 'requests'] as const;

/** The metadata variables of model-based testing, which Quint lists in `vars` after the state's own. */
export const MBT_VARS = ['mbt::actionTaken', 'mbt::nondetPicks'] as const;

/** One page in ITF. */
export interface ItfPage {
  /** Page id. */
  readonly id: number;
  /** Who holds it: a request's name, `cache:<prefix>`, or `""` when free. */
  readonly holder: string;
  /** Whose data it holds: a request's name, `prefix:<prefix>`, or `""` when never written. */
  readonly data: string;
  /** Its owner tag (`owner-check`), in the words of `data`; `""` when cleared. */
  readonly tag: string;
  /** The table position its content was written for; -1 when never written. */
  readonly position: number;
}

/** One request in ITF. */
export interface ItfRequest {
  /** Its phase. */
  readonly phase: string;
  /** Its page table. */
  readonly table: readonly number[];
  /** Whose data its decode read. */
  readonly read: { readonly '#set': readonly string[] };
  /** Allocated on its prefix's cached page. */
  readonly hit: boolean;
  /** Its first pages, its prefix's, went into the prefix cache. */
  readonly inserted: boolean;
  /** Its decode read a page it did not hold. */
  readonly readUnheld: boolean;
  /** Decode steps taken. */
  readonly steps: number;
  /** Content and tag parts of P's write that have landed. */
  readonly partsLanded: { readonly data: number; readonly tag: number };
}

/** The variables of one state in ITF. */
export interface ItfVars {
  /** Every page, by id. */
  readonly pages: readonly ItfPage[];
  /** Every request, by name. */
  readonly requests: { readonly '#map': ReadonlyArray<readonly [string, ItfRequest]> };
}

/** One state of an ITF trace, its variables written as ITF values (integers as `#bigint`). */
export type ItfState = ItfEncoded<ItfVars> & {
  /** Its position in the trace (a plain number: ITF's metadata is not a value). */
  readonly '#meta': { readonly index: number };
  /** The kind of the action that led here; `init` for state 0. */
  readonly 'mbt::actionTaken': string;
  /** The action's parameter: `{ r: Some("B") }`; `{ r: None }` for state 0. */
  readonly 'mbt::nondetPicks': { readonly r: ItfOption<string> };
};

/** A whole ITF trace as pagecheck writes it. */
export interface ItfTrace {
  /** What the trace is and how to rebuild its model. */
  readonly '#meta': {
    readonly format: 'ITF';
    readonly 'format-description': string;
    readonly source: 'pagecheck';
    readonly description: string;
    /** The invariant the last state violates, or `null`. */
    readonly invariant: string | null;
    /** The invariants the search checked, by name; replay checks these. */
    readonly invariants: readonly string[];
    /** The violation in words; empty when there is none. */
    readonly explanation: readonly string[];
    /** The full configuration: replay rebuilds the model from it. */
    readonly config: Config;
  };
  /** The variable names. */
  readonly vars: readonly string[];
  /** States 0..n. */
  readonly states: readonly ItfState[];
}

/** A state's variables in ITF. */
export function itfVars(m: Model, s: State): ItfVars {
  const v = view(m, s);
  return {
    pages: v.pages.map((p) => ({ id: p.id, holder: p.holder ?? '', data: p.data ?? '', tag: p.tag ?? '', position: p.position ?? -1 })),
    requests: {
      '#map': v.requests.map((q) => [
        q.name,
        {
          phase: q.phase,
          table: [...q.table],
          read: { '#set': [...q.read] },
          hit: q.hit,
          inserted: q.inserted,
          readUnheld: q.readUnheld,
          steps: q.steps,
          partsLanded: { ...q.partsLanded },
        },
      ]),
    },
  };
}

/** The trace in ITF; `invariant` names the violation, if any, and `checked` the invariants the search checked (default every one). */
export function toItf(m: Model, trace: Trace, invariant?: string, checked: readonly string[] = INVARIANTS.map((p) => p.name)): ItfTrace {
  const explanation = invariant === undefined ? [] : [...explain(m, trace, invariant).headline];
  const actions = trace.steps.map((s) => actionLabel(m, s.action));
  const states: ItfState[] = [];
  for (let k = 0; k <= trace.steps.length; k++) {
    const taken = trace.steps[k - 1];
    const name = taken === undefined ? undefined : m.config.requests[taken.action.r]?.name;
    states.push({
      '#meta': { index: k },
      'mbt::actionTaken': taken === undefined ? 'init' : taken.action.kind,
      'mbt::nondetPicks': { r: option(name) },
      ...encodeInts(itfVars(m, stateAt(trace, k))),
    });
  }
  return {
    '#meta': {
      format: 'ITF',
      'format-description': ITF_DESCRIPTION,
      source: 'pagecheck',
      description: `${invariant === undefined ? 'a trace' : `a counterexample to ${invariant}`} of ${actions.length} ${actions.length === 1 ? 'step' : 'steps'}: ${actions.join(' ') || '(none)'}; check it again with: pagecheck replay FILE`,
      invariant: invariant ?? null,
      invariants: [...checked],
      explanation,
      config: m.config,
    },
    vars: [...ITF_VARS, ...MBT_VARS],
    states,
  };
}

/** The trace as ITF JSON text, as `--itf` writes it. */
export function formatItf(m: Model, trace: Trace, invariant?: string, checked?: readonly string[]): string {
  return `${JSON.stringify(toItf(m, trace, invariant, checked), null, 2)}\n`;
}
