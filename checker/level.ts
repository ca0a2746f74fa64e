/**
 * One thread's part of a level of the parallel search (a worker's, or the main thread's
 * for a small level), in two steps with a barrier between them (see `parallel.ts`; the
 * messages are in `level-protocol.ts`).
 *
 * Expand: threads take blocks of the level from a shared counter, so that a thread that
 * meets cheaper work takes more of it. They generate the successors of a block's states
 * a few parents at a time, fingerprint them, touch their table slots together (the
 * misses overlap, as in `bfs.ts`), and insert each into the shared table with its key,
 * its one-worker position (`shared-table.ts`); the batch's inserts come first and its
 * candidates are written after, since a claim's compare-and-swap waits for every store
 * still in flight. A successor that may be the first of a new state is appended,
 * with its parent and action, to this thread's arena, and flagged where it may settle a
 * property still open (evaluated there, while it is in cache); one that displaces an
 * earlier candidate marks that one's key in a shared bitmap of losers. When the model
 * gives its successors fingerprint first and no canonicaliser is in effect
 * (`level-hashed.ts`, as `expansion-prints.ts` for one thread), a successor is only its
 * fingerprint until the insert: only a candidate is written, from its parent, with its
 * fingerprint beside it in the arena, and a quiet one is not asked the conjunction.
 *
 * Keep: once every thread has expanded, the bitmap is final. Each thread keeps the
 * blocks it expanded, whose candidates are in its own arena. A block's
 * candidates are walked in order by their parent and action alone: losers left
 * out, the rest linked, and the flagged ones evaluated again in order. No state is
 * copied: the kept ones are read where they are, as runs between the losers. What a
 * thread returns is a few numbers per block: the main thread numbers the new states by
 * prefix sums.
 */
import { ARENA_CHUNK, FrontierReader, LinkArena, StateArena, type ChunkViews } from './arena.ts';
import { fingerprint } from './fingerprints.ts';
import { arenaWords, HashedParents } from './level-hashed.ts';
import { CLAIMS, EXPANDED_FIELDS, NEXT_BLOCK, type ExpandReply, type ExpandRequest, type KeepReply, type KeepRequest, type OpenProperties } from './level-protocol.ts';
import { successorsOf, type Checkable, type Conjunction, type FingerprintSink, type ModelProperty, type Reducer, type Reduction, type SuccessorSink } from './model.ts';
import { batchStates, canonicalizerOf, endTestOf, fingerprintFirstOf } from './options.ts';
import { ScratchState } from './scratch.ts';
import { CLAIMED, homeWord, insertFirst, LOST, OLD, oldAtHome, rehashRange } from './shared-table.ts';
import { WordViews } from './word-views.ts';
import { strideOf, wordState, type WordState } from './words.ts';
import { tableKey } from './zobrist.ts';

/** The search's options that change what a thread does (`options.ts` filled in their defaults). */
export interface LevelOptions {
  readonly symmetry: boolean;
  readonly deadlock: boolean;
  readonly fingerprintFirst: boolean;
  /** Partial-order reduction, where the model offers it. */
  readonly por: boolean;
  /** The invariants checked, by name. */
  readonly invariants: readonly string[];
}

/** A thread's part of every level, and its arenas. */
export class LevelTask<A> {
  private readonly size: number;
  private readonly width: number;
  /** Int32 words per state in the arenas: `width`, and two for its fingerprint on the fingerprint-first path. */
  readonly stride: number;
  private readonly expandState: (s: Uint8Array, sink: SuccessorSink) => void;
  private readonly isEnd: ((s: Uint8Array) => boolean) | undefined;
  private readonly invariants: readonly ModelProperty[];
  /** Bit `k`: the model's conjunction stands for invariant `k`. */
  private readonly covered: number;
  private readonly conjunction: Conjunction | undefined;
  private readonly witnesses: readonly ModelProperty[];
  private readonly actionCount: number;
  /** Successor states of one batch of parents: words (one spare slot), fingerprints, parents, actions. */
  private readonly batchWords: Int32Array<ArrayBuffer>;
  /** Per batch slot, its bytes and words: a model that slices once writes a successor straight into the next slot. */
  private readonly slotBytes: Uint8Array<ArrayBuffer>[] = [];
  private readonly slotWords: Int32Array<ArrayBuffer>[] = [];
  private readonly batchHashes: Int32Array;
  private readonly batchParents: Int32Array;
  private readonly batchActions: Uint8Array;
  /** Fingerprint first (`level-hashed.ts`): each successor's raw second half (`batchHashes` has the table's), and whether it is quiet. */
  private readonly batchRaw: Int32Array;
  private readonly batchQuiet: Uint8Array;
  /** The batch's successors that may be the first of a new state, by index in the batch. */
  private readonly batchCandidates: Int32Array;
  private batchCount = 0;
  /** The batch's parents on the fingerprint-first path, else undefined. */
  private readonly hashedParents: HashedParents | undefined;
  private readonly hashSink: FingerprintSink;
  /** Parents per batch. */
  private readonly perBatch: number;
  /** Keeps the state's bytes of its last word, clears the padding: a model's buffer may hold anything past its state. */
  private readonly lastMask: number;
  /** The parent being expanded, for the sink. */
  private current = 0;
  private readonly sinkInto: SuccessorSink;
  /** The parent being expanded: a scratch state whose `slice()` targets the batch, when the model slices once. */
  private readonly parent: WordState;
  private readonly parentScratch: ScratchState | undefined;
  private readonly scratch: WordState;
  /** This thread's two arenas, for even and odd levels. */
  readonly arenas: readonly [StateArena, StateArena];
  /** This thread's parent links. */
  readonly links = new LinkArena();
  /** The blocks this thread expanded in the level, four int32 each (see `EXPANDED_FIELDS`), in ascending order. */
  private blocks: number[] = [];
  /** Parents per block in the level: block `b` starts at parent `b * block`, so its index is its first parent over this. */
  private block = 1;
  private written = 0;
  private deadlock = -1;
  private out: StateArena;
  /** The properties open at the start of the level being expanded. */
  private open: OpenProperties = { invariants: 0, held: 0, failed: 0 };
  /** The model's partial-order reduction when asked for, the level's reducer, and a reducer's ample set as offsets. */
  private readonly reduction: Reduction | undefined;
  private reducer: Reducer | undefined;
  private readonly ample: Int32Array;
  /** The model's property names, in its order: what a reducer's open flags are indexed by. */
  private readonly propertyNames: readonly string[];
  /** Kept so that the touching loads are not optimized away. */
  private sink = 0;

  constructor(model: Checkable<A>, options: LevelOptions) {
    this.size = model.stateBytes;
    this.width = strideOf(this.size) >>> 2;
    this.expandState = successorsOf(model);
    this.isEnd = endTestOf(model, options);
    this.invariants = options.invariants.map((name) => model.properties.find((p) => p.kind === 'always' && p.name === name)!);
    this.conjunction = model.fast?.conjunction;
    const names = this.conjunction?.names ?? [];
    this.covered = this.invariants.reduce((bits, p, k) => (names.includes(p.name) ? bits | (1 << k) : bits), 0);
    this.witnesses = model.properties.filter((p) => p.kind === 'sometimes');
    this.actionCount = model.actions.length;
    this.reduction = options.por ? model.reduction : undefined;
    this.ample = new Int32Array(Math.max(this.actionCount, 1));
    this.propertyNames = model.properties.map((p) => p.name);
    // Parents expanded between two rounds of table touches, as the one-thread search's batches.
    this.perBatch = batchStates(model);
    const capacity = Math.max(1, this.perBatch * this.actionCount);
    this.batchWords = new Int32Array((capacity + 1) * this.width);
    for (let k = 0; k <= capacity; k++) {
      this.slotBytes.push(new Uint8Array(this.batchWords.buffer, 4 * k * this.width, this.size));
      this.slotWords.push(new Int32Array(this.batchWords.buffer, 4 * k * this.width, this.width));
    }
    this.batchHashes = new Int32Array(2 * capacity);
    this.batchParents = new Int32Array(capacity);
    this.batchActions = new Uint8Array(capacity);
    this.batchRaw = new Int32Array(capacity);
    this.batchQuiet = new Uint8Array(capacity);
    this.batchCandidates = new Int32Array(capacity);
    const tail = this.size & 3;
    this.lastMask = tail === 0 ? -1 : (1 << (8 * tail)) - 1;
    this.parentScratch = model.fast?.slicesOnce === true ? new ScratchState(this.size) : undefined;
    this.parent = this.parentScratch === undefined ? wordState(this.size) : { bytes: this.parentScratch, words: this.parentScratch.words };
    this.scratch = wordState(this.size);
    const hashed = fingerprintFirstOf(model, options);
    this.hashedParents = hashed === undefined ? undefined : new HashedParents(this.size, hashed, this.perBatch);
    this.stride = arenaWords(this.size, hashed !== undefined);
    // The arrays as the closure's own constants: a field load per array per successor is what this saves.
    const hashes = this.batchHashes;
    const raws = this.batchRaw;
    const parents = this.batchParents;
    const actions = this.batchActions;
    const quiets = this.batchQuiet;
    this.hashSink = (action, h1, h2, quiet) => {
      const k = this.batchCount++;
      hashes[2 * k] = h1;
      hashes[2 * k + 1] = tableKey(h2);
      raws[k] = h2;
      parents[k] = this.current;
      actions[k] = action;
      quiets[k] = quiet === true ? 1 : 0;
    };
    this.arenas = [new StateArena(this.stride), new StateArena(this.stride)];
    this.out = this.arenas[0];
    const canonicalize = canonicalizerOf(model, options);
    const views = new WordViews(this.size);
    const scratch = this.parentScratch;
    // A successor already in the batch's next slot (sliced there, and canonical) stays where it is.
    this.sinkInto = (t, action) => {
      const c = canonicalize === undefined ? t : canonicalize(t);
      if (c === this.slotBytes[this.batchCount]) this.commit(action);
      else this.add(views.of(c), action);
      if (scratch !== undefined) scratch.target(this.slotBytes[this.batchCount]!, this.slotWords[this.batchCount]!);
    };
  }

  /** Puts the initial states (zero-padded words, see {@link rootWords}) at the start of the even arena: level 0. */
  seed(states: readonly Int32Array[]): void {
    states.forEach((s, i) => this.arenas[0].chunkFor(i).words.set(s, (i % ARENA_CHUNK) * this.stride));
  }

  /** The fingerprint of an initial state (zero-padded words `words`, bytes `bytes`) as this search's table holds it, into `out[0]`, `out[1]`. */
  rootPrint(bytes: Uint8Array, words: Int32Array, out: Int32Array): void {
    if (this.hashedParents === undefined) fingerprint(words, 0, this.width, out, 0);
    else {
      this.hashedParents.z.hash(bytes, out, 0);
      out[1] = tableKey(out[1]!);
    }
  }

  /** An initial state's words as the arena holds it: its zero-padded words, then, fingerprint first, its raw fingerprint. */
  rootWords(bytes: Uint8Array, words: Int32Array): Int32Array {
    return this.hashedParents === undefined ? words.slice() : this.hashedParents.rootWords(bytes);
  }

  /** The expand step: blocks of the level until none is left (or the level set must grow first). */
  expand(r: ExpandRequest): ExpandReply {
    if (!r.resume) {
      this.blocks = [];
      this.block = r.block;
      this.written = 0;
      this.deadlock = -1;
      this.out = this.arenas[r.parity & 1]!;
      this.open = r.open;
      this.reducer = this.reduction?.reducer(this.openFlags(r.open));
    }
    const reader = new FrontierReader(r.frontier, this.stride);
    const blocks = Math.ceil(r.count / r.block);
    let paused = false;
    for (;;) {
      if (Atomics.load(r.control, NEXT_BLOCK) >= blocks) break;
      if (Atomics.load(r.control, CLAIMS) > r.room) {
        paused = true;
        break;
      }
      const b = Atomics.add(r.control, NEXT_BLOCK, 1);
      if (b >= blocks) break;
      const from = b * r.block;
      const to = Math.min(from + r.block, r.count);
      const first = this.written;
      let claims = 0;
      for (let p = from; p < to; p += this.perBatch) claims += this.expandBatch(r, reader, p, Math.min(p + this.perBatch, to));
      // Counted once per block: a block in flight claims at most `block * actions`, which the room leaves per thread.
      if (claims > 0) Atomics.add(r.control, CLAIMS, claims);
      this.blocks.push(from, to, first, this.written);
    }
    return { paused, deadlock: this.deadlock, blocks: Int32Array.from(this.blocks), chunks: this.out.chunks };
  }

  /** Expands parents `from .. to` of the level and inserts their successors; returns how many table slots they claimed. */
  private expandBatch(r: ExpandRequest, reader: FrontierReader, from: number, to: number): number {
    const state = this.parent;
    const hashed = this.hashedParents;
    this.batchCount = 0;
    this.parentScratch?.target(this.slotBytes[0]!, this.slotWords[0]!);
    for (let p = from; p < to; p++) {
      this.current = p;
      const before = this.batchCount;
      let s: Uint8Array;
      if (hashed !== undefined) s = hashed.expand(reader, p, p - from, this.hashSink);
      else {
        reader.copy(p, state.words);
        s = state.bytes;
        this.expandState(s, this.sinkInto); // enabled actions only reach the sink
      }
      if (this.batchCount - before > 1 && this.reducer !== undefined) this.reduce(s, before);
      if (this.batchCount === before && this.deadlock < 0 && this.isEnd !== undefined && !this.isEnd(s)) this.deadlock = p;
    }
    const table = r.table;
    const hashes = this.batchHashes;
    const n = this.batchCount;
    let acc = 0;
    for (let k = 0; k < n; k++) acc ^= table[homeWord(table, hashes[2 * k]!)]!;
    this.sink ^= acc;
    const a = this.actionCount;
    const width = this.width;
    const stride = this.stride;
    const src = this.batchWords;
    let claims = 0;
    // Inserts first, candidates written after: a compare-and-swap waits for every store in flight, and the candidates' are many.
    const candidates = this.batchCandidates;
    let m = 0;
    for (let k = 0; k < n; k++) {
      const h1 = hashes[2 * k]!;
      const h2 = hashes[2 * k + 1]!;
      if (oldAtHome(table, h1, h2, r.tag)) continue;
      const result = insertFirst(table, h1, h2, r.tag, this.batchParents[k]! * a + this.batchActions[k]!);
      if (result === LOST || result === OLD) continue;
      if (result === CLAIMED) claims++;
      else Atomics.or(r.losers, result >>> 5, 1 << (result & 31));
      candidates[m++] = k;
    }
    let chunk: ChunkViews | undefined;
    for (let c = 0; c < m; c++) {
      const k = candidates[c]!;
      const h1 = hashes[2 * k]!;
      const at = this.written++;
      const o = at & (ARENA_CHUNK - 1);
      if (o === 0 || chunk === undefined) chunk = this.out.chunkFor(at);
      const words = chunk.words;
      const parent = this.batchParents[k]!;
      const action = this.batchActions[k]!;
      let s: Uint8Array;
      // Fingerprint first, a candidate is written only now, from its parent; else it is copied from the batch.
      if (hashed !== undefined) s = hashed.write(parent - from, action, h1, this.batchRaw[k]!, words, o * stride);
      else {
        for (let w = 0; w < width; w++) words[o * stride + w] = src[k * width + w]!;
        s = this.slotBytes[k]!;
      }
      chunk.parents[o] = parent;
      chunk.actions[o] = action;
      // Evaluated here, while the state is in cache: the keep step evaluates again only the few flagged.
      chunk.flags[o] = this.maySettle(s, hashed !== undefined && this.batchQuiet[k] === 1) ? 1 : 0;
    }
    return claims;
  }

  /** Per property of the model, whether `open` (the level's masks) has it open: what the level's reducer keeps. */
  private openFlags(open: OpenProperties): boolean[] {
    const names = new Set<string>();
    this.invariants.forEach((p, k) => ((open.invariants >>> k) & 1) !== 0 && names.add(p.name));
    this.witnesses.forEach((p, k) => (((open.held | open.failed) >>> k) & 1) !== 0 && names.add(p.name));
    return this.propertyNames.map((name) => names.has(name));
  }

  /** Keeps only an ample set of the current parent `s`'s successors, those of the batch from `before` (as `bfs.ts` does). */
  private reduce(s: Uint8Array, before: number): void {
    const keep = this.ample;
    const kept = this.reducer!.ample(s, this.batchActions, before, this.batchCount, keep);
    if (kept === this.batchCount - before) return;
    const width = this.width;
    const words = this.batchWords;
    for (let j = 0; j < kept; j++) {
      const k = before + keep[j]!;
      const to = before + j;
      if (k === to) continue;
      // Fingerprint first, the batch holds no states yet.
      if (this.hashedParents === undefined) for (let w = 0; w < width; w++) words[to * width + w] = words[k * width + w]!;
      this.batchHashes[2 * to] = this.batchHashes[2 * k]!;
      this.batchHashes[2 * to + 1] = this.batchHashes[2 * k + 1]!;
      this.batchRaw[to] = this.batchRaw[k]!;
      this.batchParents[to] = this.batchParents[k]!;
      this.batchActions[to] = this.batchActions[k]!;
      this.batchQuiet[to] = this.batchQuiet[k]!;
    }
    this.batchCount = before + kept;
    this.parentScratch?.target(this.slotBytes[this.batchCount]!, this.slotWords[this.batchCount]!);
  }

  /** Appends a successor (zero-padded words) of the current parent by `action` to the batch, fingerprinted. */
  private add(src: Int32Array, action: number): void {
    const width = this.width;
    const words = this.batchWords;
    const at = this.batchCount * width;
    for (let w = 0; w < width; w++) words[at + w] = src[w]!;
    this.commit(action);
  }

  /** Keeps the successor already in the batch's next slot, by `action` from the current parent: masks its padding and fingerprints it. */
  private commit(action: number): void {
    const k = this.batchCount++;
    const width = this.width;
    const words = this.batchWords;
    const at = k * width;
    if (width > 0) words[at + width - 1] = words[at + width - 1]! & this.lastMask; // little-endian
    fingerprint(words, at, width, this.batchHashes, k);
    this.batchParents[k] = this.current;
    this.batchActions[k] = action;
  }

  /**
   * Whether evaluating state `s` with the properties open at the start of the level
   * could record anything: an open invariant fails, or an open witness holds (or fails)
   * where it was not yet reached (seen false). Properties only close within a level, so
   * a state not flagged records nothing in the keep step. In a `quiet` successor the
   * conjunction's invariants are known to hold (`model.ts`): those still open held in its
   * parent, a state of an earlier level.
   */
  private maySettle(s: Uint8Array, quiet: boolean): boolean {
    const open = this.open;
    const witnesses = open.held | open.failed;
    if ((open.invariants | witnesses) === 0) return false;
    let ask = open.invariants;
    if ((ask & this.covered) !== 0 && (quiet || this.conjunction!.holds(s))) ask &= ~this.covered;
    for (let k = 0; ask !== 0 && k < this.invariants.length; k++) if (((ask >>> k) & 1) !== 0 && !this.invariants[k]!.holds(s)) return true;
    // Past the first levels no witness is open (each reached and seen false): no loop at all, where one over every witness testing its bits cost 560 instructions a candidate (callgrind), a quarter of this function.
    if (witnesses === 0) return false;
    for (let k = 0; k < this.witnesses.length; k++) {
      const bit = 1 << k;
      if ((witnesses & bit) === 0) continue;
      if ((this.witnesses[k]!.holds(s) ? open.held : open.failed) & bit) return true;
    }
    return false;
  }

  /**
   * The keep step: the blocks this thread expanded, in the level's order. A block's
   * candidates stay where they are: the losers are left out of the runs the next level
   * reads, and only the flagged states are read again, to be evaluated in the level's
   * order. Each thread keeps its own blocks, not blocks from a shared counter: their
   * candidates are in its own arena, and it has their list from its expand step, so that
   * the request carries neither the level's blocks nor any arena's chunks (the step takes
   * as long either way, measured).
   */
  keep(r: KeepRequest): KeepReply {
    const chunks = this.out.views;
    const firsts = new Int32Array(2 * (this.invariants.length + 2 * this.witnesses.length)).fill(-1);
    const open = { invariants: r.open.invariants, held: r.open.held, failed: r.open.failed };
    const kept: number[] = [];
    const runs: number[] = [];
    const mine = this.blocks;
    const a = this.actionCount;
    const losers = r.losers;
    const levelBase = r.levelBase;
    const links = this.links;
    for (let at = 0; at < mine.length; at += EXPANDED_FIELDS) {
      const from = mine[at]!;
      const to = mine[at + 1]!;
      const first = mine[at + 2]!;
      const end = mine[at + 3]!;
      // Its index in the level's order (orderBlocks, by first parent).
      const b = from / this.block;
      const firstLink = links.length;
      let count = 0;
      let runStart = first;
      // Chunk by chunk, its arrays held in locals: the loop per candidate is a few loads and a link.
      for (let q = first; q < end; ) {
        const c = Math.floor(q / ARENA_CHUNK);
        const chunk = chunks[c]!;
        const parents = chunk.parents;
        const actions = chunk.actions;
        const flags = chunk.flags;
        const origin = c * ARENA_CHUNK;
        const stop = Math.min(end, origin + ARENA_CHUNK) - origin;
        for (let o = q - origin; o < stop; o++) {
          const parent = parents[o]!;
          const action = actions[o]!;
          const key = parent * a + action;
          if ((losers[key >>> 5]! & (1 << (key & 31))) !== 0) {
            if (origin + o > runStart) runs.push(b, runStart, origin + o - runStart);
            runStart = origin + o + 1;
            continue;
          }
          links.push(levelBase + parent, action);
          if (flags[o] !== 0) {
            this.read(chunk, o);
            this.evaluate(open, firsts, b, count);
          }
          count++;
        }
        q = origin + stop;
      }
      if (end > runStart) runs.push(b, runStart, end - runStart);
      // This block's keys, and only its own (blocks are whole words of the bitmap), are clear for the next level.
      losers.fill(0, (from * a) >>> 5, Math.ceil((to * a) / 32));
      kept.push(b, count, firstLink);
    }
    return { kept: Int32Array.from(kept), runs: Int32Array.from(runs), firsts, links: this.links.chunks };
  }

  /** Copies the state at offset `o` of an arena chunk into the scratch state. */
  private read(chunk: ChunkViews, o: number): void {
    const width = this.width;
    const at = o * this.stride;
    const words = this.scratch.words;
    const src = chunk.words;
    for (let w = 0; w < width; w++) words[w] = src[at + w]!;
  }

  /** Evaluates the open properties on the scratch state, the kept state at position `at` of block `b`, recording first failures (and holds). */
  private evaluate(open: { invariants: number; held: number; failed: number }, firsts: Int32Array, b: number, at: number): void {
    if ((open.invariants | open.held | open.failed) === 0) return;
    // No closure here: under tsx every closure created is also named, which costs more than the evaluation.
    const s = this.scratch.bytes;
    // Where the conjunction holds, the invariants it stands for hold: only the others are evaluated one by one (as the monitor does).
    let ask = open.invariants;
    if ((ask & this.covered) !== 0 && this.conjunction!.holds(s)) ask &= ~this.covered;
    for (let k = 0; ask !== 0 && k < this.invariants.length; k++) {
      if (((ask >>> k) & 1) === 0 || this.invariants[k]!.holds(s)) continue;
      open.invariants &= ~(1 << k);
      firsts[2 * k] = b;
      firsts[2 * k + 1] = at;
    }
    for (let k = 0; k < this.witnesses.length; k++) {
      const bit = 1 << k;
      if (((open.held | open.failed) & bit) === 0) continue;
      const held = this.witnesses[k]!.holds(s);
      if ((held ? open.held : open.failed) & bit) {
        if (held) open.held &= ~bit;
        else open.failed &= ~bit;
        const f = this.invariants.length + 2 * k + (held ? 0 : 1);
        firsts[2 * f] = b;
        firsts[2 * f + 1] = at;
      }
    }
  }

  /** Copies slots `from .. to` of `table` into the larger `into`. */
  rehash(table: Int32Array, into: Int32Array, from: number, to: number): void {
    rehashRange(table, into, from, to);
  }
}
