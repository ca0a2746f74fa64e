/**
 * One logged event applied to one state the system may be in: the spec's action taken on
 * that state (through the pool), the log's page ids compared with the spec's, the
 * invariant that the step can break checked, and a hidden step of the request landed when
 * the event needs it. The result says whether the state accepts the event, and if not,
 * why, in words that name the request, its phase and the pages.
 */
import { NO_PAGE } from '../impl/index.ts';
import { isLive, isOverLongPrompt, limitInTokens, PHASES, Ph, READ_UNHELD, stubsSilently, type Action, type ActionKind } from '../spec/index.ts';
import type { LogModel, RequestEvent } from './events.ts';
import { finished, sharesFirst, tableOf, takeAction, type LoggedPool } from './pool.ts';
import type { PageRuns } from './pages.ts';
import type { EventRule } from './table.ts';
import type { RequestInfo, RequestWindow } from './window.ts';

/** A hidden step that has not happened yet: one of `kinds` will be taken for the request in `slot`. */
export interface Pending {
  /** The slot of its request. */
  readonly slot: number;
  /** The action kinds it may be (the spec enables one). */
  readonly kinds: readonly ActionKind[];
}

/** One state the system may be in: the pool, the hidden steps still to happen, and (for small logs) the spec actions so far. */
export interface Possible {
  /** The state. */
  readonly pool: LoggedPool;
  /** Hidden steps not yet taken. */
  pending: Pending[];
  /** The spec actions that led here, with requests by arrival index; dropped when the log outgrows the spec. */
  path: Action[] | undefined;
}

/** What one state made of one event. */
export type StepResult =
  | { readonly kind: 'ok' }
  | { readonly kind: 'refused'; readonly why: string }
  | { readonly kind: 'violation'; readonly invariant: string; readonly headline: readonly string[]; readonly involved: readonly number[]; readonly pages?: readonly number[] };

/** Everything about the event that is the same in every state. */
export interface EventContext {
  /** The event. */
  readonly event: RequestEvent;
  /** What it means. */
  readonly rule: EventRule;
  /** Its request's slot. */
  readonly slot: number;
  /** Its request. */
  readonly info: RequestInfo;
  /** Its page ids; `undefined` when it names none. */
  readonly pages: PageRuns | undefined;
  /** The model. */
  readonly model: LogModel;
  /** The window, for names. */
  readonly window: RequestWindow;
  /** Whether `Integrity` is checked at decode (off unless asked for, as in `check`). */
  readonly integrity: boolean;
}

// Read once: a namespace re-export is a getter call on every access, and these run per event.
const NEW = Ph.new;
const DECODED = Ph.decoded;
const FREED = Ph.freed;
const LANDED = Ph.landed;
const PHASE_NAMES: readonly string[] = [...PHASES];

const OK: StepResult = { kind: 'ok' };
const refused = (why: string): StepResult => ({ kind: 'refused', why });

/** A list of pages in words, the first few. */
export function pageWords(pages: readonly number[]): string {
  const shown = pages.slice(0, 8).join(', ');
  return pages.length <= 8 ? `[${shown}]` : `[${shown}, ... ${pages.length} pages]`;
}

/** A state in a few words for a refusal: the request's phase, and the free pages. */
function phaseWords(pool: LoggedPool, slot: number, name: string): string {
  return `${name} is ${PHASE_NAMES[pool.phase(slot)] ?? '?'}`;
}

/** A holder label in words. */
function holderName(ctx: EventContext, label: number): string {
  return label < 0 ? `the prefix cache` : label === 0 ? 'nobody' : ctx.window.nameOf(label);
}

/** Lands hidden step `h` in place; whether the spec enabled one of its kinds. */
export function land(ctx: { readonly window: RequestWindow }, s: Possible, h: Pending): boolean {
  const info = ctx.window.info(h.slot);
  for (const kind of h.kinds) {
    if (!takeAction(s.pool, kind, h.slot, info?.length ?? 0, info?.group ?? -1)) continue;
    s.pending = s.pending.filter((x) => x !== h);
    s.path?.push({ kind, r: info?.index ?? 0 });
    return true;
  }
  return false;
}

/** Whether P finds the request too long, by the log's length rule in tokens (spec/behaviour.ts; the pool decides the same way). */
function overLong(ctx: EventContext): boolean {
  return isOverLongPrompt(ctx.info.tokens, limitInTokens(ctx.model.prefillLimit, ctx.model.pageSize), ctx.model.lengthRule);
}

/**
 * The table entries a write of the slot's request will land in, `[from, to)`: all of them
 * for `prefill`, the first own page for a silent `stub`; `undefined` when P refuses. This
 * mirrors the spec's guards of `prefill` and `stub` for one purpose only: to check the
 * pages of a `posted` event, which the spec does not see.
 */

function writeRange(pool: LoggedPool, ctx: EventContext): readonly [number, number] | undefined {
  const own = sharesFirst(pool, ctx.slot) ? 1 : 0;
  if (!overLong(ctx)) return [own, ctx.info.length];
  if (!stubsSilently(ctx.model.variant, ctx.model.faults)) return undefined;
  return [own, own + 1];
}

/** Whether the logged pages are the table entries `[from, to)`; for a release, in any order. */
function samePages(pool: LoggedPool, slot: number, pages: PageRuns, from: number, to: number, anyOrder: boolean): boolean {
  if (pages.equalsRow(pool.pageTable(slot), from, to)) return true;
  if (!anyOrder || pages.count !== to - from) return false;
  const a = tableOf(pool, slot).slice(from, to).sort((x, y) => x - y);
  const b = pages.toArray().sort((x, y) => x - y);
  return a.every((x, i) => x === b[i]);
}

/** Applies an allocation: held pages break ExclusiveHold; the pages must be the allocator's. */
function allocate(ctx: EventContext, s: Possible): StepResult {
  const { pool, slot } = { pool: s.pool, slot: ctx.slot };
  const pages = ctx.pages;
  const name = ctx.info.id;
  if (pages === undefined || pages.count !== ctx.info.length) return refused(`${name} arrived with ${ctx.info.length} pages, the allocation names ${pages?.count ?? 0}`);
  const cached = ctx.info.group >= 0 ? (pool.prefixPages[ctx.info.group] ?? NO_PAGE) : NO_PAGE;
  const shared = cached !== NO_PAGE ? 1 : 0;
  if (shared === 1 && pages.at(0) !== cached) return refused(`${name}'s prefix is cached in page ${cached}, which must come first; the allocation names ${pages.at(0)}`);
  if (pool.phase(slot) === NEW || finished(pool, slot)) {
    // Page ids run from the allocator's first page (1 where page 0 is SGLang's padding page) for `pages` pages.
    const first = pool.behaviour.firstPage;
    const end = first + pool.options.pages;
    const inPool = (p: number): boolean => p >= first && p < end;
    // Held: not free, or (a page listed twice under `double-free`) free and held at once.
    const multiset = pool.behaviour.doubleFree;
    const held = pages.filter(shared, 16, (p) => !inPool(p) || !pool.isFree(p) || (multiset && (pool.holder[p] ?? 0) !== 0));
    const outside = held.filter((p) => !inPool(p));
    if (outside.length > 0) return refused(`page ${outside[0]} is not in the pool of ${pool.options.pages} pages (ids ${first} to ${end - 1})`);
    if (held.length > 0) {
      const headline = held.slice(0, 4).map((p) => `allocate(${name}) took page ${p}, which ${holderName(ctx, pool.holder[p] ?? 0)} still holds.`);
      return { kind: 'violation', invariant: 'ExclusiveHold', headline, involved: held.map((p) => pool.holder[p] ?? 0).filter((h) => h > 0) };
    }
  }
  if (ctx.model.allocator === 'any') pool.wanted = pages.toArray(shared);
  const accepted = takeAction(pool, 'allocate', slot, ctx.info.length, ctx.info.group, ctx.info.tokens);
  pool.wanted = undefined;
  if (!accepted) return refused(`allocate(${name}) is not enabled: ${phaseWords(pool, slot, name)}, ${pool.freePages} pages are free and ${ctx.info.length - shared} are needed`);
  if (!pages.equalsRow(pool.pageTable(slot), 0, ctx.info.length)) {
    return refused(`the ${ctx.model.allocator} allocator hands out ${pageWords(tableOf(pool, slot))}; the log says ${pages.words()}`);
  }
  if (pool.twice >= 0) {
    return { kind: 'violation', invariant: 'ExclusiveHold', headline: [`allocate(${name}) took page ${pool.twice} twice: it is in the page table twice.`], involved: [] };
  }
  ctx.info.serial = pool.serial(slot);
  return OK;
}

/** The pages of the request's table still held by someone else: a release of them frees pages that live tables hold. */
function heldByOthers(pool: LoggedPool, slot: number): number[] {
  // Under `hardened`'s release-checks-holder a release frees only the request's own pages: none of these.
  if (pool.behaviour.releaseChecksHolder) return [];
  const own = pool.serial(slot);
  const row = pool.pageTable(slot);
  const out: number[] = [];
  for (let i = sharesFirst(pool, slot) ? 1 : 0; i < (pool.lengths[slot] ?? 0); i++) {
    const p = row[i] ?? 0;
    const h = pool.holder[p] ?? 0;
    // Another request's page; or the prefix cache's, while a live request shares it.
    if ((h > 0 && h !== own) || (h < 0 && sharedByLive(pool, p))) out.push(p);
  }
  return out;
}

/** Whether a live request has page `p` as its shared prefix page. */
function sharedByLive(pool: LoggedPool, p: number): boolean {
  for (let s = 0; s < pool.options.slots; s++) {
    if (isLive(pool.phase(s)) && sharesFirst(pool, s) && pool.pageTable(s)[0] === p) return true;
  }
  return false;
}

/** The pages of the slot's own table entries that the free list (with `sglang`'s release list) now holds more than once (at most 16). */
function listedTwice(pool: LoggedPool, slot: number): number[] {
  const row = pool.pageTable(slot);
  const out: number[] = [];
  for (let i = sharesFirst(pool, slot) ? 1 : 0; i < (pool.lengths[slot] ?? 0) && out.length < 16; i++) {
    const p = row[i] ?? 0;
    if (pool.freeCopies(p) + pool.releaseCopies(p) > 1 && !out.includes(p)) out.push(p);
  }
  return out;
}

/** How many prefix pages the cache holds. */
function cachedCount(pool: LoggedPool): number {
  let n = 0;
  for (let k = 0; k < pool.prefixPages.length; k++) if ((pool.prefixPages[k] ?? NO_PAGE) !== NO_PAGE) n++;
  return n;
}

/**
 * After an eviction: the logged pages must be those the cache freed (each cached before,
 * free now); and a live request that hit the cache must still find its prefix page cached
 * (with `lock-underflow` nothing locks it: the page is free while its table holds it).
 */
function afterEvict(ctx: EventContext, pool: LoggedPool, cachedBefore: number, loggedCached: number): StepResult {
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

/** For a refused second release: which fault would allow it, in words. */
function secondRelease(ctx: EventContext, pool: LoggedPool, kind: ActionKind): string {
  const phase = pool.phase(ctx.slot);
  if (kind !== 'free' || (phase !== FREED && phase !== LANDED)) return '';
  if (ctx.model.faults.includes('double-free')) return ' and a second release needs every page of its old table still free (fault double-free), or fault stale-free';
  return '; a second release of its pages needs fault double-free (the pages are still free) or stale-free';
}

/** What decode read that breaks an invariant, or nothing. */
function afterDecode(ctx: EventContext, pool: LoggedPool): StepResult {
  const slot = ctx.slot;
  const name = ctx.info.id;
  if (pool.foreignReads(slot) > 0) {
    const own = pool.serial(slot);
    // Whose data it read, writer by writer: a 12,000-page leak is a few sentences, not 12,000.
    const byWriter = new Map<number, number[]>();
    const row = pool.pageTable(slot);
    for (let i = 0; i < (pool.lengths[slot] ?? 0); i++) {
      const p = row[i] ?? 0;
      const d = pool.data[p] ?? 0;
      if (d === 0 || d === own || d < 0) continue;
      const list = byWriter.get(d) ?? [];
      if (list.length === 0) byWriter.set(d, list);
      list.push(p);
    }
    const writers = [...byWriter.entries()];
    const headline = writers.slice(0, 4).map(([d, ps]) => `${name} read ${ps.length === 1 ? 'page' : 'pages'} ${pageWords(ps).slice(1, -1)}, which ${ps.length === 1 ? 'holds' : 'hold'} ${ctx.window.nameOf(d)}'s data.`);
    if (writers.length > 4) headline.push(`... and pages of ${writers.length - 4} more requests.`);
    return { kind: 'violation', invariant: 'Isolation', headline, involved: writers.map(([d]) => d), pages: writers.flatMap(([, ps]) => ps.slice(0, 2)) };
  }
  if (((pool.flags[slot] ?? 0) & READ_UNHELD) !== 0) {
    return { kind: 'violation', invariant: 'ReadsOwnPages', headline: [`${name} read a page it did not hold.`], involved: [] };
  }
  if (ctx.integrity && pool.garbageReads(slot) > 0) return integrityBreach(ctx, pool);
  return OK;
}

/**
 * The positions where the slot's decode read no other request's data but not content
 * written for it there either: a page never written, or its own content written for
 * another position. "Would have answered garbage"; nothing leaked.
 */
function integrityBreach(ctx: EventContext, pool: LoggedPool): StepResult {
  const slot = ctx.slot;
  const base = slot * pool.options.maxLength;
  const never: number[] = [];
  const misplaced: string[] = [];
  const row = pool.pageTable(slot);
  for (let i = 0; i < (pool.lengths[slot] ?? 0) && never.length + misplaced.length < 8; i++) {
    const p = row[i] ?? 0;
    const d = pool.reads[base + i] ?? 0;
    const at = pool.readPositions[base + i] ?? 0;
    if (d === 0) never.push(p);
    else if (at !== i) misplaced.push(`page ${p} at position ${i} holds content written for position ${at}`);
  }
  const name = ctx.info.id;
  const headline = [
    ...(never.length === 0 ? [] : [`${name} read ${never.length === 1 ? 'page' : 'pages'} ${never.join(', ')}, never written during its hold: its answer is garbage (nothing leaked).`]),
    ...misplaced.slice(0, 4).map((m) => `${name} read its own content at the wrong place: ${m}.`),
  ];
  return { kind: 'violation', invariant: 'Integrity', headline, involved: [], pages: never.slice(0, 2) };
}

/** The request's own hidden step, if one is pending. */
function ownPending(s: Possible, slot: number): Pending | undefined {
  for (const h of s.pending) if (h.slot === slot) return h;
  return undefined;
}

/** Applies a spec action that the log recorded. */
function action(ctx: EventContext, s: Possible, kind: ActionKind, outcomes: readonly string[] | undefined): StepResult {
  const { pool, slot } = { pool: s.pool, slot: ctx.slot };
  const name = ctx.info.id;
  if (kind === 'allocate') {
    const r = allocate(ctx, s);
    if (r.kind === 'ok') s.path?.push({ kind, r: ctx.info.index });
    return r;
  }
  const stale = kind === 'free' ? heldByOthers(pool, slot) : [];
  // Who held them, read before the release: afterwards they are free.
  const staleHolders = stale.map((p) => pool.holder[p] ?? 0);
  // What the cache holds of the logged pages before an eviction: they must be what it frees.
  const cachedBefore = kind === 'evict' ? cachedCount(pool) : 0;
  const loggedCached = kind === 'evict' && ctx.pages !== undefined ? ctx.pages.filter(0, 16, (p) => (pool.holder[p] ?? 0) < 0).length : 0;
  let accepted = takeAction(pool, kind, slot, ctx.info.length, ctx.info.group, ctx.info.tokens);
  // The request's own write lands lazily: before its next event that needs it.
  const h = ownPending(s, slot);
  if (!accepted && h !== undefined && !h.kinds.includes(kind) && land(ctx, s, h)) accepted = takeAction(pool, kind, slot, ctx.info.length, ctx.info.group, ctx.info.tokens);
  if (!accepted) return refused(`${kind}(${name}) is not enabled: ${phaseWords(pool, slot, name)}${secondRelease(ctx, pool, kind)}`);
  s.path?.push({ kind, r: ctx.info.index });
  const consumed = ownPending(s, slot);
  if (consumed !== undefined && consumed.kinds.includes(kind)) s.pending = s.pending.filter((x) => x !== consumed);
  const phase = PHASE_NAMES[pool.phase(slot)] ?? '?';
  if (outcomes !== undefined && !outcomes.includes(phase)) return refused(`the spec's ${kind}(${name}) leaves it ${phase}; the log says it ended ${outcomes.join(' or ')}`);
  if (kind === 'evict') return afterEvict(ctx, pool, cachedBefore, loggedCached);
  if (ctx.pages !== undefined) {
    const length = pool.lengths[slot] ?? 0;
    const [from, to] = kind === 'free' ? [sharesFirst(pool, slot) ? 1 : 0, length] : kind === 'insert' ? [0, 1] : [0, length];
    if (!samePages(pool, slot, ctx.pages, from, to, kind === 'free')) {
      return refused(`${kind}(${name}) is about pages ${pageWords(tableOf(pool, slot).slice(from, to))}; the log says ${ctx.pages.words()}`);
    }
  }
  if (kind === 'decode') return afterDecode(ctx, pool);
  if (stale.length > 0) {
    const headline = stale.slice(0, 4).map((p, i) => `free(${name}) released page ${p}, which ${holderName(ctx, staleHolders[i] ?? 0)} holds: it is held and free at once.`);
    return { kind: 'violation', invariant: 'ExclusiveHold', headline, involved: staleHolders.filter((x) => x > 0) };
  }
  // After ExclusiveHold, as the spec's invariants are listed: a stale release can break both.
  if ((kind === 'free' || kind === 'timeout') && pool.behaviour.doubleFree) {
    const twice = listedTwice(pool, slot);
    if (twice.length > 0) {
      const headline = twice.slice(0, 4).map((p) => `${kind}(${name}) released page ${p}, which was already free: it is on the free list twice, and two allocations can each be handed it.`);
      return { kind: 'violation', invariant: 'NoDuplicateFree', headline, involved: [], pages: twice.slice(0, 4) };
    }
  }
  return OK;
}

/** Applies the event to one state, in place. */
export function applyEvent(ctx: EventContext, s: Possible): StepResult {
  const { rule, slot } = ctx;
  const pool = s.pool;
  const name = ctx.info.id;
  const own = ownPending(s, slot);
  switch (rule.role) {
    case 'action': {
      const r = action(ctx, s, rule.action, rule.outcomes);
      if (r.kind !== 'refused' && rule.opens !== undefined) s.pending.push({ slot, kinds: rule.opens });
      return r;
    }
    case 'close':
      // Every hidden step of the request lands by now (one for an atomic write; one per part of a torn one).
      for (let h = own; h !== undefined; h = ownPending(s, slot)) {
        if (!land(ctx, s, h)) return refused(`P's write for ${name} cannot land: ${phaseWords(pool, slot, name)}`);
      }
      return OK;
    case 'observe': {
      if (rule.needs === 'decoded') {
        if (pool.phase(slot) !== DECODED) return refused(`a later decode step of ${name} needs it decoded, but ${phaseWords(pool, slot, name)}`);
        const length = pool.lengths[slot] ?? 0;
        return ctx.pages === undefined || samePages(pool, slot, ctx.pages, 0, length, false)
          ? OK
          : refused(`${name}'s page table is ${pageWords(tableOf(pool, slot))}; the log says it read ${ctx.pages.words()}`);
      }
      if (own === undefined) return refused(`P posted a write for ${name}, but no write of it is outstanding: ${phaseWords(pool, slot, name)}`);
      const range = writeRange(pool, ctx);
      if (range === undefined) return refused(`${name} is too long for P (${ctx.info.tokens} tokens, ${ctx.model.lengthRule === 'ge' ? 'at least' : 'more than'} its limit of ${ctx.model.prefillLimit} pages) and this variant refuses it: P posts no write`);
      return ctx.pages === undefined || samePages(pool, slot, ctx.pages, range[0], range[1], false)
        ? OK
        : refused(`P's write for ${name} lands in ${pageWords(tableOf(pool, slot).slice(range[0], range[1]))}; the log says ${ctx.pages.words()}`);
    }
    case 'unmodelled':
      return refused(rule.why);
    case 'config':
    case 'arrival':
      return OK;
  }
}
