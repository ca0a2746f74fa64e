/**
 * The prefix cache's eviction in a log: the pages the `evict` line names must be those the
 * cache freed, and with fault `lock-underflow` a live request that hit the cache may find
 * its prefix page evicted under it (`ExclusiveHold`).
 */
import { NO_PAGE } from '../impl/index.ts';
import { isLive } from '../spec/index.ts';
import { sharesFirst, type LoggedPool } from './pool.ts';
import { OK, refused, type EventContext, type StepResult } from './step-context.ts';

/** How many prefix pages the cache holds. */
export function cachedCount(pool: LoggedPool): number {
  let n = 0;
  for (let k = 0; k < pool.prefixPages.length; k++) if ((pool.prefixPages[k] ?? NO_PAGE) !== NO_PAGE) n++;
  return n;
}

/**
 * After an eviction: the logged pages must be those the cache freed (each cached before,
 * free now); and a live request that hit the cache must still find its prefix page cached
 * (with `lock-underflow` nothing locks it: the page is free while its table holds it).
 */
export function afterEvict(ctx: EventContext, pool: LoggedPool, cachedBefore: number, loggedCached: number): StepResult {
  const freed = cachedBefore - cachedCount(pool);
  const pages = ctx.pages;
  if (pages !== undefined && (pages.count !== freed || loggedCached !== freed || pages.filter(0, 1, (p) => (pool.holder[p] ?? 0) !== 0).length > 0)) {
    return refused(`evict(${ctx.info.id}) frees ${freed === 1 ? 'one cached page' : `${freed} cached pages`}; the log says ${pages.words()}, which ${pages.count === 1 ? 'is' : 'are'} not what it freed`);
  }
  if (!pool.behaviour.lockUnderflow) return OK;
  for (let s = 0; s < pool.options.slots; s++) {
    if (!isLive(pool.phase(s)) || !sharesFirst(pool, s)) continue;
    const p = pool.pageTable(s)[0] ?? 0;
    if ((pool.holder[p] ?? 0) >= 0) {
      const reader = ctx.window.info(s)?.id ?? `slot ${s}`;
      const headline = [`evict(${ctx.info.id}) freed page ${p}, the cached prefix page that ${reader} (live, a cache hit) still reads: nothing locked it, and it is free while ${reader}'s table holds it.`];
      return { kind: 'violation', invariant: 'ExclusiveHold', headline, involved: [pool.serial(s)], pages: [p] };
    }
  }
  return OK;
}
