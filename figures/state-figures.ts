/**
 * The state counts of docs/LIBRARY.md: the live encoding against the naive one that keeps
 * dead page tables, computed by the checker itself. The small rows are the ones
 * test/spec/liveness.test.ts pins; the two large ones take seconds and are left to the
 * generator.
 */
import { check } from '../checker/index.ts';
import { compile, configFrom } from '../spec/index.ts';
import { checkedModel } from '../binding/index.ts';
import type { Figure } from './readme-figures.ts';

/** One row: the configuration as the table names it, and as the spec takes it. */
interface Row {
  readonly label: string;
  readonly input: unknown;
}

/** The whole space, no symmetry, no deadlock check: the same search as the liveness test's pins. */
const FULL = { symmetry: false, continueAfterViolation: true, deadlock: false } as const;

/** Requests of these lengths. */
const lengths = (...ls: readonly number[]): readonly { readonly length: number }[] => ls.map((length) => ({ length }));

/** The rows the liveness test pins (small: under a second in all). */
const SMALL: readonly Row[] = [
  { label: '6 pages, prefill limit 2, requests 2,3,2,3,2, buggy', input: { pages: 6, prefillLimit: 2, requests: lengths(2, 3, 2, 3, 2) } },
  { label: '6 pages, prefill limit 2, requests 1,2,2,3, length-fix', input: { pages: 6, prefillLimit: 2, requests: lengths(1, 2, 2, 3), variant: 'length-fix' } },
  { label: '4 pages, prefill limit 1, requests 2,2,2, early-free + stale-free', input: { pages: 4, prefillLimit: 1, requests: lengths(2, 2, 2), faults: ['early-free', 'stale-free'] } },
];

/** The two large rows: hundreds of thousands of states each. */
const LARGE: readonly Row[] = [
  { label: '7 pages, prefill limit 3, requests 1,2,2,3,3, length-fix', input: { pages: 7, prefillLimit: 3, requests: lengths(1, 2, 2, 3, 3), variant: 'length-fix' } },
  { label: '8 pages, prefill limit 3, requests 1,2,2,3,4, length-fix', input: { pages: 8, prefillLimit: 3, requests: lengths(1, 2, 2, 3, 4), variant: 'length-fix' } },
];

/** A row of the table: both counts and their ratio. */
function row(r: Row): string {
  const config = configFrom(r.input);
  const count = (keepDeadState: boolean): number => check(checkedModel(compile(config, { keepDeadState })), FULL).distinctStates;
  const [live, naive] = [count(false), count(true)];
  const int = (n: number): string => n.toLocaleString('en-US');
  return `| ${r.label} | ${int(live)} | ${int(naive)} | ${(naive / live).toFixed(2)} |`;
}

/** The tables' head (the large rows are a table of their own: a marker between rows would end a Markdown table). */
const HEAD = '| configuration (no symmetry, whole space) | live | naive | naive / live |\n|---|---|---|---|';

/** The live and naive counts. */
export const STATE_FIGURES: readonly Figure[] = [
  { name: 'live-naive', file: 'docs/LIBRARY.md', render: async () => [HEAD, ...SMALL.map(row)].join('\n') },
  { name: 'live-naive-large', file: 'docs/LIBRARY.md', slow: true, render: async () => [HEAD, ...LARGE.map(row)].join('\n') },
];
