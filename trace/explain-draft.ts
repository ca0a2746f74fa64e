/**
 * The explanation of a read of a draft model's KV (config `draft`, spec/draft.ts): decode
 * reads each page's draft KV beside its target KV into one read record, so a read whose
 * label is the page's draft and not its target came from the draft, and the sentence says
 * what the page held as each.
 */
import { dataOf, draftOf, hasDraft, type Model, type State } from '../spec/index.ts';
import { dataWords } from './facts.ts';

/** What page `p` held when a read of `label` there came from its draft KV (config `draft`), or `undefined` when the read was its target's. */
export function draftRead(m: Model, s: State, p: number, label: number): string | undefined {
  if (!hasDraft(m) || label !== draftOf(m, s, p) || label === dataOf(m, s, p)) return undefined;
  const target = dataWords(m, dataOf(m, s, p));
  return label === 0 ? `holds ${target} as its target KV, but its draft KV was never written` : `holds ${target} as its target KV and ${dataWords(m, label)} as its draft KV`;
}
