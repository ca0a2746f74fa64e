/**
 * The variables of the Quint spec (spec/quint/pagecheck.qnt) as pagecheck's spec gives
 * them, so that `pagecheck replay` reads a trace that `quint run --out-itf` wrote of it, in
 * Quint's own shapes: `holder` and `data` map a page id to a request's name (`""` for
 * nobody), `phase` maps a request's name to a variant of its phase (pagecheck's phase with
 * a capital: `HandedOff`), `table` to its page table (a list) and `read` to whose data it
 * read (a set). A trace may record any of these variables (a spec that leaves one out
 * still replays); Quint qualifies the variables of an imported module (`m::holder`), and
 * replay reads the last segment of the name.
 */
import { view, type Model, type State } from '../spec/index.ts';
import { ITF_VARS, MBT_VARS } from './itf.ts';

/** The variables of the Quint spec that replay can check, in the order the spec declares them. */
export const QUINT_VARS = ['holder', 'data', 'phase', 'table', 'read'] as const;

/** Which variables a trace records: pagecheck's own two (`--itf`), or some of the Quint spec's. */
export type ItfLayout = 'pagecheck' | 'quint';

/** A variable's name without the module path Quint puts before an imported one (`m::holder` is `holder`); the `mbt::` metadata keeps its name. */
export function unqualified(name: string): string {
  return name.startsWith('mbt::') ? name : (name.split('::').at(-1) ?? name);
}

const isMbt = (name: string): boolean => (MBT_VARS as readonly string[]).includes(name);

/**
 * The layout of a trace with variables `vars`, or the reason it has neither: pagecheck's
 * is exactly `pages` and `requests`; Quint's is some of {@link QUINT_VARS}, each once.
 * Either may list the model-based-testing metadata (Quint may list it twice).
 */
export function layoutOf(vars: readonly string[]): ItfLayout | string {
  const own = vars.map(unqualified).filter((v) => !isMbt(v));
  const distinct = new Set(own).size === own.length;
  if (distinct && [...own].sort().join() === [...ITF_VARS].sort().join()) return 'pagecheck';
  const unknown = own.filter((v) => !(QUINT_VARS as readonly string[]).includes(v));
  if (distinct && own.length > 0 && unknown.length === 0) return 'quint';
  const why = unknown.length > 0 ? `${JSON.stringify(unknown)} ${unknown.length === 1 ? 'is' : 'are'} neither` : 'it is neither';
  return `${why} pagecheck's variables ${JSON.stringify(ITF_VARS)} nor some of the Quint spec's ${JSON.stringify(QUINT_VARS)}, each once`;
}

/** A phase as the Quint spec's sum type writes it: `handedOff` is the variant `HandedOff`. */
function phaseVariant(phase: string): { readonly tag: string; readonly value: { readonly '#tup': readonly [] } } {
  return { tag: `${phase.charAt(0).toUpperCase()}${phase.slice(1)}`, value: { '#tup': [] } };
}

/** The Quint spec's variables in state `s` of pagecheck's spec, as ITF values (plain numbers for integers). */
export function quintVars(m: Model, s: State): Readonly<Record<(typeof QUINT_VARS)[number], unknown>> {
  const v = view(m, s);
  const byPage = (f: (p: (typeof v.pages)[number]) => unknown) => ({ '#map': v.pages.map((p) => [p.id, f(p)]) });
  const byRequest = (f: (q: (typeof v.requests)[number]) => unknown) => ({ '#map': v.requests.map((q) => [q.name, f(q)]) });
  return {
    holder: byPage((p) => p.holder ?? ''),
    data: byPage((p) => p.data ?? ''),
    phase: byRequest((q) => phaseVariant(q.phase)),
    table: byRequest((q) => [...q.table]),
    read: byRequest((q) => ({ '#set': [...q.read] })),
  };
}

/** The recorded variables of a state, by unqualified name, without `#meta` and the `mbt::` metadata. */
export function ownFields(raw: unknown): Array<[string, unknown]> {
  if (typeof raw !== 'object' || raw === null) return [];
  return Object.entries(raw)
    .filter(([k]) => k !== '#meta' && !k.startsWith('mbt::'))
    .map(([k, v]) => [unqualified(k), v]);
}

/** What pagecheck's spec gives for the variables a Quint-layout state records, by name. */
export function quintExpected(m: Model, s: State, names: readonly string[]): Record<string, unknown> {
  const all: Readonly<Record<string, unknown>> = quintVars(m, s);
  return Object.fromEntries(names.map((n) => [n, all[n]]));
}
