/**
 * The encoding checked against the spec's own `step`, by `prove` itself, before any
 * obligation counts.
 *
 * `encoding.ts` restates the transitions as z3 relations; nothing but this check ties
 * that restatement to `spec/transitions.ts`. So for every action kind and every request
 * of a universe wide enough to pass every loop bound of the spec (6 pages, tables of 1,
 * 2, 4 and 5 pages, two prefixes, one of them of 2 pages, a request exactly at the
 * prefill limit and one above it), it takes spec states and compares, in z3, the spec's step with the encoding's
 * relation, both ways:
 *
 * - **every spec step is an encoding step** (what soundness needs: the proof covers every
 *   behaviour of the spec): the pre-state, the acting request and the spec's post-state,
 *   pinned as assumptions, must satisfy the relation;
 * - **the encoding is enabled only where the spec is**: when `step` returns `undefined`,
 *   the pre-state and the request must make the relation unsatisfiable.
 *
 * The states compared, and what they leave unseen, are `conformance-samples.ts`'s; the
 * solver that pins them, `conformance-solver.ts`'s.
 *
 * What it cannot see: a difference the sampled states never exercise, and the spec's
 * READ_UNHELD flag, which the encoding leaves out (no guard, effect or conjunct reads it).
 */
import {
  ACTION_KINDS,
  OBSERVED_ONLY_KINDS,
  compile,
  flagsOf,
  HIT,
  INSERTED,
  Ph,
  phaseOf,
  READ_UNHELD,
  step as specStep,
  view,
  type Action,
  type ActionKind,
  type Config,
  type Fault,
  type Mechanism,
  type Model,
  type State,
  type Variant,
} from '../spec/index.ts';
import { prng, samples } from './conformance-samples.ts';
import { KindSolver, Z3Undecided } from './conformance-solver.ts';
import { withoutMechanisms } from './semantics.ts';
import type { Bounds } from './vocabulary.ts';
import type { Z3Session } from './z3.ts';
import { solve } from './z3-cleanups.ts';

/** The spec's step function, as `spec/transitions.ts` exports it (a parameter, so that a test can hand in a mutant). */
export type StepFn = (m: Model, s: State, a: Action) => State | undefined;

/** The universe of the check: wide enough that every loop of the spec runs past its third round. */
export function conformanceConfig(variant: Variant, faults: readonly Fault[]): Config {
  return {
    pages: 6,
    prefillLimit: 4,
    requests: [
      { name: 'A', length: 1 },
      { name: 'B', length: 4, prefix: 'sys' },
      { name: 'C', length: 5, prefix: 'sys' },
      { name: 'D', length: 2, prefix: 'tmp' },
    ],
    // a prefix of two pages and one of one: page j of sys is valid only at table position j
    prefixPages: { sys: 2 },
    // three steps: a step that is not the first writes a token, and a step that is not the last leaves the request decoding
    variant,
    faults,
    decodeSteps: 3,
  };
}

/** The bounded sorts matching {@link conformanceConfig}. */
export const CONFORMANCE_BOUNDS: Bounds = { pages: 6, requests: 4, groups: 2, slots: 5 };

/** A step on which the spec and the encoding disagree. */
export interface Mismatch {
  /** The action, as the spec writes it: `decode(C)`. */
  readonly action: string;
  /** `spec-step-missing`: the spec takes a step the encoding does not allow; `encoding-only`: the encoding is enabled where the spec is not. */
  readonly kind: 'spec-step-missing' | 'encoding-only';
  /** The story: the state before, what the spec does, in words. */
  readonly story: readonly string[];
}

/** What the check compared and found. */
export interface ConformanceReport {
  /** Steps compared (spec step present), and disabled actions compared. */
  readonly steps: number;
  /** Disabled (state, action) pairs compared. */
  readonly disabled: number;
  /** The universe, in words. */
  readonly universe: string;
  /** The disagreements found (at most one per action kind is kept). */
  readonly mismatches: readonly Mismatch[];
  /** Wall-clock time, in milliseconds. */
  readonly ms: number;
}

/** A state in words, one line per request and page. */
export function stateLines(m: Model, s: State): string[] {
  const w = view(m, s);
  return [
    ...w.requests.map(
      (q, i) =>
        `request ${q.name}: ${q.phase}; length ${m.len[i] ?? 0}${(m.group[i] ?? -1) >= 0 ? `, prefix ${m.groupNames[m.group[i] ?? 0]}` : ''}${q.hit || q.inserted ? `, prefix pages shared (${[q.hit ? 'hit' : '', q.inserted ? 'inserted' : ''].filter(Boolean).join(', ')})` : ''}; table ${q.table.map((p) => `p${p}`).join(' ') || 'empty'}; has read ${q.read.join(', ') || 'nothing'}`,
    ),
    ...w.pages.map((p) => `page p${p.id}: held by ${p.holder ?? 'nobody (free)'}; holds ${p.data ?? 'nothing'}; tag ${p.tag ?? 'none'}`),
  ];
}

/**
 * Compares the encoding of `variant` with these faults against `step` on the universe of
 * {@link conformanceConfig}. `step` is the spec's unless a test hands in another; `kinds`
 * (every kind unless a test names fewer) are the actions compared; `without` names
 * mechanisms of `hardened` switched off in both; `onKind` hears how many kinds are done
 * (`prove`'s progress line: the check is most of its time).
 */
export async function checkConformance(
  z3: Z3Session,
  variant: Variant,
  faults: readonly Fault[],
  step: StepFn = specStep,
  kinds: readonly ActionKind[] = ACTION_KINDS.filter((k) => !(OBSERVED_ONLY_KINDS as readonly ActionKind[]).includes(k)),
  without: readonly Mechanism[] = [],
  onKind?: (done: number, of: number) => void,
): Promise<ConformanceReport> {
  const start = performance.now();
  const m = withoutMechanisms(compile(conformanceConfig(variant, faults)), without);
  const v = z3.bounded(CONFORMANCE_BOUNDS);
  const rand = prng(0x5eed14);
  const mismatches: Mismatch[] = [];
  let steps = 0;
  let disabled = 0;
  for (const kind of kinds) {
    const ks = new KindSolver(v, m, kind, without);
    // Released at once: z3's heap is fixed, and the collector does not see it fill (obligations.ts).
    try {
      for (let q = 0; q < m.n; q++) {
        const a: Action = { kind, r: q };
        const name = `${kind}(${m.config.requests[q]?.name ?? q})`;
        const off: State[] = [];
        let found: Mismatch | undefined;
        for (const s of samples(m, a, rand, (x) => step(m, x, a) !== undefined)) {
          const t = step(m, s, a);
          if (t === undefined) {
            off.push(s);
            continue;
          }
          steps++;
          const untouched = unmodelledChange(m, s, t);
          if (untouched !== undefined) {
            found = { action: name, kind: 'spec-step-missing', story: [`from this state:`, ...indent(stateLines(m, s)), `the spec's ${name} changes ${untouched}, which the encoding does not model.`] };
            break;
          }
          const answer = await solve(ks.solver, ks.actor(q), ...ks.pin('pre', s), ...ks.pin('post', t));
          if (answer === 'sat') continue;
          if (answer === 'unknown') throw new Z3Undecided(`z3 could not decide whether the encoding allows the spec's ${name} (${ks.solver.reasonUnknown()})`);
          found = { action: name, kind: 'spec-step-missing', story: [`from this state:`, ...indent(stateLines(m, s)), `the spec's ${name} leads to this state, which no step of the encoding allows:`, ...indent(changed(m, s, t))] };
          break;
        }
        // The disabled ones in one query: is the encoding enabled from any of them?
        disabled += off.length;
        const s = found === undefined ? await ks.enabledFrom(q, off) : undefined;
        if (s !== undefined) found = { action: name, kind: 'encoding-only', story: [`from this state:`, ...indent(stateLines(m, s)), `the encoding can take ${name}, where the spec's step is not enabled.`] };
        if (found !== undefined) {
          mismatches.push(found);
          break;
        }
      }
    } finally {
      ks.solver.release();
      onKind?.(kinds.indexOf(kind) + 1, kinds.length);
    }
  }
  return { steps, disabled, universe: universeText(m), mismatches, ms: Math.round(performance.now() - start) };
}

/** The universe in words: its pages, each request's length and prefix, the limit. */
function universeText(m: Model): string {
  const prefixText = (name: string): string => ((m.config.prefixPages?.[name] ?? 1) > 1 ? `, ${name} of ${m.config.prefixPages?.[name]} pages` : `, ${name}`);
  return `${m.pages} pages; ${m.config.requests.map((q) => `${q.name} (${q.length}${q.prefix ? prefixText(q.prefix) : ''})`).join(', ')}; prefill limit ${m.config.prefillLimit}`;
}

/**
 * What the step changes that the encoding has no variable for, if anything: the counts of
 * parts landed outside a write in flight (where the encoding's flags stand for them), and
 * flags other than the sharing ones. READ_UNHELD is left out on purpose: no guard, effect
 * or invariant the proof concerns reads it.
 */
function unmodelledChange(m: Model, s: State, t: State): string | undefined {
  for (let q = 0; q < m.n; q++) {
    const who = m.config.requests[q]?.name ?? String(q);
    // the counts of parts landed are modelled (as flags) while a write is in flight; elsewhere they mean nothing, and must not change
    const inFlight = (x: State): boolean => phaseOf(m, x, q) === Ph.writing || phaseOf(m, x, q) === Ph.landing;
    const counts = s[m.dataNextAt + q] !== t[m.dataNextAt + q] || s[m.tagNextAt + q] !== t[m.tagNextAt + q];
    if (counts && !inFlight(s) && !inFlight(t)) return `the parts landed of ${who}'s write`;
    if (((flagsOf(m, s, q) ^ flagsOf(m, t, q)) & ~(HIT | INSERTED | READ_UNHELD)) !== 0) return `${who}'s flags`;
  }
  return undefined;
}

const indent = (lines: readonly string[]): string[] => lines.map((l) => `  ${l}`);

/** The lines of the post-state that differ from the pre-state. */
function changed(m: Model, s: State, t: State): string[] {
  const before = stateLines(m, s);
  const after = stateLines(m, t);
  const diff = after.filter((line, i) => line !== before[i]);
  return diff.length > 0 ? diff : ['nothing changed'];
}
