/**
 * The abstraction at scale: the pool's state read in the reference model's terms and
 * compared with it, field by field, incrementally. After an action only the pages the
 * reference touched and the acting slot are compared (plus the free count and the prefix
 * cache), so a step costs what the action costs, not what the pool's size costs; every
 * few steps, and at the end of a run, everything is compared, which catches a write the
 * reference did not make.
 *
 * Serials map to admissions: each accepted `allocate` records the serial the pool gave the
 * admission, and a serial that an earlier admission already had is itself a failure (the
 * pool's labels would no longer say whose data a page holds).
 */
import { EVICTED_FOR, HIT, INSERTED, Ph, READ_UNHELD, RESUMED } from '../spec/state.ts';
import { NO_PAGE, STALE_DATA } from '../impl/options.ts';
import type { PagePool } from '../impl/pool.ts';
import { SteppingPool } from '../impl/stepping-pool.ts';
import { RadixPool } from '../impl/radix-pool.ts';
import { admissionLabel, STALE, type ReferencePool, type RefRequest } from './reference.ts';

/** Compares a pool with a reference pool driven by the same actions; each method returns the first difference in words, or undefined. */
export class ScaleComparer {
  private readonly ref: ReferencePool;
  private readonly pool: PagePool;
  private readonly admissionOf = new Map<number, number>();

  constructor(ref: ReferencePool, pool: PagePool) {
    this.ref = ref;
    this.pool = pool;
  }

  /** After both accepted `allocate(slot)`: records the new admission's serial; a reused serial is a difference. */
  admitted(slot: number): string | undefined {
    const r = this.ref.slots[slot];
    if (r === undefined) return `slot ${slot}: the reference admitted nothing`;
    const serial = this.pool.serial(slot);
    const earlier = this.admissionOf.get(serial);
    this.admissionOf.set(serial, r.admission);
    if (earlier !== undefined) return `admission ${r.admission} got serial ${serial}, which admission ${earlier} already had`;
    return undefined;
  }

  /** A pool label in the reference's alphabet (NaN for a serial no admission got). */
  private label(x: number): number {
    if (x === STALE_DATA) return STALE;
    if (x <= 0) return x;
    const k = this.admissionOf.get(x);
    return k === undefined ? Number.NaN : admissionLabel(k);
  }

  /** Page `p`'s holder, data, tag and copies on the free lists. */
  comparePage(p: number): string | undefined {
    const want = this.ref.page(p);
    const fields = [
      ['holder', want.holder, this.pool.holder[p] ?? 0],
      ['data', want.data, this.pool.data[p] ?? 0],
      ['tag', want.tag, this.pool.tag[p] ?? 0],
    ] as const;
    for (const [name, expected, got] of fields) {
      const mine = this.label(got);
      if (mine !== expected) return `page ${p} ${name}: reference ${expected}, pool ${got} (= ${mine})`;
    }
    if (want.data !== 0 && want.pos !== this.pool.position[p]) return `page ${p} position: reference ${want.pos}, pool ${this.pool.position[p]}`;
    if (want.data !== 0 && want.fill !== this.pool.fill[p]) return `page ${p} fill: reference ${want.fill} slots, pool ${this.pool.fill[p]}`;
    if (this.pool instanceof RadixPool && this.pool.nodeLock[p] !== want.nodeLock) return `page ${p} lock_ref: reference ${want.nodeLock}, pool ${this.pool.nodeLock[p]}`;
    const free = this.pool.freeCopies(p) + this.pool.releaseCopies(p);
    if (free !== this.ref.copies(p)) return `page ${p} free copies: reference ${this.ref.copies(p)}, pool ${free}`;
    return undefined;
  }

  /** Slot `slot`: phase, flags, table length, serial, page table, decode steps and what its steps read. */
  compareSlot(slot: number): string | undefined {
    const r = this.ref.slots[slot];
    const where = `slot ${slot}${r === undefined ? '' : ` (admission ${r.admission})`}`;
    const phase = r === undefined ? Ph.new : Ph[r.phase];
    if (this.pool.phase(slot) !== phase) return `${where} phase: reference ${phase}, pool ${this.pool.phase(slot)}`;
    const flags = (this.pool.flags[slot] ?? 0) & (HIT | INSERTED | READ_UNHELD | RESUMED | EVICTED_FOR);
    // A slot not yet admitted carries only the mark of an eviction made for it.
    const want = r === undefined ? (this.ref.slotEvicted[slot] === true ? EVICTED_FOR : 0) : (r.hit ? HIT : 0) | (r.inserted ? INSERTED : 0) | (r.readUnheld ? READ_UNHELD : 0) | (r.resumed ? RESUMED : 0) | (r.evictedFor ? EVICTED_FOR : 0);
    if (flags !== want) return `${where} flags: reference ${want}, pool ${flags}`;
    if (r === undefined) return undefined;
    if (this.pool instanceof RadixPool && this.pool.depth[slot] !== r.depth) return `${where} last node's depth: reference ${r.depth}, pool ${this.pool.depth[slot]}`;
    if (this.pool.lengths[slot] !== r.table.length) return `${where} table length: reference ${r.table.length}, pool ${this.pool.lengths[slot]}`;
    if (this.label(this.pool.serial(slot)) !== admissionLabel(r.admission)) return `${where}: the pool's serial ${this.pool.serial(slot)} is not this admission's`;
    const table = this.pool.pageTable(slot);
    for (let i = 0; i < r.table.length; i++) {
      if (table[i] !== r.table[i]) return `${where} table[${i}]: reference ${r.table[i]}, pool ${table[i]}`;
    }
    if (this.pool.steps(slot) !== r.steps) return `${where} decode steps: reference ${r.steps}, pool ${this.pool.steps(slot)}`;
    return this.compareReads(slot, r, where);
  }

  private compareReads(slot: number, r: RefRequest, where: string): string | undefined {
    const count = this.pool.readCounts[slot] ?? 0;
    if (count !== r.reads.length) return `${where} reads: reference ${r.reads.length} pages, pool ${count}`;
    const base = slot * this.pool.options.maxLength;
    for (let i = 0; i < count; i++) {
      const got = this.label(this.pool.reads[base + i] ?? 0);
      if (got !== r.reads[i]) return `${where} read[${i}]: reference ${r.reads[i]}, pool ${got}`;
    }
    // The labels every step read, each once: the stepping pool lists them, the reference keeps a set (the plain pool derives them from its reads, compared above).
    const seen = this.pool instanceof SteppingPool ? this.pool.labelsRead(slot).map((x) => this.label(x)) : [...r.seen];
    if (seen.length !== r.seen.size || seen.some((x) => !r.seen.has(x))) return `${where} labels read: reference ${[...r.seen].join(' ')}, pool ${seen.join(' ')}`;
    const foreign = this.ref.foreignReads(r);
    if (r.reads.length > 0 && this.pool.foreignReads(slot) !== foreign) return `${where} foreign reads: reference ${foreign}, pool ${this.pool.foreignReads(slot)}`;
    return undefined;
  }

  /** The free count and the prefix cache's entries. */
  compareShared(): string | undefined {
    if (this.pool.freePages !== this.ref.freePages) return `free pages: reference ${this.ref.freePages}, pool ${this.pool.freePages}`;
    for (let g = 0; g < this.pool.prefixPages.length; g++) {
      const want = this.ref.cache.get(g) ?? NO_PAGE;
      if (this.pool.prefixPages[g] !== want) return `prefix ${g} cache entry: reference ${want}, pool ${this.pool.prefixPages[g]}`;
      // Under the tree the locks are per node (comparePage); the pool's per-prefix counts are not used there.
      const lock = this.ref.locks.get(g) ?? 0;
      if (!(this.pool instanceof RadixPool) && (this.pool.locks[g] ?? 0) !== lock) return `prefix ${g} lock count: reference ${lock}, pool ${this.pool.locks[g]}`;
    }
    return undefined;
  }

  /** The pages the reference touched since the last call, then slot `slot` and the shared fields; empties the touched set. */
  compareStep(slot: number): string | undefined {
    let diff: string | undefined;
    for (const p of this.ref.touched) {
      diff = this.comparePage(p);
      if (diff !== undefined) break;
    }
    this.ref.touched.clear();
    return diff ?? this.compareSlot(slot) ?? this.compareShared();
  }

  /** Every page, every slot, the shared fields, and the free list's order. */
  compareAll(): string | undefined {
    if (this.pool.holder.length !== this.ref.pages.length) return `page ids: reference 0..${this.ref.pages.length - 1}, pool 0..${this.pool.holder.length - 1}`;
    for (let p = 0; p < this.ref.pages.length; p++) {
      const diff = this.comparePage(p);
      if (diff !== undefined) return diff;
    }
    if (this.ref.freeList !== undefined) {
      const got = this.pool.freeOrder().join(' ');
      if (got !== this.ref.freeList.join(' ')) return `free list order: reference ${this.ref.freeList.join(' ')}, pool ${got}`;
    }
    for (let s = 0; s < this.ref.slots.length; s++) {
      const diff = this.compareSlot(s);
      if (diff !== undefined) return diff;
    }
    return this.compareShared();
  }
}
