/**
 * The first half of a parallel level (`parallel.ts` runs it): start the threads and choose
 * the team, grow the table ahead, and the expand step (`level.ts`), resumed whenever the
 * threads stopped for the table to grow.
 */
import { CLAIMS, NEXT_BLOCK, type ExpandReply, type ExpandRequest, type OpenProperties } from './level-protocol.ts';
import type { ModelProperty } from './model.ts';
import { PropertyMonitor } from './monitor.ts';
import { DEFAULTS } from './options.ts';
import { GROW_AT, PAUSE_AT, START_AHEAD } from './parallel-options.ts';
import type { ParallelSearch } from './parallel-search.ts';
import { WorkerHandle, type Thread } from './parallel-threads.ts';
import { grownTable, rehashBounds, slotsOf } from './shared-table.ts';

/** A level after its expand step. */
export interface Expanded {
  /** The threads that expand and keep it; the main thread last. */
  readonly team: readonly Thread[];
  /** The successors' depth. */
  readonly level: number;
  /** Which of each thread's two arenas the successors went to. */
  readonly parity: number;
  /** The properties still open at the start of the level. */
  readonly open: OpenProperties;
  /** Each team member's reply, in the team's order. */
  readonly replies: ExpandReply[];
}

/** States per block: about 16 blocks per thread, so that a thread with cheaper states takes more; a multiple of 32. */
function blockSize(count: number, threads: number): number {
  const cap = threads === 1 ? 256 : 2048;
  return Math.min(cap, Math.max(32, Math.ceil(count / (16 * threads) / 32) * 32));
}

/** A table with room for `needed` entries at load {@link GROW_AT}: `table` itself, or a larger copy rehashed by `team`, each thread a share. */
async function withRoom(table: Int32Array, needed: number, team: readonly Thread[]): Promise<Int32Array> {
  const old = slotsOf(table);
  let slots = old;
  while (needed > GROW_AT * slots) slots *= 2;
  if (slots === old) return table;
  const threads = team.length === 1 || old < 1 << 16 ? [team[0]!] : team;
  const bounds = rehashBounds(table, threads.length);
  const into = grownTable(table, slots);
  const last = threads.length - 1;
  // The last thread takes the short wrap-around range after its own.
  const wrap = (): Promise<unknown> => threads[last]!.rehash(table, into, bounds[last + 1]!, bounds[last + 2]!);
  await Promise.all(threads.map((t, k) => t.rehash(table, into, bounds[k]!, bounds[k + 1]!).then(() => (k === last ? wrap() : undefined))));
  return into;
}

/** The threads of the next level: the workers (started here once levels are large enough) if it goes to them, and the main thread, last. */
export async function teamOf<A>(s: ParallelSearch<A>): Promise<readonly Thread[]> {
  const { options, workers, parallelFrom, frontierCount } = s;
  if (options.workers > 1 && frontierCount >= parallelFrom / START_AHEAD) {
    while (workers.length < options.workers - 1) workers.push(new WorkerHandle(workers.length + 1, { factory: s.factory, options: s.taskOptions }));
  }
  // A worker's 'ready' is a message: the main thread, working alone, sees it only when it lets the event loop run.
  if (workers.some((w) => !w.isReady)) await new Promise<void>((resolve) => setImmediate(resolve));
  // Workers still starting leave the level to the main thread, unless it is much larger: then waiting for them pays.
  const parallel = options.workers > 1 && frontierCount >= parallelFrom && (frontierCount >= 4 * parallelFrom || workers.every((w) => w.isReady));
  if (parallel) for (const w of workers) await w.ready;
  // The main thread is one of the team, last: the workers have their requests before it starts its own share.
  return parallel ? [...workers, s.local] : [s.local];
}

/** The expand step of the next level by `team`: every successor of the frontier inserted, the candidates in the threads' arenas. */
export async function expandLevel<A>(s: ParallelSearch<A>, team: readonly Thread[]): Promise<Expanded> {
  const { frontierCount, actions, control } = s;
  const block = blockSize(frontierCount, team.length);
  const blocks = Math.ceil(frontierCount / block);
  const lossWords = Math.ceil((frontierCount * actions) / 32);
  // Written before any thread reads it: a page read first is mapped to the zero page, and its first write faults again and interrupts the other core (shared-table.ts).
  // At least doubled: levels grow a little at a time, and each new bitmap is memory committed and written over again.
  if (s.losers.length < lossWords) s.losers = new Int32Array(new SharedArrayBuffer(4 * Math.max(lossWords, 2 * s.losers.length))).fill(0);
  const margin = team.length * block * actions;
  if (s.options.growAhead ?? DEFAULTS.growAhead) s.table = await withRoom(s.table, s.found + Math.ceil(frontierCount * s.branching * 1.25) + margin, team);
  control[NEXT_BLOCK] = 0;
  control[CLAIMS] = 0;
  const level = s.depth + 1;
  const parity = level & 1;
  const open: OpenProperties = {
    invariants: maskOpen(s.invariants, s.monitor),
    held: maskOf(s.witnesses.map((w, k) => w.applies !== false && !s.reached[k])),
    failed: maskOf(s.witnesses.map((w, k) => w.applies !== false && !s.falsified[k])),
  };
  let replies: ExpandReply[];
  for (let resume = false; ; resume = true) {
    const room = Math.floor(PAUSE_AT * slotsOf(s.table)) - s.found - margin;
    const request: ExpandRequest = { table: s.table, losers: s.losers, control, frontier: s.frontier, count: frontierCount, block, tag: level + 1, parity, room, resume, open };
    replies = await Promise.all(team.map((t) => t.expand(request)));
    if (Atomics.load(control, NEXT_BLOCK) >= blocks) break;
    // A thread stopped for the table to fill no further: grow it and go on where the threads left off.
    s.table = await withRoom(s.table, s.found + Atomics.load(control, CLAIMS) + 2 * margin, team);
  }
  const claims = Atomics.load(control, CLAIMS);
  s.found += claims;
  s.branching = Math.max(claims / frontierCount, 0.5);
  return { team, level, parity, open, replies };
}

/** Bit `k` set where `bits[k]`. */
function maskOf(bits: readonly boolean[]): number {
  return bits.reduce((m, b, k) => (b ? m | (1 << k) : m), 0);
}

/** Bit `k` set where property `k` is still open in the monitor. */
function maskOpen(properties: readonly ModelProperty[], monitor: PropertyMonitor): number {
  let bits = 0;
  for (let k = 0; k < properties.length; k++) if (monitor.isOpen(properties[k]!.name)) bits |= 1 << k;
  return bits;
}
