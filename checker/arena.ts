/**
 * Where the parallel search keeps its states and parent links: in chunks of shared
 * memory that the thread that writes them owns and every thread may read. A thread
 * appends a level's successors to its own arena (two arenas per thread, one for even
 * and one for odd levels: the level being written never overwrites the level being
 * read), and the next level reads them in place, wherever they are: a level's states are
 * a list of segments (thread, start, count), nothing is copied between threads, and
 * nothing is sent but the chunks' handles.
 */

/** States per chunk of an arena (about a megabyte at 136 bytes a state). */
export const ARENA_CHUNK = 8192;
/** Links per chunk of a link arena. */
export const LINK_CHUNK = 1 << 16;

/** One chunk's views: the states' words, then the parent, action and flag of each. */
export interface ChunkViews {
  /** `width` words per state: its own, and, fingerprint first (`level-hashed.ts`), its fingerprint in the last two. */
  readonly words: Int32Array;
  /** The parent's index in its level. */
  readonly parents: Int32Array;
  /** The action from the parent. */
  readonly actions: Uint8Array;
  /** 1 where the state may settle a property still open at the start of its level (the keep step evaluates it again), else 0. */
  readonly flags: Uint8Array;
}

/** The views of an arena chunk of states of `width` words. */
export function chunkViews(buffer: SharedArrayBuffer, width: number): ChunkViews {
  const wordBytes = 4 * width * ARENA_CHUNK;
  return {
    words: new Int32Array(buffer, 0, width * ARENA_CHUNK),
    parents: new Int32Array(buffer, wordBytes, ARENA_CHUNK),
    actions: new Uint8Array(buffer, wordBytes + 4 * ARENA_CHUNK, ARENA_CHUNK),
    flags: new Uint8Array(buffer, wordBytes + 5 * ARENA_CHUNK, ARENA_CHUNK),
  };
}

/** The bytes of one arena chunk. */
export function arenaChunkBytes(width: number): number {
  return (4 * width + 6) * ARENA_CHUNK;
}

/** A thread's arena for one parity of levels: positions `0 ..` over chunks allocated as needed and kept for reuse. */
export class StateArena {
  /** The chunks, for the other threads. */
  readonly chunks: SharedArrayBuffer[] = [];
  /** Their views. */
  readonly views: ChunkViews[] = [];

  constructor(private readonly width: number) {}

  /** The views of the chunk that holds position `at`, allocating it when it is the next one. */
  chunkFor(at: number): ChunkViews {
    const c = Math.floor(at / ARENA_CHUNK);
    while (this.views.length <= c) {
      const buffer = new SharedArrayBuffer(arenaChunkBytes(this.width));
      this.chunks.push(buffer);
      this.views.push(chunkViews(buffer, this.width));
    }
    return this.views[c]!;
  }
}

/** A thread's parent links, appended in the order its new states are kept; never reused. */
export class LinkArena {
  /** The chunks, for the main thread's traces. */
  readonly chunks: SharedArrayBuffer[] = [];
  private parents: Int32Array = new Int32Array(0);
  private actions: Uint8Array = new Uint8Array(0);
  /** Links written. */
  length = 0;

  /** Appends a link: the parent's number in the search and the action. */
  push(parent: number, action: number): void {
    const o = this.length & (LINK_CHUNK - 1);
    if (o === 0) {
      const buffer = new SharedArrayBuffer(5 * LINK_CHUNK);
      this.chunks.push(buffer);
      this.parents = new Int32Array(buffer, 0, LINK_CHUNK);
      this.actions = new Uint8Array(buffer, 4 * LINK_CHUNK, LINK_CHUNK);
    }
    this.parents[o] = parent;
    this.actions[o] = action;
    this.length++;
  }
}

/** Reads links out of a thread's link chunks. */
export class LinkReader {
  private readonly parents: Int32Array[] = [];
  private readonly actions: Uint8Array[] = [];

  /** Takes note of chunks this reader has not seen yet (a thread's list only grows). */
  update(chunks: readonly SharedArrayBuffer[]): void {
    for (let c = this.parents.length; c < chunks.length; c++) {
      this.parents.push(new Int32Array(chunks[c]!, 0, LINK_CHUNK));
      this.actions.push(new Uint8Array(chunks[c]!, 4 * LINK_CHUNK, LINK_CHUNK));
    }
  }

  /** The parent of link `i`. */
  parent(i: number): number {
    return this.parents[i >>> 16]![i & (LINK_CHUNK - 1)]!;
  }

  /** The action of link `i`. */
  action(i: number): number {
    return this.actions[i >>> 16]![i & (LINK_CHUNK - 1)]!;
  }
}

/** A level's states as the threads left them: per segment (thread, start in its arena, count), in the level's order; the candidates that lost are left out, not moved over. */
export interface Frontier {
  /** Three int32 per segment. */
  readonly segments: Int32Array;
  /** Per thread, the chunks of its arena that holds this level. */
  readonly chunks: readonly (readonly SharedArrayBuffer[])[];
}

/** Copies states of a {@link Frontier} by their index in the level, fastest when asked in ascending runs. */
export class FrontierReader {
  private readonly views: (ChunkViews | undefined)[][];
  /** The level index each segment starts at. */
  private readonly starts: number[] = [];
  private segment = 0;
  /** The level indices `lo .. hi` last read lie in one chunk, `words`, level index `p` at word `(p - lo) * width + base`. */
  private lo = 0;
  private hi = 0;
  private base = 0;
  private words: Int32Array = new Int32Array(0);

  constructor(
    private readonly frontier: Frontier,
    private readonly width: number,
  ) {
    this.views = frontier.chunks.map(() => []);
    let at = 0;
    for (let s = 0; 3 * s < frontier.segments.length; s++) {
      this.starts.push(at);
      at += frontier.segments[3 * s + 2]!;
    }
    this.starts.push(at);
  }

  /** Copies the words of state `p` of the level into `out`. */
  copy(p: number, out: Int32Array): void {
    // Most reads are in the run of the last one: one comparison, then the copy.
    if (p < this.lo || p >= this.hi) this.seek(p);
    const width = this.width;
    const words = this.words;
    const from = (p - this.lo) * width + this.base;
    for (let k = 0; k < width; k++) out[k] = words[from + k]!;
  }

  /** Makes level index `p` part of the run read from: its segment, and the part of it in one chunk. */
  private seek(p: number): void {
    if (p < this.starts[this.segment]! || p >= this.starts[this.segment + 1]!) {
      // Mostly the next segment (a level is read in ascending runs); else a binary search.
      this.segment = p >= this.starts[this.segment + 1]! && p < (this.starts[this.segment + 2] ?? -1) ? this.segment + 1 : this.find(p);
    }
    const s = this.segment;
    const thread = this.frontier.segments[3 * s]!;
    const at = this.frontier.segments[3 * s + 1]! + p - this.starts[s]!;
    const c = Math.floor(at / ARENA_CHUNK);
    this.words = (this.views[thread]![c] ??= chunkViews(this.frontier.chunks[thread]![c]!, this.width)).words;
    // The run: from p to the end of its segment or of its chunk, whichever is first.
    this.lo = p;
    this.hi = Math.min(this.starts[s + 1]!, p + (c + 1) * ARENA_CHUNK - at);
    this.base = (at - c * ARENA_CHUNK) * this.width;
  }

  /** The segment that holds level index `p`. */
  private find(p: number): number {
    let lo = 0;
    let hi = this.starts.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
