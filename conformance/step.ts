/**
 * One logged event applied to one state the system may be in: the spec's action taken on
 * that state (through the pool), the log's page ids compared with the spec's, the
 * invariant that the step can break checked, and a hidden step of the request landed when
 * the event needs it. The result says whether the state accepts the event, and if not,
 * why, in words that name the request, its phase and the pages. Each group of event kinds
 * has its file: step-allocate.ts (pages taken), step-release.ts (pages given back, in
 * several calls), step-read.ts (what decode read), step-cache.ts (the prefix cache's
 * eviction), step-write.ts (P's posted parts and its abort).
 */
import type { ActionKind } from '../spec/index.ts';
import { tableOf, takeAction } from './pool.ts';
import { allocate, allocFail, resume } from './step-allocate.ts';
import { afterEvict, cachedCount, evictMore } from './step-cache.ts';
import { land, OK, ownPending, PHASE_NAMES, pageWords, phaseWords, refused, samePages, type EventContext, type Possible, type StepResult } from './step-context.ts';
import { insertedAtHandoff } from './radix.ts';
import { afterDecode, decodeAgain } from './step-read.ts';
import { afterCommit, slotFreed, stateAtDecode } from './step-slots.ts';
import { afterRelease, heldByOthers, openRelease, secondRelease } from './step-release.ts';
import { draftAtDecode, landLoad, loaded, loadPosted } from './step-tier.ts';
import { abortWrite, posted, settleDropped, sourceReleased } from './step-write.ts';
import type { EventRule } from './table.ts';

export { land, type EventContext, type Pending, type Possible, type StepResult } from './step-context.ts';

/** Takes the spec action `kind` through the pool, landing the request's own write first when the action needs it; whether it was enabled. */
function take(ctx: EventContext, s: Possible, kind: ActionKind): boolean {
  const { pool } = s;
  const { slot, info } = ctx;
  if (takeAction(pool, kind, slot, info.length, info.group, info.tokens)) return true;
  // The request's own write lands lazily: before its next event that needs it.
  const h = ownPending(s, slot);
  if (h !== undefined && !h.kinds.includes(kind) && land(ctx, s, h) && takeAction(pool, kind, slot, info.length, info.group, info.tokens)) return true;
  // Its load from host memory lands lazily too (config loadback): before the decode that waits for it.
  return kind === 'decode' && landLoad(s, slot, info.index) && takeAction(pool, kind, slot, info.length, info.group, info.tokens);
}

/** After an accepted action: the logged pages against the table, for the kinds whose line names pages. */
function pagesAfter(ctx: EventContext, s: Possible, kind: ActionKind): StepResult {
  const { pool } = s;
  const { slot, pages } = ctx;
  if (pages === undefined) return OK;
  const length = pool.lengths[slot] ?? 0;
  const [from, to] = kind === 'insert' ? [0, pool.sharedCount(slot)] : kind === 'grow' ? [length - 1, length] : [0, length];
  if (samePages(pool, slot, pages, from, to)) return OK;
  return refused(`${kind}(${ctx.info.id}) is about pages ${pageWords(tableOf(pool, slot).slice(from, to))}; the log says ${pages.words()}`);
}

/** Applies a spec action that the log recorded. */
function action(ctx: EventContext, s: Possible, rule: Extract<EventRule, { role: 'action' }>): StepResult {
  const kind = rule.action;
  if (kind === 'allocate') return allocate(ctx, s);
  // P's release of its source pages is `abortSource` only while the write is outstanding (step-write.ts).
  if (kind === 'abortSource') return sourceReleased(ctx, s);
  if (kind === 'loadBack') return loaded(ctx, s);
  if (kind === 'allocFail') return allocFail(ctx, s);
  const { pool } = s;
  const { slot } = ctx;
  const name = ctx.info.id;
  const stale = kind === 'free' ? heldByOthers(pool, slot) : [];
  // The shared pages a release keeps, read before it: a radix release unlocks, and a retraction forgets its match (radix.ts).
  const shared = rule.releases === true ? pool.sharedCount(slot) : 0;
  // Who held them, read before the release: afterwards they are free.
  const staleHolders = stale.map((p) => pool.holder[p] ?? 0);
  // What the cache holds of the logged pages before an eviction: they must be what it frees.
  const cachedBefore = kind === 'evict' ? cachedCount(pool) : 0;
  const loggedCached = kind === 'evict' && ctx.pages !== undefined ? ctx.pages.filter(0, 16, (p) => (pool.holder[p] ?? 0) < 0).length : 0;
  const accepted = kind === 'resume' ? resume(ctx, s) : take(ctx, s, kind) ? OK : refused(`${kind}(${name}) is not enabled: ${phaseWords(pool, slot, name)}${secondRelease(ctx, pool, kind)}`);
  if (accepted.kind !== 'ok') return accepted;
  s.path?.push({ kind, r: ctx.info.index });
  if (kind === 'evict') evictMore(ctx, s, cachedBefore);
  const consumed = ownPending(s, slot);
  if (consumed !== undefined && consumed.kinds.includes(kind)) s.pending = s.pending.filter((x) => x !== consumed);
  settleDropped(ctx, s);
  const phase = PHASE_NAMES[pool.phase(slot)] ?? '?';
  if (rule.outcomes !== undefined && !rule.outcomes.includes(phase as never)) return refused(`the spec's ${kind}(${name}) leaves it ${phase}; the log says it ended ${rule.outcomes.join(' or ')}`);
  if (kind === 'evict') return afterEvict(ctx, pool, cachedBefore, loggedCached);
  if (rule.releases === true) {
    const opened = openRelease(ctx, pool, kind, shared);
    return opened.kind !== 'ok' ? opened : afterRelease(ctx, pool, kind, stale, staleHolders);
  }
  const named = kind === 'resume' ? OK : pagesAfter(ctx, s, kind);
  if (named.kind !== 'ok') return named;
  if (kind === 'handoff') return afterCommit(ctx, pool);
  if (kind !== 'decode') return named;
  return readsAtDecode(ctx, pool, phase);
}

/** What a decode read: its pages (step-read.ts), their draft KV (step-tier.ts), its state slot (step-slots.ts); an `Isolation` breach before an `Integrity` one. */
function readsAtDecode(ctx: EventContext, pool: Possible['pool'], phase: string): StepResult {
  const read = afterDecode(ctx, pool);
  if (phase !== 'decoded' || (read.kind === 'violation' && read.invariant !== 'Integrity')) return read;
  const draft = draftAtDecode(ctx, pool);
  if (draft.kind === 'violation' && (read.kind === 'ok' || draft.invariant === 'Isolation')) return draft;
  return read.kind !== 'ok' ? read : stateAtDecode(ctx, pool);
}

/** An observation: the state checked, nothing changed (a `posted` line's reused sources aside). */
function observe(ctx: EventContext, s: Possible, needs: Extract<EventRule, { role: 'observe' }>['needs']): StepResult {
  if (needs === 'decoded') return decodeAgain(ctx, s.pool);
  if (needs === 'inserted') return insertedAtHandoff(ctx, s.pool);
  if (needs === 'state-released') return slotFreed(ctx, s.pool);
  return needs === 'load-posted' ? loadPosted(ctx, s) : posted(ctx, s);
}

/** Applies the event to one state, in place. */
export function applyEvent(ctx: EventContext, s: Possible): StepResult {
  const { rule, slot } = ctx;
  switch (rule.role) {
    case 'action': {
      const r = action(ctx, s, rule);
      // P's write may land any time after D's allocation, unless P has already given it up.
      if (r.kind !== 'refused' && rule.opens !== undefined && !ctx.info.dropped) s.pending.push({ slot, kinds: rule.opens });
      return r;
    }
    case 'close':
      // Every hidden step of the request lands by now (one for an atomic write; one per part of a torn one).
      for (let h = ownPending(s, slot); h !== undefined; h = ownPending(s, slot)) {
        if (!land(ctx, s, h)) return refused(`P's write for ${ctx.info.id} cannot land: ${phaseWords(s.pool, slot, ctx.info.id)}`);
      }
      return OK;
    case 'drop':
      return abortWrite(ctx, s);
    case 'observe':
      return observe(ctx, s, rule.needs);
    case 'unmodelled':
      return refused(rule.why);
    case 'config':
    case 'arrival':
      return OK;
  }
}
