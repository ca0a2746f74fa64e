/**
 * The second half of a parallel level (`parallel.ts` runs it): the keep step (`level.ts`),
 * then the level numbered by prefix sums over its blocks and cut by the one-worker
 * search's stopping rules (`level-outcome.ts`), the monitor told what that search would
 * have seen, and the kept states made the next frontier.
 */
import { cutLevel, frontierSegments, keptBefore, numberBlocks, orderBlocks, type Block, type Cut } from './level-outcome.ts';
import type { KeepReply, KeepRequest } from './level-protocol.ts';
import { STOP_GROUP } from './options.ts';
import type { Expanded } from './parallel-expand.ts';
import type { ParallelSearch } from './parallel-search.ts';

/** A level after its keep step, numbered as the one-worker search numbers it. */
interface Kept {
  /** Each team member's reply, in the team's order. */
  readonly replies: KeepReply[];
  /** The level's blocks in order, with their positions in the level. */
  readonly merged: { blocks: Block[]; total: number };
  /** Where property `f` (invariants, then per witness held and failed) first failed (or held) in the level, by the level's numbering; infinity if nowhere. */
  readonly firstAt: (f: number) => number;
  /** Per thread, the chunks of the arena the level's successors went to: the next frontier's. */
  readonly chunks: SharedArrayBuffer[][];
}

/** The keep step of the level `e` expanded, settled: the states kept are stored, the properties and the stopping rules applied, the next frontier set. */
export async function settleLevel<A>(s: ParallelSearch<A>, e: Expanded): Promise<void> {
  const k = await keepLevel(s, e);
  const failAt = s.invariants.map((_, i) => k.firstAt(i));
  const firstDeadlock = e.replies.reduce((d, r) => (r.deadlock >= 0 && (d < 0 || r.deadlock < d) ? r.deadlock : d), -1);
  const deadlockAt =
    s.deadlockSeen || firstDeadlock < 0
      ? Number.POSITIVE_INFINITY
      : keptBefore(k.merged.blocks, STOP_GROUP * Math.floor(firstDeadlock / STOP_GROUP), s.levelBase, (thread, link) => s.links.reader(thread).parent(link));
  const cut = cutLevel(k.merged.total, deadlockAt, s.settings.maxStates - s.stored, Math.min(...failAt), s.settings.continueAfterViolation);
  observe(s, e.level, k, failAt, cut);
  if (cut.deadlock) {
    s.deadlocks.push({ state: s.levelBase + firstDeadlock, depth: s.depth });
    s.deadlockSeen = true;
  }
  s.incomplete = cut.incomplete;
  s.stop = cut.stop;
  for (const b of k.merged.blocks) if (b.kept > 0) s.links.add(s.stored + b.position, b.keeper, b.firstLink);
  s.stored += cut.stored;
  if (cut.stored > 0) s.deepest = e.level;
  s.options.onProgress?.({ states: s.stored, queue: cut.stored, depth: s.deepest });
  advance(s, e, k);
}

/** The keep step by the team, and the level's blocks ordered and numbered. */
async function keepLevel<A>(s: ParallelSearch<A>, e: Expanded): Promise<Kept> {
  const { team, replies: expanded } = e;
  // Copied before the keep step, as the next frontier's chunks.
  const chunks: SharedArrayBuffer[][] = [];
  team.forEach((t, k) => (chunks[t.id] = [...expanded[k]!.chunks]));
  for (let id = 0; id <= s.workers.length; id++) chunks[id] ??= [];
  const ordered = orderBlocks(team.map((t, k) => ({ thread: t.id, blocks: expanded[k]!.blocks })));
  const keepRequest: KeepRequest = { losers: s.losers, levelBase: s.levelBase, open: e.open };
  const replies = await Promise.all(team.map((t) => t.keep(keepRequest)));
  team.forEach((t, k) => s.links.reader(t.id, replies[k]!.links));
  const merged = numberBlocks(ordered, team.map((t, k) => ({ thread: t.id, kept: replies[k]!.kept })));
  const firstAt = (f: number): number => {
    let best = Number.POSITIVE_INFINITY;
    for (const r of replies) {
      const b = r.firsts[2 * f]!;
      if (b >= 0) best = Math.min(best, merged.blocks[b]!.position + r.firsts[2 * f + 1]!);
    }
    return best;
  };
  return { replies, merged, firstAt, chunks };
}

/** The monitor learns what the one-worker search would have seen in the states it stores. */
function observe<A>(s: ParallelSearch<A>, level: number, k: Kept, failAt: readonly number[], cut: Cut): void {
  const { invariants, monitor, stored } = s;
  const failures = failAt.flatMap((at, i) => (at < cut.stored ? [{ at, i }] : [])).sort((x, y) => x.at - y.at || x.i - y.i);
  for (const { at, i } of failures) monitor.failedAt(invariants[i]!.name, stored + at, level);
  s.witnesses.forEach((w, i) => {
    const held = k.firstAt(invariants.length + 2 * i);
    const failed = k.firstAt(invariants.length + 2 * i + 1);
    if (held < cut.stored) {
      monitor.observed(w.name, true, stored + held);
      s.reached[i] = true;
    }
    if (failed < cut.stored) {
      monitor.observed(w.name, false, stored + failed);
      s.falsified[i] = true;
    }
  });
}

/** The level's kept states become the frontier, in the arenas the threads wrote them to. */
function advance<A>(s: ParallelSearch<A>, e: Expanded, k: Kept): void {
  const { team, replies: expanded, parity } = e;
  team.forEach((t, i) => {
    (s.arenaChunks[t.id] ??= [0, 0])[parity] = expanded[i]!.chunks.length;
  });
  s.peakArenas = Math.max(s.peakArenas, s.arenaChunks.reduce((n, c) => n + (c[0] ?? 0) + (c[1] ?? 0), 0));
  s.frontier = { segments: frontierSegments(k.merged.blocks, k.replies), chunks: k.chunks };
  s.levelBase += s.frontierCount;
  s.frontierCount = k.merged.total;
  s.depth = e.level;
}
