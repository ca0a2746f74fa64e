/**
 * The wording of the metadata slot's actions (fault `aux-torn`, spec/aux.ts), in both
 * forms, beside trace/wording.ts: which part of the metadata write landed, and what the
 * slot now holds; and of the draft part of a write (config `draft`, spec/draft.ts).
 */
import { auxPayloadOf, auxRoomOf, copyUnderLoad, dataOf, draftOf, draftSkips, prefixLength, writeLabel } from '../spec/index.ts';
import { dataWords } from './facts.ts';
import { ids, perPages, type Phrasing, type Told } from './phrasing.ts';

/** A `landRoom` or `landPayload`: the part of the request's metadata write that landed, and the slot's room and payload after it. */
export function landAux(t: Told, kind: 'landRoom' | 'landPayload'): Phrasing {
  const { m, who, label, after } = t;
  const part = kind === 'landRoom' ? 'bootstrap_room' : 'first output token';
  const room = auxRoomOf(m, after);
  const holds = `room ${room === 0 ? '0' : dataWords(m, room)}, token ${dataWords(m, auxPayloadOf(m, after))}`;
  return {
    sentence: `the ${part} part of ${who}'s metadata write lands in D's metadata slot; the slot now holds ${holds}.`,
    messages: [`P->>D: ${label}: ${who}'s ${part} lands in the metadata slot (${holds})`],
  };
}

/** A `landDraft` (config `draft`, spec/draft.ts): the draft part of the request's write landed; which pages' draft KV it wrote, and which it skipped (fault `draft-stale`). */
export function landDraftWords(t: Told): Phrasing {
  const { m, r, who, label, after, table, shared } = t;
  const written = table.filter((p, i) => i >= shared && !draftSkips(m, r, i) && draftOf(m, after, p) === writeLabel(m, r, i));
  const stale = table.filter((p, i) => i >= shared && draftSkips(m, r, i));
  const kept = stale.length === 0 ? '' : `; ${ids(stale)} ${stale.length === 1 ? 'keeps its' : 'keep their'} old draft KV (${stale.map((p) => dataWords(m, draftOf(m, after, p))).join(', ')}): P's cache hit the prefix, and its draft was never filled`;
  return {
    sentence: `the draft part of ${who}'s write lands: the draft model's KV in ${ids(written)}${kept}.`,
    messages: [`P->>D: ${label}: ${who}'s draft KV lands in ${ids(written)}${kept === '' ? '' : `, ${ids(stale)} skipped`}`],
  };
}

/** A `loadBack` (spec/loadback.ts): the load from host memory lands in the request's prefix pages, with what the host slot held. */
export function loadBackWords(t: Told): Phrasing {
  const { m, who, label, table, after } = t;
  const pages = table.slice(0, prefixLength(m, t.r));
  const got = pages.map((p) => dataWords(m, dataOf(m, after, p))).join(', ');
  return {
    sentence: `the load of ${who}'s prefix from host memory lands in ${ids(pages)}, which now ${perPages(pages, 'holds', 'hold')}: ${got}${m.ownerCheck ? ", tagged as the prefix's" : ''}.`,
    messages: [`Host->>D: ${label}: ${who}'s prefix loaded into ${ids(pages)} (${got})`],
  };
}

/** An `evictHost` (spec/loadback.ts): the host copy of the request's prefix is evicted and its slot reused, perhaps under a load that still reads it. */
export function evictHostWords(t: Told): Phrasing {
  const { m, who, label, before, r } = t;
  const prefix = m.groupNames[m.group[r] ?? -1] ?? '?';
  const reading = copyUnderLoad(m, before, m.group[r] ?? -1) ? ' while a load still reads it' : '';
  return {
    sentence: `host memory runs short: the host copy of prefix ${prefix} (${who}'s) is evicted${reading}, and another request's write-back reuses its slot.`,
    messages: [`Note over Host: ${label}: evict the host copy of ${prefix}${reading}; its slot now holds another request's KV`],
  };
}
