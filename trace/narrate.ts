/**
 * Each step of a trace in words: what the action did, told as the serving stack would
 * (D gives pages, P writes, D reads; each kind's sentence is in `wording.ts`), and which
 * request variables changed. The page cells themselves are shown by the printers; these
 * words say what the cells mean.
 */
import { view, type Model, type RequestView, type Trace } from '../spec/index.ts';
import { pageIds } from './long-lists.ts';
import { stateAt } from './facts.ts';
import { wordStep } from './wording.ts';

const list = (items: readonly string[]): string => items.join(', ');

/** What step `k` (1-based) did, in one sentence (its wording is `wording.ts`'s, which the Mermaid printer shares). */
export function narrate(m: Model, trace: Trace, k: number): string {
  return wordStep(m, trace, k)?.sentence ?? 'every page is free and has never been written; every request is new.';
}

/** How one request changed, in words: `allocated → written, table [0 1 2]`; undefined when it did not. */
function requestChange(was: RequestView, now: RequestView): string | undefined {
  const parts: string[] = [];
  if (was.phase !== now.phase) parts.push(`${was.phase} → ${now.phase}`);
  if (was.table.join() !== now.table.join()) parts.push(`table [${pageIds(now.table, ' ')}]`);
  if (was.read.join() !== now.read.join()) parts.push(`read ${now.read.length === 0 ? 'nothing' : list(now.read)}`);
  if (was.hit !== now.hit) parts.push('allocated on the cached prefix');
  if (was.inserted !== now.inserted) parts.push(now.depth === undefined ? 'prefix pages now in the prefix cache' : `prefix pages now nodes of the radix tree, its path locked to depth ${now.depth}`);
  if (was.depth !== now.depth && !(was.inserted !== now.inserted)) parts.push(`last node at depth ${now.depth ?? 0}`);
  if (was.readUnheld !== now.readUnheld) parts.push('read a page it did not hold');
  if (was.partsLanded.data !== now.partsLanded.data || was.partsLanded.tag !== now.partsLanded.tag) {
    parts.push(`parts landed: ${now.partsLanded.data} content, ${now.partsLanded.tag} tag`);
  }
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** The request variables that step `k` changed, one entry per request: its name and the change. */
export function requestChanges(m: Model, trace: Trace, k: number): Array<{ readonly name: string; readonly change: string }> {
  const was = view(m, stateAt(trace, k - 1)).requests;
  const now = view(m, stateAt(trace, k)).requests;
  const out: Array<{ name: string; change: string }> = [];
  now.forEach((q, i) => {
    const before = was[i];
    const change = before === undefined ? undefined : requestChange(before, q);
    if (change !== undefined) out.push({ name: q.name, change });
  });
  return out;
}
