/**
 * The events that take pages from the free list: `allocate` (D's pre-allocation, the whole
 * table, or on a prefix-cache hit only the pages past the prefix, `kv_loc` of
 * `[prefix_len:]`), `resume` (a retracted request's new pages) and `allocFail` (an attempt
 * the allocator refused, which under `sglang` merged its release list). A logged page that
 * some live table holds is an `ExclusiveHold` violation at that line; otherwise the pages
 * must be those the allocation order hands out.
 */
import { NO_PAGE } from '../impl/index.ts';
import { Ph } from '../spec/index.ts';
import { finished, tableOf, takeAction, type LogPool } from './pool.ts';
import type { PageRuns } from './pages.ts';
import { holderName, OK, pageWords, phaseWords, refused, type EventContext, type Possible, type StepResult } from './step-context.ts';
import { pickOf, slotsRefusal } from './step-slots.ts';

// Read once: a namespace re-export is a getter call on every access.
const NEW = Ph.new;

/** The logged pages from the `skip`-th on that the pool cannot hand out: outside its ids, or held by a live table (a refusal or an `ExclusiveHold` violation); `undefined` when every one is free. */
function heldPages(ctx: EventContext, pool: LogPool, pages: PageRuns, skip: number, what: string): StepResult | undefined {
  // Page ids run from the allocator's first page (1 where page 0 is SGLang's padding page) for `pages` pages.
  const first = pool.behaviour.firstPage;
  const end = first + pool.options.pages;
  const inPool = (p: number): boolean => p >= first && p < end;
  // Held: not free, or (a page listed twice under `double-free`) free and held at once.
  const multiset = pool.behaviour.doubleFree;
  const held = pages.filter(skip, 16, (p) => !inPool(p) || !pool.isFree(p) || (multiset && (pool.holder[p] ?? 0) !== 0));
  const outside = held.filter((p) => !inPool(p));
  if (outside.length > 0) return refused(`page ${outside[0]} is not in the pool of ${pool.options.pages} pages (ids ${first} to ${end - 1})`);
  if (held.length === 0) return undefined;
  const headline = held.slice(0, 4).map((p) => `${what}(${ctx.info.id}) took page ${p}, which ${holderName(ctx, pool.holder[p] ?? 0)} still holds.`);
  return { kind: 'violation', invariant: 'ExclusiveHold', headline, involved: held.map((p) => pool.holder[p] ?? 0).filter((h) => h > 0) };
}

/** After the pool took the pages: they must be the logged ones, `from` the table's first entry logged, and none twice in the table. */
function takenAsLogged(ctx: EventContext, pool: LogPool, pages: PageRuns, from: number, what: string): StepResult {
  const length = pool.lengths[ctx.slot] ?? 0;
  if (!pages.equalsRow(pool.pageTable(ctx.slot), from, length)) {
    return refused(`the ${ctx.model.allocator} allocator hands out ${pageWords(tableOf(pool, ctx.slot).slice(from))}; the log says ${pages.words()}`);
  }
  if (pool.twice >= 0) {
    return { kind: 'violation', invariant: 'ExclusiveHold', headline: [`${what}(${ctx.info.id}) took page ${pool.twice} twice: it is in the page table twice.`], involved: [] };
  }
  return OK;
}

/** The cached pages an allocation of the request shares now (`match_prefix`: its prefix's pages, or under `radix` the path's matched nodes), in table order. */
function cachedPages(ctx: EventContext, pool: LogPool): number[] {
  const g = ctx.info.group;
  if (g < 0) return [];
  return Array.from({ length: pool.matchedCount(g) }, (_, j) => pool.prefixPages[pool.prefixSlot(g, j)] ?? NO_PAGE);
}

/** Applies an allocation: held pages break ExclusiveHold; the pages must be the allocator's. */
export function allocate(ctx: EventContext, s: Possible): StepResult {
  const { pool } = s;
  const { slot, pages } = ctx;
  const { id: name, length } = ctx.info;
  const cached = cachedPages(ctx, pool);
  const shared = cached.length;
  // The whole table, or on a hit only the pages past the cached prefix (`kv_loc`, `[prefix_len:]`).
  const partial = shared > 0 && pages !== undefined && pages.count === length - shared;
  if (pages === undefined || (pages.count !== length && !partial)) return refused(`${name} arrived with ${length} pages, the allocation names ${pages?.count ?? 0}`);
  if (!partial && cached.some((p, j) => pages.at(j) !== p)) {
    const named = pageWords(pages.toArray().slice(0, shared));
    return refused(shared === 1 ? `${name}'s prefix is cached in page ${cached[0]}, which must come first; the allocation names ${pages.at(0)}` : `${name}'s prefix is cached in pages ${pageWords(cached)}, which must come first; the allocation names ${named}`);
  }
  const skip = partial ? 0 : shared;
  if (pool.phase(slot) === NEW || finished(pool, slot)) {
    const bad = heldPages(ctx, pool, pages, skip, 'allocate');
    if (bad !== undefined) return bad;
  }
  const heldSlot = slotsRefusal(ctx, pool);
  if (heldSlot !== undefined) return heldSlot;
  if (ctx.model.allocator === 'any') pool.wanted = pages.toArray(skip);
  pool.slotPick = pickOf(ctx);
  const accepted = takeAction(pool, 'allocate', slot, length, ctx.info.group, ctx.info.tokens);
  pool.wanted = undefined;
  pool.slotPick = {};
  if (!accepted) return refused(`allocate(${name}) is not enabled: ${phaseWords(pool, slot, name)}, ${pool.freePages} pages are free and ${length - shared} are needed`);
  const taken = takenAsLogged(ctx, pool, pages, partial ? shared : 0, 'allocate');
  if (taken.kind !== 'ok') return taken;
  s.path?.push({ kind: 'allocate', r: ctx.info.index });
  ctx.info.serial = pool.serial(slot);
  return OK;
}

/**
 * A failed attempt: the request must be new and need more pages than the free list and the
 * release list hold, or the allocator would not have failed; the pool's refused allocation
 * then merges `sglang`'s release list (spec/alloc-fail.ts), and only then is it a step of
 * the spec.
 */
export function allocFail(ctx: EventContext, s: Possible): StepResult {
  const { pool } = s;
  const { id: name, length } = ctx.info;
  const need = length - cachedPages(ctx, pool).length;
  if (pool.phase(ctx.slot) !== NEW && !finished(pool, ctx.slot)) return refused(`allocFail(${name}): an allocation for ${name} is not enabled at all: ${phaseWords(pool, ctx.slot, name)}`);
  if (pool.freePages >= need) return refused(`allocFail(${name}): the allocator holds ${pool.freePages} free pages and ${name} needs ${need}: its allocation would not fail`);
  const merges = pool.releasedEntries > 0;
  if (takeAction(pool, 'allocate', ctx.slot, length, ctx.info.group, ctx.info.tokens)) throw new Error(`validate-log: the pool allocated ${need} pages with ${pool.freePages} free`);
  if (merges) s.path?.push({ kind: 'allocFail', r: ctx.info.index });
  return OK;
}

/** A resume: the new pages, like an allocation's (the log names them all); the copy is loaded into them. */
export function resume(ctx: EventContext, s: Possible): StepResult {
  const { pool } = s;
  const { slot, pages } = ctx;
  const name = ctx.info.id;
  const length = pool.lengths[slot] ?? 0;
  if (pages !== undefined && pages.count !== length) return refused(`${name}'s table held ${length} pages when it was retracted; the resume names ${pages.count}`);
  if (pages !== undefined && pool.phase(slot) === Ph.retracted) {
    const bad = heldPages(ctx, pool, pages, 0, 'resume');
    if (bad !== undefined) return bad;
  }
  if (ctx.model.allocator === 'any') {
    if (pages === undefined) return refused(`resume(${name}) must name its pages under the any allocator`);
    pool.wanted = pages.toArray();
  }
  const tokens = 'tokens' in ctx.event ? ctx.event.tokens : undefined;
  const accepted = pool.resume(slot, tokens ?? fillTokens(ctx, length));
  pool.wanted = undefined;
  if (!accepted) return refused(`resume(${name}) is not enabled: ${phaseWords(pool, slot, name)}, ${pool.freePages} pages are free and ${length} are needed`);
  return pages === undefined ? OK : takenAsLogged(ctx, pool, pages, 0, 'resume');
}

/** A resume's `fill_len` when the log does not give it: the prompt's tokens while the table holds the prompt's pages, else whole pages. */
function fillTokens(ctx: EventContext, length: number): number {
  const size = ctx.model.pageSize ?? 1;
  return length === ctx.info.length ? ctx.info.tokens : length * size;
}
