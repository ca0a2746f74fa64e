/**
 * The prefix cache's eviction in a log: the pages the `evict` line names must be those the
 * cache freed, and with fault `lock-underflow` a live request that hit the cache may find
 * its prefix page evicted under it (`ExclusiveHold`).
 */
import { NO_PAGE } from '../impl/index.ts';
import { HIT, isLive } from '../spec/index.ts';
import { takeAction, type LogPool } from './pool.ts';
import { OK, refused, type EventContext, type Possible, type StepResult } from './step-context.ts';

/** How many prefix pages the cache holds. */
export function cachedCount(pool: LogPool): number {
  let n = 0;
  for (let k = 0; k < pool.prefixPages.length; k++) if ((pool.prefixPages[k] ?? NO_PAGE) !== NO_PAGE) n++;
  return n;
}

/**
 * One `evict` line is one call of SGLang's `RadixCache.evict(num_tokens)`, which frees
 * leaves (each its own allocator `free`) until the tokens asked for are free: while the
 * line names more pages than the cache has freed since `cachedBefore`, the spec evicts
 * again, as long as it enables it (the allocation is still short of pages).
 */
export function evictMore(ctx: EventContext, s: Possible, cachedBefore: number): void {
  const { pool } = s;
  const named = ctx.pages?.count ?? 0;
  while (cachedBefore - cachedCount(pool) < named && takeAction(pool, 'evict', ctx.slot, ctx.info.length, ctx.info.group, ctx.info.tokens)) s.path?.push({ kind: 'evict', r: ctx.info.index });
}

/**
 * After an eviction: the logged pages must be those the cache freed (each cached before,
 * free now); and a live request that hit the cache must still find its prefix page cached
 * (with `lock-underflow` nothing locks it: the page is free while its table holds it).
 */
export function afterEvict(ctx: EventContext, pool: LogPool, cachedBefore: number, loggedCached: number): StepResult {
  const freed = cachedBefore - cachedCount(pool);
  const pages = ctx.pages;
  if (pages !== undefined && (pages.count !== freed || loggedCached !== freed || pages.filter(0, 1, (p) => (pool.holder[p] ?? 0) !== 0).length > 0)) {
    return refused(`evict(${ctx.info.id}) frees ${freed === 1 ? 'one cached page' : `${freed} cached pages`}; the log says ${pages.words()}, which ${pages.count === 1 ? 'is' : 'are'} not what it freed`);
  }
  if (!pool.behaviour.lockUnderflow) return OK;
  for (let s = 0; s < pool.options.slots; s++) {
    if (!isLive(pool.phase(s))) continue;
    // The first of its shared prefix pages that the cache no longer holds.
    const p = pool.pageTable(s).subarray(0, pool.sharedCount(s)).find((q) => (pool.holder[q] ?? 0) >= 0);
    if (p !== undefined) {
      const reader = ctx.window.info(s)?.id ?? `slot ${s}`;
      // A hit shares the page; under radix the request that inserted it shares it as the tree's node too.
      const how = ((pool.flags[s] ?? 0) & HIT) !== 0 ? 'a cache hit' : "its page is the tree's node";
      const headline = [`evict(${ctx.info.id}) freed page ${p}, the cached prefix page that ${reader} (live, ${how}) still reads: nothing locked it, and it is free while ${reader}'s table holds it.`];
      return { kind: 'violation', invariant: 'ExclusiveHold', headline, involved: [pool.serial(s)], pages: [p] };
    }
  }
  return OK;
}
