/**
 * One share of a level of the parallel search, done by a worker (or by the main thread
 * for a small level): expand a range of the level's states, insert their successors'
 * fingerprints into the shared table, then keep the successors that are new and evaluate
 * the properties on them. The three steps are separated by barriers in `parallel.ts`, so
 * that every worker's inserts are done before any worker decides what is new.
 */
import { fingerprint } from './fingerprints.ts';
import { successorsOf, type Checkable, type ModelProperty } from './model.ts';
import { hasShared, insertShared, isNewAt } from './shared-table.ts';
import { strideOf, wordState } from './words.ts';

/** What an expansion found: the number of successors and the first state (level index) with none that is not a legitimate end, or -1. */
export interface Expanded {
  /** Successors generated that were not in the table yet. */
  readonly count: number;
  /** Level index of the first deadlocked state of the range, or -1. */
  readonly deadlock: number;
}

/** The new states of a share, in the one-worker order, with what the properties say of each. */
export interface Selected {
  /** Their bytes, `stride` each. */
  readonly states: Uint8Array;
  /** Per state: its parent's level index. */
  readonly parents: Int32Array;
  /** Per state: the action that made it. */
  readonly actions: Uint8Array;
  /** Per state: bit `k` set when invariant `k` fails there. */
  readonly failing: Int32Array;
  /** Per state: bit `k` set when witness `k` holds there. */
  readonly holding: Int32Array;
}

/** A worker's state across the three steps of a level. */
export class LevelTask<A> {
  private readonly size: number;
  private readonly stride: number;
  private readonly expand: ReturnType<typeof successorsOf>;
  private readonly canonicalize: ((s: Uint8Array) => Uint8Array) | undefined;
  private readonly isEnd: ((s: Uint8Array) => boolean) | undefined;
  private readonly invariants: readonly ModelProperty[];
  private readonly witnesses: readonly ModelProperty[];
  private readonly actionCount: number;
  private words = new Int32Array(0);
  /** The same buffer as bytes. */
  private bytes = new Uint8Array(0);
  private hashes = new Int32Array(0);
  private parents = new Int32Array(0);
  private actions = new Uint8Array(0);
  private slots = new Int32Array(0);
  private count = 0;

  constructor(model: Checkable<A>, options: { symmetry: boolean; deadlock: boolean; invariants: readonly string[] }) {
    this.size = model.stateBytes;
    this.stride = strideOf(this.size);
    this.expand = successorsOf(model);
    this.canonicalize = options.symmetry ? model.canonicalize?.bind(model) : undefined;
    this.isEnd = options.deadlock ? model.isLegitimateEnd?.bind(model) : undefined;
    this.invariants = options.invariants.map((name) => model.properties.find((p) => p.kind === 'always' && p.name === name)!);
    this.witnesses = model.properties.filter((p) => p.kind === 'sometimes');
    this.actionCount = model.actionCount;
  }

  /**
   * Generates the successors of level states `from .. to` of `frontier` (`stride` bytes
   * each), canonical and fingerprinted, and keeps those not already in `table` (states of
   * earlier levels: most successors are): nobody inserts during this step.
   */
  expandRange(frontier: Uint8Array, from: number, to: number, table: Int32Array): Expanded {
    this.count = 0;
    const state = wordState(this.size);
    const width = this.stride >>> 2;
    const tail = this.size & 3;
    const lastMask = tail === 0 ? -1 : (1 << (8 * tail)) - 1;
    let parent = 0;
    let deadlock = -1;
    let produced = false;
    const sink = (t: Uint8Array, action: number): void => {
      produced = true;
      const c = this.canonicalize === undefined ? t : this.canonicalize(t);
      const k = this.reserve();
      const bytes = this.bytes;
      const at = 4 * k * width;
      for (let i = 0; i < this.size; i++) bytes[at + i] = c[i]!;
      if (width > 0) this.words[k * width + width - 1] = this.words[k * width + width - 1]! & lastMask;
      fingerprint(this.words, k * width, width, this.hashes, k);
      if (hasShared(table, this.hashes[2 * k]!, this.hashes[2 * k + 1]!)) {
        this.count--; // seen at an earlier level
        return;
      }
      this.parents[k] = parent;
      this.actions[k] = action;
    };
    for (let p = from; p < to; p++) {
      state.bytes.set(frontier.subarray(p * this.stride, p * this.stride + this.size));
      parent = p;
      produced = false;
      this.expand(state.bytes, sink);
      if (!produced && deadlock < 0 && this.isEnd !== undefined && !this.isEnd(state.bytes)) deadlock = p;
    }
    return { count: this.count, deadlock };
  }

  /** Inserts every successor's fingerprint at `level`, keyed by its one-worker position. */
  insertAll(table: Int32Array, level: number): void {
    for (let k = 0; k < this.count; k++) {
      this.slots[k] = insertShared(table, this.hashes[2 * k]!, this.hashes[2 * k + 1]!, level, this.keyOf(k));
    }
  }

  /** The successors that are new at `level`, in order, with the open properties evaluated on each. */
  selectNew(table: Int32Array, level: number, openInvariants: number, openWitnesses: number): Selected {
    const keep = new Int32Array(this.count);
    let n = 0;
    for (let k = 0; k < this.count; k++) if (isNewAt(table, this.slots[k]!, level, this.keyOf(k))) keep[n++] = k;
    const width = this.stride >>> 2;
    const states = new Uint8Array(n * this.stride);
    const words = new Int32Array(states.buffer);
    const out = { states, parents: new Int32Array(n), actions: new Uint8Array(n), failing: new Int32Array(n), holding: new Int32Array(n) };
    // The properties read a state through one reused buffer.
    const scratch = wordState(this.size);
    for (let j = 0; j < n; j++) {
      const k = keep[j]!;
      for (let w = 0; w < width; w++) {
        const x = this.words[k * width + w]!;
        words[j * width + w] = x;
        scratch.words[w] = x;
      }
      out.parents[j] = this.parents[k]!;
      out.actions[j] = this.actions[k]!;
      out.failing[j] = mask(this.invariants, openInvariants, scratch.bytes, false);
      out.holding[j] = mask(this.witnesses, openWitnesses, scratch.bytes, true);
    }
    return out;
  }

  /** The one-worker position of successor `k`: its parent's level index, then its action. */
  private keyOf(k: number): number {
    return this.parents[k]! * this.actionCount + this.actions[k]!;
  }

  /** A slot for one more successor, growing the buffers by doubling. */
  private reserve(): number {
    const k = this.count++;
    if (k < this.parents.length) return k;
    const capacity = Math.max(64, 2 * this.parents.length);
    const width = this.stride >>> 2;
    const grow = <T extends Int32Array | Uint8Array>(old: T, make: (n: number) => T, per: number): T => {
      const next = make(capacity * per);
      next.set(old);
      return next;
    };
    this.words = grow(this.words, (n) => new Int32Array(n), width);
    this.bytes = new Uint8Array(this.words.buffer);
    this.hashes = grow(this.hashes, (n) => new Int32Array(n), 2);
    this.parents = grow(this.parents, (n) => new Int32Array(n), 1);
    this.actions = grow(this.actions, (n) => new Uint8Array(n), 1);
    this.slots = grow(this.slots, (n) => new Int32Array(n), 1);
    return k;
  }
}

/** Bit `k` set where property `k` is open and `holds(s)` equals `when`. */
function mask(properties: readonly ModelProperty[], open: number, s: Uint8Array, when: boolean): number {
  let bits = 0;
  for (let k = 0; k < properties.length; k++) if (((open >>> k) & 1) !== 0 && properties[k]!.holds(s) === when) bits |= 1 << k;
  return bits;
}
