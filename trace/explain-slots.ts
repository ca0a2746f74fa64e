/**
 * The explanation of a read from one of D's slots (config `stateSlots`,
 * spec/state-slots.ts): the commit reads the metadata row, a decode step the state slot,
 * and either read is recorded at table position 0. When what position 0 recorded is not
 * what its page held, the read came from the slot, and the sentence says which and whose.
 */
import { actionLabel, bodyLabel, dataOf, draftOf, hasDraft, hasStateSlots, READ_LABEL, readRecordOf, type Model, type Trace } from '../spec/index.ts';
import { dataWords, holderWords, stateAt } from './facts.ts';

/** The sentence for request `r`'s read at position `i` of `page`, first recorded at step `k`, when it came from a slot; `undefined` when it came from the page. */
export function slotRead(m: Model, trace: Trace, r: number, i: number, page: number, k: number): string | undefined {
  if (!hasStateSlots(m) || i !== 0 || k < 1) return undefined;
  const label = readRecordOf(m, stateAt(trace, k), r, i) & READ_LABEL;
  if (label === dataOf(m, stateAt(trace, k - 1), page)) return undefined;
  // With a draft model, what the page's draft KV held came from the page too (explain-draft.ts).
  if (hasDraft(m) && label === draftOf(m, stateAt(trace, k - 1), page)) return undefined;
  const kind = trace.steps[k - 1]?.action.kind;
  const what = kind === 'handoff' ? 'its metadata row, for its first output token' : 'its state slot, for its recurrent state';
  const held = label === 0 ? 'which was never written' : `which holds ${dataWords(m, label)}`;
  return `${holderWords(m, bodyLabel(r))} read ${what} at step ${k} (${actionLabel(m, trace.steps[k - 1]!.action)}), ${held}: another request was given the same slot (spec/state-slots.ts).`;
}
