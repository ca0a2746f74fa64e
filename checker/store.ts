/**
 * The search's storage besides the visited set. States are numbered in the order they are
 * found, which in a breadth-first search is also the order they are expanded, so one
 * number is a state's queue position and the key of its parent link. Both stores grow in
 * fixed chunks, never by copying, so that nothing is held twice and the memory figure is
 * what the search really needs.
 *
 * Past a memory budget (`spill.ts`) both go to disk a chunk at a time: the queue's newest
 * full chunk, which is the last of those in memory to be expanded, and the parent links'
 * chunks after the first budget's worth. The queue reads a spilled chunk back whole when
 * its turn comes; a trace reads a spilled link (five bytes) where it is. The numbering,
 * and so every count, depth and trace, is the same either way.
 */
import { SPILL_DEFAULTS, SpillFile, type SpillSettings } from './spill.ts';
import { copyWords } from './words.ts';

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
  /** Where a spilled chunk is in the file, in chunks; -1 when it is in memory (or done). */
  private readonly slotOf: number[] = [];
  /** File slots whose chunk was read back, free for the next spill (so the file is only as long as the most chunks out at once). */
  private readonly freeSlots: number[] = [];
  private slots = 0;
  private readonly pool: Int32Array[] = [];
  private readonly file: SpillFile;
  /** Chunk arrays allocated, in memory or pooled, and the most at once. */
  private allocated = 0;
  private peakAllocated = 0;
  private readonly budgetChunks: number;
  private firstLive = 0;
  /** The state being expanded: states before it are done. */
  private head = 0;
  /** Number of states ever pushed; the next state's number. */
  length = 0;
  /** The most states queued (found, not yet expanded) at once. */
  peakQueued = 0;

  constructor(stride: number, spill: SpillSettings = SPILL_DEFAULTS) {
    this.width = stride >>> 2;
    this.perChunk = Math.max(1, Math.floor(spill.chunkBytes / Math.max(4, stride)));
    this.budgetChunks = Math.max(1, Math.floor(spill.memoryBytes / (4 * this.perChunk * this.width)));
    this.file = new SpillFile(spill.dir);
  }

  /** Appends a copy of the state in `src` as state number `length`. */
  push(src: Int32Array): void {
    const c = Math.floor(this.length / this.perChunk);
    let chunk = this.chunks[c];
    if (chunk === undefined) {
      if (c > 0 && this.allocated - this.pool.length >= this.budgetChunks) this.spill(c - 1);
      chunk = this.fresh();
      this.chunks[c] = chunk;
      this.slotOf[c] = -1;
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
    let chunk = this.chunks[c];
    if (chunk === undefined && (this.slotOf[c] ?? -1) >= 0) chunk = this.load(c);
    if (chunk === undefined) throw new Error(`state ${i} is not queued`);
    copyWords(chunk, (i - c * this.perChunk) * this.width, out, 0, this.width);
  }

  /** A chunk array: a pooled one, or a new one. */
  private fresh(): Int32Array {
    const pooled = this.pool.pop();
    if (pooled !== undefined) return pooled;
    this.allocated++;
    if (this.allocated > this.peakAllocated) this.peakAllocated = this.allocated;
    return new Int32Array(this.perChunk * this.width);
  }

  /** Writes full chunk `c` to the file (unless it is the one being expanded) and pools its array. */
  private spill(c: number): void {
    const chunk = this.chunks[c];
    if (chunk === undefined || c <= Math.floor(this.head / this.perChunk)) return;
    const slot = this.freeSlots.pop() ?? this.slots++;
    this.file.write(chunk, slot * chunk.byteLength);
    this.slotOf[c] = slot;
    this.chunks[c] = undefined;
    this.pool.push(chunk);
  }

  /** Reads spilled chunk `c` back into memory and frees its file slot. */
  private load(c: number): Int32Array {
    const chunk = this.fresh();
    const slot = this.slotOf[c]!;
    this.file.read(chunk, slot * chunk.byteLength);
    this.freeSlots.push(slot);
    this.slotOf[c] = -1;
    this.chunks[c] = chunk;
    return chunk;
  }

  /** The most bytes of chunks held in memory at once. */
  get peakBytes(): number {
    return this.peakAllocated * 4 * this.perChunk * this.width;
  }

  /** Bytes written to disk. */
  get spilledBytes(): number {
    return this.file.bytesWritten;
  }

  /** Frees the file. */
  close(): void {
    this.file.close();
  }
}

/** Entries per chunk of parent links, as a power of two, for a queue chunk of `chunkBytes`: a chunk's parents take about as many bytes. */
const linkShiftOf = (chunkBytes: number): number => Math.max(4, Math.floor(Math.log2(Math.max(16, chunkBytes) / 4)));

/** For every state but the first: the state it was found from and the action index that led there. */
export class ParentLinks {
  private readonly parents: (Int32Array | undefined)[] = [];
  private readonly actions: (Uint8Array | undefined)[] = [];
  private readonly shift: number;
  private readonly mask: number;
  /** Chunks kept in memory; those after them go to the file once full. */
  private readonly budgetChunks: number;
  private readonly file: SpillFile;
  /** A spilled link's parent and action, as read back. */
  private readonly one = new Int32Array(1);
  private readonly oneAction = new Uint8Array(1);
  private inMemory = 0;

  constructor(spill: SpillSettings = SPILL_DEFAULTS) {
    this.shift = linkShiftOf(spill.chunkBytes);
    this.mask = (1 << this.shift) - 1;
    this.budgetChunks = Math.max(1, Math.floor(spill.memoryBytes / (ParentLinks.BYTES << this.shift)));
    this.file = new SpillFile(spill.dir);
  }

  /** Records that state `i` was found from `parent` by action number `action` (below 256); `i` counts up from the roots. */
  set(i: number, parent: number, action: number): void {
    const c = i >>> this.shift;
    if (this.parents[c] === undefined) this.begin(c);
    const o = i & this.mask;
    this.parents[c]![o] = parent;
    this.actions[c]![o] = action;
  }

  /** Starts chunk `c`, spilling the full chunk before it first when the memory budget is spent. */
  private begin(c: number): void {
    const full = c - 1;
    const p = this.parents[full];
    const a = this.actions[full];
    if (full >= this.budgetChunks && p !== undefined && a !== undefined && this.inMemory > this.budgetChunks) {
      const base = full * (ParentLinks.BYTES << this.shift);
      this.file.write(p, base);
      this.file.write(a, base + p.byteLength);
      this.parents[full] = undefined;
      this.actions[full] = undefined;
      // Reused: the chunk just written is no longer read from memory.
      this.parents[c] = p;
      this.actions[c] = a;
      return;
    }
    this.parents[c] = new Int32Array(1 << this.shift);
    this.actions[c] = new Uint8Array(1 << this.shift);
    this.inMemory++;
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
      const c = i >>> this.shift;
      const o = i & this.mask;
      const p = this.parents[c];
      if (p !== undefined) {
        path.push(this.actions[c]![o]!);
        i = p[o]!;
        continue;
      }
      const base = c * (ParentLinks.BYTES << this.shift);
      this.file.read(this.oneAction, base + (4 << this.shift) + o);
      this.file.read(this.one, base + 4 * o);
      path.push(this.oneAction[0]!);
      i = this.one[0]!;
    }
    return { root: i, path: path.reverse() };
  }

  /** Bytes of links held in memory. */
  get memoryBytes(): number {
    return this.inMemory * (ParentLinks.BYTES << this.shift);
  }

  /** Bytes written to disk. */
  get spilledBytes(): number {
    return this.file.bytesWritten;
  }

  /** Frees the file. */
  close(): void {
    this.file.close();
  }

  /** Bytes per link: a 4-byte parent and a 1-byte action. */
  static readonly BYTES = 5;
}
