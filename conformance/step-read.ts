/**
 * What a decode read, checked: another request's data (`Isolation`, with whose data in
 * which pages), a page the request did not hold (`ReadsOwnPages`), and with `--integrity`
 * content not written for it at that position (`Integrity`); and a later decode step,
 * which must read the same table again.
 */
import { STALE_DATA } from '../impl/index.ts';
import { Ph, READ_UNHELD } from '../spec/index.ts';
import { tableOf, type LogPool } from './pool.ts';
import { OK, pageWords, phaseWords, refused, samePages, type EventContext, type StepResult } from './step-context.ts';
import { stateAtDecode } from './step-slots.ts';
import { loadedStale } from './step-tier.ts';

// Read once: a namespace re-export is a getter call on every access.
const DECODED = Ph.decoded;

/** A later decode step (`step` > 0): the request has decoded, and reads the same table (grown pages included) and its state slot again. */
export function decodeAgain(ctx: EventContext, pool: LogPool): StepResult {
  const { slot, pages } = ctx;
  const name = ctx.info.id;
  if (pool.phase(slot) !== DECODED) return refused(`a later decode step of ${name} needs it decoded, but ${phaseWords(pool, slot, name)}`);
  const length = pool.lengths[slot] ?? 0;
  if (pages !== undefined && !samePages(pool, slot, pages, 0, length)) return refused(`${name}'s page table is ${pageWords(tableOf(pool, slot))}; the log says it read ${pages.words()}`);
  return stateAtDecode(ctx, pool);
}

/** What decode read that breaks an invariant, or nothing. */
export function afterDecode(ctx: EventContext, pool: LogPool): StepResult {
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
    // Another user's KV that no logged request wrote: P's source pages reused before the write landed (config sourcePages).
    if (writers.length === 0) headline.push(staleWords(ctx, pool));
    return { kind: 'violation', invariant: 'Isolation', headline, involved: writers.map(([d]) => d), pages: writers.flatMap(([, ps]) => ps.slice(0, 2)) };
  }
  if (((pool.flags[slot] ?? 0) & READ_UNHELD) !== 0) {
    return { kind: 'violation', invariant: 'ReadsOwnPages', headline: [`${name} read a page it did not hold.`], involved: [] };
  }
  if (ctx.integrity && pool.garbageReads(slot) > 0) return integrityBreach(ctx, pool);
  return OK;
}

/** The pages of the request's table that hold another user's KV, which no logged request wrote (P's stale data), in words. */
function staleWords(ctx: EventContext, pool: LogPool): string {
  const row = pool.pageTable(ctx.slot);
  const stale: number[] = [];
  for (let i = 0; i < (pool.lengths[ctx.slot] ?? 0); i++) if ((pool.data[row[i] ?? 0] ?? 0) === STALE_DATA) stale.push(row[i] ?? 0);
  const why = loadedStale(pool, ctx.slot, ctx.info.group) ? 'the host copy of its prefix, evicted and reused while its load read it' : "P's source pages, reused before the write landed";
  return `${ctx.info.id} read ${stale.length === 1 ? 'page' : 'pages'} ${pageWords(stale).slice(1, -1)}, which ${stale.length === 1 ? 'holds' : 'hold'} another user's KV (${why}).`;
}

/**
 * The positions where the slot's decode read no other request's data but not content
 * written for it there either: a page never written, or its own content written for
 * another position. "Would have answered garbage"; nothing leaked.
 */
function integrityBreach(ctx: EventContext, pool: LogPool): StepResult {
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
