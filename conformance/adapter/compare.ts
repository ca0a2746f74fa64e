/**
 * What an adapter reports, held against the spec's state: only the fields the adapter said
 * in its handshake that it observes, in the words of the spec's view (a holder is a request
 * name or `cache:<prefix>`, data and tags a request name or `prefix:<prefix>`, `null` for
 * none). The free list is compared as a sorted multiset: the spec's free list and (under
 * `sglang`) its release list together, duplicates included, against what the adapter
 * reports, sorted: a page freed twice shows there before it is handed out twice, and the
 * order within the lists (which the allocation order decides, and the next allocation
 * shows) is not compared. The padding page 0 of `sglang` and `lifo` is never compared: an
 * adapter may report it or not.
 */
import { freeList, Ph, releaseList, tableIsDead, view, type Model, type State } from '../../spec/index.ts';
import type { Observable, Observed } from './protocol.ts';

const show = (x: unknown): string => (x === null || x === undefined ? 'none' : Array.isArray(x) ? `[${x.join(',')}]` : String(x));

/** The differences between the spec's state and the adapter's report, one line each; empty when they agree. */
export function compareObserved(m: Model, s: State, observed: Observed, observes: ReadonlySet<Observable>): string[] {
  const v = view(m, s);
  // The padding page of SGLang's orders (page 0) is the spec's bookkeeping, never handed out: an adapter need not report it.
  const pages = v.pages.filter((p) => p.id >= m.firstPage);
  const lines: string[] = [];
  const field = (where: string, name: string, spec: unknown, impl: unknown): void => {
    if (show(spec) !== show(impl)) lines.push(`${where} ${name}: spec ${show(spec)}, adapter ${show(impl)}`);
  };
  const pageFields = (['holder', 'data', 'tag'] as const).filter((f) => observes.has(f));
  if (pageFields.length > 0) {
    const byId = new Map((observed.pages ?? []).map((p) => [p.id, p]));
    for (const p of pages) {
      const q = byId.get(p.id);
      if (q === undefined) {
        lines.push(`page ${p.id}: missing from the adapter's report`);
        continue;
      }
      for (const f of pageFields) field(`page ${p.id}`, f, p[f], q[f] ?? null);
    }
  }
  const requestFields = (['phase', 'table', 'read'] as const).filter((f) => observes.has(f));
  if (requestFields.length > 0) {
    for (const r of v.requests) {
      const q = observed.requests?.[r.name];
      if (q === undefined) {
        lines.push(`${r.name}: missing from the adapter's report`);
        continue;
      }
      if (observes.has('phase')) field(r.name, 'phase', r.phase, q.phase);
      // A finished request's table that nothing can read again is dead in the spec (spec/liveness.ts): the implementation may keep it.
      if (observes.has('table') && !tableIsDead(m, Ph[r.phase])) field(r.name, 'table', r.table, q.table ?? []);
      if (observes.has('read')) field(r.name, 'read', [...r.read].sort(), [...(q.read ?? [])].sort());
    }
  }
  if (observes.has('free')) {
    const free = [...freeList(m, s), ...releaseList(m, s)].sort((a, b) => a - b);
    field('the free list', '(sorted)', free, [...(observed.free ?? [])].filter((p) => p >= m.firstPage).sort((a, b) => a - b));
  }
  return lines;
}
