/**
 * P's side of a request in a log: the parts of its write it posts (`posted`, one line per
 * chunk of `send_kv_chunk`), and its abort (`abort`: the transfer is given up, nothing more
 * will land). The write's landing itself is a hidden step (step.ts): these lines only say
 * where it can land, or that it never will. With P's source pages (config `sourcePages`,
 * spec/source-pages.ts), a `posted` line names the chunk's source pages (`sources`) and a
 * `sourceFree` line P's release of them.
 */
import { isOverLongPrompt, stubsSilently } from '../spec/index.ts';
import { limitTokensOf } from './events.ts';
import { tableOf, type LogPool } from './pool.ts';
import { land, OK, ownPending, pageWords, phaseWords, refused, type EventContext, type Possible, type StepResult } from './step-context.ts';

/** Whether P finds the request too long, by the log's length rule in tokens (spec/behaviour.ts; the pool decides the same way). */
function overLong(ctx: EventContext): boolean {
  return isOverLongPrompt(ctx.info.tokens, limitTokensOf(ctx.model), ctx.model.lengthRule);
}

/**
 * The table entries a write of the slot's request will land in, `[from, to)`: all of them
 * for `prefill`, the first own page for a silent `stub`; `undefined` when P refuses. This
 * mirrors the spec's guards of `prefill` and `stub` for one purpose only: to check the
 * pages of a `posted` event, which the spec does not see.
 */
function writeRange(pool: LogPool, ctx: EventContext): readonly [number, number] | undefined {
  // P's write starts past the shared prefix pages, and past those a load from host memory fills (config loadback).
  const own = pool.sharedCount(ctx.slot) + (pool.loadedCount?.(ctx.slot) ?? 0);
  if (!overLong(ctx)) return [own, ctx.info.length];
  if (!stubsSilently(ctx.model.variant, ctx.model.faults)) return undefined;
  return [own, own + 1];
}

/**
 * A `posted` line: P posted (a chunk of) its write. Its pages must be a run of the pages the
 * write lands in, in table order: the whole write, or one of its chunks (`send_kv_chunk`
 * sends page-aligned slices of the destination pages, the last one with the metadata).
 */
export function posted(ctx: EventContext, s: Possible): StepResult {
  const { pool } = s;
  const { slot, pages } = ctx;
  const name = ctx.info.id;
  if (ownPending(s, slot) === undefined) return refused(`P posted a write for ${name}, but no write of it is outstanding: ${phaseWords(pool, slot, name)}`);
  const range = writeRange(pool, ctx);
  if (range === undefined) {
    const limit = ctx.model.prefillTokens === undefined ? `${ctx.model.prefillLimit} pages` : `${limitTokensOf(ctx.model)} tokens`;
    return refused(`${name} is too long for P (${ctx.info.tokens} tokens, ${ctx.model.lengthRule === 'ge' ? 'at least' : 'more than'} its limit of ${limit}) and this variant refuses it: P posts no write`);
  }
  reusedSources(ctx, s);
  if (pages === undefined || pages.count === 0) return OK;
  const [from, to] = range;
  const row = pool.pageTable(slot);
  const first = pages.at(0);
  for (let i = from; i + pages.count <= to; i++) if (row[i] === first && pages.equalsRow(row, i, i + pages.count)) return OK;
  return refused(`P's write for ${name} lands in ${pageWords(tableOf(pool, slot).slice(from, to))}; the log says ${pages.words()}, which is not a run of them`);
}

/**
 * A `sourceFree` line (the table's `abortSource`): P released the request's source pages (`release_kv_cache` in
 * `process_disagg_prefill_inflight_queue`, `disaggregation/prefill.py`, on `KVPoll.Success`
 * or `KVPoll.Failed`). Once the write has landed (or P gave it up) that changes nothing.
 * Before: with fault `source-early-free` it is the spec's `abortSource` (P aborted, and a
 * chunk already taken still reads the pages), and what is left of the write carries
 * another user's KV; without it P releases only after the transfer, so the write has
 * landed by now.
 */
export function sourceReleased(ctx: EventContext, s: Possible): StepResult {
  const h = ownPending(s, ctx.slot);
  if (h === undefined) return OK;
  if (s.pool.abortSource(ctx.slot)) {
    s.path?.push({ kind: 'abortSource', r: ctx.info.index });
    ctx.info.sourcesFreed = true;
    return OK;
  }
  return land(ctx, s, h) ? OK : refused(`P released ${ctx.info.id}'s source pages, so its write has landed, but it cannot land: ${phaseWords(s.pool, ctx.slot, ctx.info.id)}`);
}

/**
 * A `posted` line's `sources` (validate.ts keeps them as the request's source pages): any
 * of them that P freed early for another request whose write is still outstanding is
 * reused now, so what is left of that write carries this request's KV (and a leak names it).
 */
function reusedSources(ctx: EventContext, s: Possible): void {
  const named = ctx.sources;
  if (named === undefined) return;
  for (let slot = 0; slot < ctx.window.slots; slot++) {
    const other = ctx.window.info(slot);
    if (slot === ctx.slot || other?.sourcesFreed !== true || ownPending(s, slot) === undefined) continue;
    // A posted line before its own allocation (clock skew) has no serial yet: its reuse is not named.
    if (ctx.info.serial > 0 && other.sources?.some((p) => named.includes(p)) === true) s.pool.reuseSource(slot, ctx.info.serial);
  }
}

/**
 * An `abort` line: P gave up the request's transfer (its `kv_sender` aborted, which D sees
 * as `KVPoll.Failed`), so its write will never land: the hidden step is dropped, in this
 * state and for the allocation still to come.
 */
export function abortWrite(ctx: EventContext, s: Possible): StepResult {
  ctx.info.dropped = true;
  s.pending = s.pending.filter((h) => h.slot !== ctx.slot);
  settleDropped(ctx, s);
  return OK;
}

/** A timed-out request whose write P gave up is finished: the pool abandons it (impl/serving-pool.ts), and its slot goes to the next request. */
export function settleDropped(ctx: EventContext, s: Possible): void {
  if (ctx.info.dropped && ownPending(s, ctx.slot) === undefined) s.pool.abandon(ctx.slot);
}
