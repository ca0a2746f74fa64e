/**
 * The search's storage besides the visited set. States are numbered in the order they are
 * found, which in a breadth-first search is also the order they are expanded, so one
 * number is a state's queue position and the key of its parent link. Both stores grow in
 * fixed chunks, never by copying, so that nothing is held twice and the memory figure is
 * what the search really needs.
 */
import { copyWords } from './words.ts';

/** Bytes per chunk of queued states. */
const QUEUE_CHUNK_BYTES = 1 << 20;

/**
 * The breadth-first queue: every state found and not yet expanded, in the order found,
 * as zero-padded words (see `words.ts`). Chunks wholly expanded go back to a pool and are
 * reused for new states.
 */
export class StateQueue {
  /** Words per state. */
  private readonly width: number;
  private readonly perChunk: number;
  private readonly chunks: (Int32Array | undefined)[] = [];
  private readonly pool: Int32Array[] = [];
  private firstLive = 0;
  /** The state being expanded: states before it are done. */
  private head = 0;
  /** Number of states ever pushed; the next state's number. */
  length = 0;
  /** The most states queued (found, not yet expanded) at once. */
  peakQueued = 0;

  constructor(stride: number) {
    this.width = stride >>> 2;
    this.perChunk = Math.max(1, Math.floor(QUEUE_CHUNK_BYTES / Math.max(4, stride)));
  }

  /** Appends a copy of the state in `src` as state number `length`. */
  push(src: Int32Array): void {
    const c = Math.floor(this.length / this.perChunk);
    let chunk = this.chunks[c];
    if (chunk === undefined) {
      chunk = this.pool.pop() ?? new Int32Array(this.perChunk * this.width);
      this.chunks[c] = chunk;
    }
    copyWords(src, 0, chunk, (this.length - c * this.perChunk) * this.width, this.width);
    this.length++;
    if (this.length - this.head > this.peakQueued) this.peakQueued = this.length - this.head;
  }

  /** Copies state number `i` into `out`; states before `i` are expanded and their chunks are recycled. */
  take(i: number, out: Int32Array): void {
    this.head = i;
    const c = Math.floor(i / this.perChunk);
    while (this.firstLive < c) {
      const done = this.chunks[this.firstLive];
      if (done !== undefined) {
        this.pool.push(done);
        this.chunks[this.firstLive] = undefined;
      }
      this.firstLive++;
    }
    const chunk = this.chunks[c];
    if (chunk === undefined) throw new Error(`state ${i} is not queued`);
    copyWords(chunk, (i - c * this.perChunk) * this.width, out, 0, this.width);
  }
}

/** Entries per chunk of parent links. */
const LINK_CHUNK = 1 << 18;

/** For every state but the first: the state it was found from and the action index that led there. */
export class ParentLinks {
  private readonly parents: Int32Array[] = [];
  private readonly actions: Uint8Array[] = [];

  /** Records that state `i` was found from `parent` by action number `action` (below 256). */
  set(i: number, parent: number, action: number): void {
    const c = i >>> 18;
    if (c === this.parents.length) {
      this.parents.push(new Int32Array(LINK_CHUNK));
      this.actions.push(new Uint8Array(LINK_CHUNK));
    }
    const o = i & (LINK_CHUNK - 1);
    this.parents[c]![o] = parent;
    this.actions[c]![o] = action;
  }

  /** The states numbered below this are initial states, with no parent. */
  roots = 1;

  /** The action indices that lead from state 0 to state `i`, in order. */
  pathTo(i: number): number[] {
    return this.pathFrom(i).path;
  }

  /** The initial state that state `i` was found from, and the action indices that lead from it to `i`. */
  pathFrom(i: number): { root: number; path: number[] } {
    const path: number[] = [];
    while (i >= this.roots) {
      const c = i >>> 18;
      const o = i & (LINK_CHUNK - 1);
      path.push(this.actions[c]![o]!);
      i = this.parents[c]![o]!;
    }
    return { root: i, path: path.reverse() };
  }

  /** Bytes per link: a 4-byte parent and a 1-byte action. */
  static readonly BYTES = 5;
}
