/**
 * The host tier's loads and the draft model's KV in a log (config `loadback`, `draft`;
 * tier-pool.ts). A `load` line is D posting a load from host memory into the request's
 * prefix pages (`init_load_back` → `load_back`, `mem_cache/hiradix_cache.py`), which the
 * spec's `allocate` did; a `loaded` line its acknowledgement (`loading_check`), by which the
 * load has landed (the spec's `loadBack`); a `hostEvict` line `evict_host` freeing a
 * prefix's host copy (the spec's `evictHost`). The load lands at the latest the log
 * allows: at `loaded`, or at the decode that waits for it; a `hostEvict` of a copy a load
 * still reads lands that load first, unless fault `host-evict-during-load` lets the
 * eviction take the copy under it. A decode reads each page's draft KV beside its target
 * KV: another request's is `Isolation` at the decode's line (fault `draft-stale`), none
 * `Integrity` with `--integrity`.
 */
import { LOAD } from '../spec/index.ts';
import { prefixLabelOf, STALE_DATA } from '../impl/index.ts';
import type { LogModel } from './events.ts';
import type { LogPool } from './pool.ts';
import { OK, pageWords, phaseWords, refused, samePages, type EventContext, type Possible, type StepResult } from './step-context.ts';
import type { RequestWindow } from './window.ts';

/** Lands the slot's posted load in place (the spec's `loadBack`); whether one was posted. */
export function landLoad(s: Possible, slot: number, index: number): boolean {
  if (s.pool.loadBack?.(slot) !== true) return false;
  s.path?.push({ kind: 'loadBack', r: index });
  return true;
}

/** A `load` line: the spec's allocation posted a load for the request (its prefix missed D's cache and is on the host), into the pages the line names. */
export function loadPosted(ctx: EventContext, s: Possible): StepResult {
  const { pool } = s;
  const name = ctx.info.id;
  if (pool.load === undefined || ctx.model.loadback !== true) return refused('load needs loadback: true in the config event');
  if ((pool.load[ctx.slot] ?? 0) === LOAD.none) return refused(`D loads nothing from host memory for ${name}: ${pool.phase(ctx.slot) === 0 ? `${name} has no pages yet` : "its prefix hit D's cache, or has none, or its host copy was evicted"}`);
  const k = pool.loadedCount?.(ctx.slot) ?? 0;
  if (ctx.pages === undefined || samePages(pool, ctx.slot, ctx.pages, 0, k)) return OK;
  return refused(`${name}'s load from host memory fills its prefix pages ${pageWords([...pool.pageTable(ctx.slot).slice(0, k)])}; the log says ${ctx.pages.words()}`);
}

/** A `loaded` line: the request's load was acknowledged, so it has landed by now (here, unless a decode that waited for it landed it). */
export function loaded(ctx: EventContext, s: Possible): StepResult {
  const state = s.pool.load?.[ctx.slot] ?? LOAD.none;
  if (state === LOAD.landed) return OK;
  if (state === LOAD.posted && landLoad(s, ctx.slot, ctx.info.index)) return OK;
  return refused(`no load from host memory of ${ctx.info.id} is outstanding: ${phaseWords(s.pool, ctx.slot, ctx.info.id)}`);
}

/**
 * A `hostEvict` line on one state, in place: prefix group `g`'s host copy is evicted and
 * reused. A copy that a posted load still reads is evicted under it only with fault
 * `host-evict-during-load` (without `protect-host`); otherwise `evict_host` skipped it until
 * the load's ack, so those loads have landed by now.
 */
export function hostEvicted(s: Possible, g: number, prefix: string, window: RequestWindow, model: LogModel): StepResult {
  const { pool } = s;
  if (pool.evictHost === undefined || pool.hostReused === undefined || model.loadback !== true) return refused('hostEvict needs loadback: true in the config event');
  if (pool.hostReused[g] === 1) return refused(`the host copy of prefix "${prefix}" was evicted already (the spec keeps one host copy per prefix, and P computes the prefix once it is gone)`);
  if (!pool.evictHost(g)) {
    for (const slot of pool.loadsReading?.(g) ?? []) landLoad(s, slot, window.info(slot)?.index ?? 0);
    if (!pool.evictHost(g)) return refused(`the spec cannot evict the host copy of prefix "${prefix}"`);
  }
  // The spec's evictHost is taken on behalf of a request with the prefix; with none in the window, the spec's trace is not kept.
  let r = -1;
  for (let slot = 0; slot < window.slots && r < 0; slot++) if (window.info(slot)?.group === g) r = window.info(slot)?.index ?? -1;
  if (r < 0) s.path = undefined;
  else s.path?.push({ kind: 'evictHost', r });
  return OK;
}

/** What a decode read of its pages' draft KV (config `draft`): another request's (`Isolation`), or none written (`Integrity`, with `--integrity`). */
export function draftAtDecode(ctx: EventContext, pool: LogPool): StepResult {
  const draft = pool.draft;
  if (draft === undefined || draft.length === 0) return OK;
  const { slot } = ctx;
  const serial = pool.serial(slot);
  const g = ctx.info.group;
  const k = g >= 0 ? (pool.prefixLengths[g] ?? 1) : 0;
  const row = pool.pageTable(slot);
  const foreign = new Map<number, number[]>();
  const never: number[] = [];
  for (let i = 0; i < (pool.lengths[slot] ?? 0); i++) {
    const p = row[i] ?? 0;
    const d = draft[p] ?? 0;
    // As a target read: the reader's own, or its prefix's page i at position i.
    if (d === serial || (i < k && d === prefixLabelOf(pool.prefixSlot(g, i)))) continue;
    if (d === 0) never.push(p);
    else foreign.set(d, [...(foreign.get(d) ?? []), p]);
  }
  const name = ctx.info.id;
  if (foreign.size > 0) {
    const writers = [...foreign.entries()];
    const whose = (d: number): string => (d === STALE_DATA ? "another user's" : d < 0 ? "another prefix's" : `${ctx.window.nameOf(d)}'s`);
    const headline = writers.slice(0, 4).map(([d, ps]) => `${name} read the draft KV of ${ps.length === 1 ? 'page' : 'pages'} ${pageWords(ps).slice(1, -1)}, which ${ps.length === 1 ? 'holds' : 'hold'} ${whose(d)} draft KV.`);
    return { kind: 'violation', invariant: 'Isolation', headline, involved: writers.map(([d]) => d).filter((d) => d > 0), pages: writers.flatMap(([, ps]) => ps.slice(0, 2)) };
  }
  if (!ctx.integrity || never.length === 0) return OK;
  return { kind: 'violation', invariant: 'Integrity', headline: [`${name} read the draft KV of ${never.length === 1 ? 'page' : 'pages'} ${pageWords(never).slice(1, -1)}, never written: its answer is garbage (nothing leaked).`], involved: [], pages: never.slice(0, 2) };
}

/** Whether the slot's stale pages came from a host copy evicted and reused under its load (fault `host-evict-during-load`). */
export function loadedStale(pool: LogPool, slot: number, group: number): boolean {
  return group >= 0 && pool.load?.[slot] === LOAD.landed && pool.hostReused?.[group] === 1;
}
