/**
 * The wording of retraction's actions (spec/retraction.ts), in both forms, beside
 * trace/wording.ts: which pages the copy reads and when, and what the new pages hold
 * after the load (or, under `resume-stale`, without it).
 */
import { dataOf, holderOf } from '../spec/index.ts';
import { perPageWords } from './long-lists.ts';
import { dataWords, holderWords, pagesWords } from './facts.ts';
import { ids, perPages, type Phrasing, type Told } from './phrasing.ts';

/** A `retract`, `offload` or `resume` (spec/retraction.ts): which pages, and what the copy or the new pages hold. */
export function retraction(t: Told, kind: 'retract' | 'offload' | 'resume'): Phrasing {
  const { m, who, label, own } = t;
  if (kind === 'retract') {
    const late = m.fault['offload-after-free'];
    return {
      sentence: late
        ? `D retracts ${who} and frees its ${pagesWords(own)} before the copy to host memory has read them (${t.contents(own)}).`
        : `D retracts ${who}: the copy to host memory reads its ${pagesWords(own)} (${t.contents(own)}), then D frees them.`,
      messages: late
        ? [`D->>Pool: ${label}: return ${ids(own)}, the copy to host memory still to read them`]
        : [`D->>Pool: ${label}: copy ${ids(own)} to host memory (${t.contents(own)})`, `D->>Pool: return ${ids(own)}, contents kept`],
    };
  }
  if (kind === 'offload') {
    const holders = perPageWords(own, (p) => holderWords(m, holderOf(m, t.before, p)));
    return {
      sentence: `the copy of ${who}'s KV to host memory reads its old ${pagesWords(own)} only now, held by ${holders}: ${t.contents(own)}.`,
      messages: [`Pool-->>D: ${label}: the copy of ${who} reads ${ids(own)}: ${t.contents(own)}`],
    };
  }
  const loaded = perPageWords(own, (p) => dataWords(m, dataOf(m, t.after, p)));
  if (m.fault['resume-stale']) {
    return {
      sentence: `D resumes ${who} on ${pagesWords(own)} but does not load its saved copy: ${perPages(own, 'the page still holds', 'the pages still hold')} ${t.contents(own)}.`,
      messages: [`D->>Pool: ${label}: take ${ids(own)} for ${who}, no load`, `Pool-->>D: ${ids(own)} hold: ${t.contents(own)}`],
    };
  }
  const tags = m.ownerCheck ? (m.mechanism['copy-carries-tag'] ? ', with the tags the copy was taken with' : `, stamped ${who}`) : '';
  return {
    sentence: `D resumes ${who} on ${pagesWords(own)} and loads its saved copy into them: ${perPages(own, 'the page now holds', 'the pages now hold')} ${loaded}${tags}.`,
    messages: [`D->>Pool: ${label}: take ${ids(own)} for ${who}`, `D->>Pool: load ${who}'s saved copy into ${ids(own)}: ${loaded}`],
  };
}
