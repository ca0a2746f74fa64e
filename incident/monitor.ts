/**
 * The replay's independent monitor: what the spec says each decode read, worked out from
 * the actions alone, beside the pool that runs them. The pool's own counters (`foreign`,
 * its tags, its phases) are never consulted to count a leak; they are compared with the
 * monitor, and a disagreement stops the replay as a bug in the pool.
 *
 * The monitor keeps, per page, who holds it, the request whose write last landed in it,
 * and whether that write came during the current hold; it learns only which pages
 * `allocate` handed out (the page table, which it copies: later actions use its copy,
 * not the pool's), and checks them: each was free, none twice,
 * and, for the lowest-first order, they are the lowest free ids (no page at or below
 * the highest one taken is still free: a scan of the monitor's own bitset of free pages). Under SGLang's orders it
 * checks only that each page was free and is not the padding page 0 (which order they
 * come in is checked against a reference model by the model-based test at scale). Then, as the spec says:
 * `prefill` writes every page of the table, a silent `stub` its first page; `decode`
 * reads every page of the table, and under `owner-check` it fails loudly exactly when some
 * page was not written by the reader during its hold (its tag was cleared by `allocate`
 * and stamped only by the reader's own writes).
 *
 * Token slots (spec/slots.ts): a write fills the first slots of each page (the prompt's
 * tokens there; a stub's dummy is one token) and the rest of the page holds P's stale
 * data; decode reads the slots up to the prompt's length, so a read past the fill of the
 * reader's own page is of another user's data.
 */

/** How the monitor checks the pages an `allocate` handed out: the lowest free ids, or any free ones. */
export type OrderCheck = 'lowest-first' | 'any';

/** What a decode read, as the spec says. */
export interface MonitoredRead {
  /** Pages of the table whose data another request wrote. */
  readonly foreign: number;
  /** Whether every page was written by the reader during its hold: the owner check passes exactly then. */
  readonly allOwn: boolean;
  /** Whether some page was read past its fill, in P's stale data: `hardened`'s tag counts fail the request then too. */
  readonly staleTail: boolean;
}

/** The monitor of page ids `0 .. pages-1`, of which those below `firstPage` are never free; requests are numbered by the caller. */
export class ReadMonitor {
  private readonly holder: Int32Array;
  private readonly data: Int32Array;
  private readonly fresh: Uint8Array;
  /** Per page: the slots, from the first, its last write filled. */
  private readonly fill: Int32Array;
  private readonly pageSize: number;
  /** The live requests' prompts, in tokens. */
  private readonly tokens = new Map<number, number>();
  /** Bit `p` set: page `p` is free, as far as the monitor knows. */
  private readonly freeBits: Uint32Array;
  private readonly order: OrderCheck;
  /** The live requests' page tables, as `allocate` handed them out. */
  private readonly tables = new Map<number, Int32Array>();

  constructor(pages: number, order: OrderCheck, firstPage = 0, pageSize = 1) {
    this.holder = new Int32Array(pages);
    this.data = new Int32Array(pages);
    this.fresh = new Uint8Array(pages);
    this.fill = new Int32Array(pages);
    this.pageSize = pageSize;
    this.freeBits = new Uint32Array((pages + 31) >>> 5);
    this.order = order;
    for (let p = firstPage; p < pages; p++) this.setFree(p, true);
    // The padding page is held by nobody the monitor knows: never free, never handed out.
    this.holder.fill(-1, 0, firstPage);
  }

  /** Request `r` of `tokens` tokens (whole pages when left out) was given `table[0 .. length-1]`; throws when a page was not free, is there twice, or breaks the order. */
  allocate(r: number, table: Int32Array, length: number, tokens: number = length * this.pageSize): void {
    if (this.tables.has(r)) throw new Error(`monitor: request ${r} was allocated twice`);
    this.tables.set(r, table.slice(0, length));
    this.tokens.set(r, tokens);
    let highest = -1;
    for (let i = 0; i < length; i++) {
      const p = table[i] ?? -1;
      if (!(p >= 0 && p < this.holder.length)) throw new Error(`monitor: request ${r} was given page ${p}, which the pool does not have`);
      if (this.holder[p] === -1) throw new Error(`monitor: request ${r} was given page ${p}, the padding page`);
      if (this.holder[p] !== 0) throw new Error(`monitor: request ${r} was given page ${p}, which request ${(this.holder[p] ?? 0) - 1} holds`);
      this.holder[p] = r + 1;
      this.fresh[p] = 0;
      this.setFree(p, false);
      if (p > highest) highest = p;
    }
    // Lowest first: every page free before the allocation and not above the highest one taken was taken.
    if (this.order === 'lowest-first' && length > 0 && this.anyFreeUpTo(highest)) {
      throw new Error(`monitor: request ${r} was not given the lowest free pages (a free page lies below page ${highest})`);
    }
  }

  /** Request `r`'s write landed: every page of its table, or (a silent stub) the first one only. */
  write(r: number, firstOnly: boolean): void {
    const table = this.table(r);
    const end = firstOnly ? Math.min(1, table.length) : table.length;
    for (let i = 0; i < end; i++) {
      const p = table[i] ?? 0;
      this.data[p] = r + 1;
      this.fresh[p] = this.holder[p] === r + 1 ? 1 : 0;
      this.fill[p] = firstOnly ? 1 : this.slotsAt(r, i);
    }
  }

  /** The slots of table position `i` that request `r`'s prompt covers. */
  private slotsAt(r: number, i: number): number {
    return Math.min(this.pageSize, (this.tokens.get(r) ?? 0) - i * this.pageSize);
  }

  /** What request `r`'s decode of its table reads. */
  decode(r: number): MonitoredRead {
    const table = this.table(r);
    let foreign = 0;
    let allOwn = true;
    let staleTail = false;
    for (let i = 0; i < table.length; i++) {
      const p = table[i] ?? 0;
      const d = this.data[p] ?? 0;
      // The reader's own page, read past its fill: P's stale data, another user's.
      const stale = d === r + 1 && this.slotsAt(r, i) > (this.fill[p] ?? 0);
      if ((d !== 0 && d !== r + 1) || stale) foreign++;
      if (d !== r + 1 || this.fresh[p] !== 1) allOwn = false;
      if (stale) staleTail = true;
    }
    return { foreign, allOwn, staleTail };
  }

  /** Request `r` released its table; throws when it releases a page it does not hold. */
  free(r: number): void {
    const table = this.table(r);
    this.tables.delete(r);
    this.tokens.delete(r);
    for (let i = 0; i < table.length; i++) {
      const p = table[i] ?? 0;
      if (this.holder[p] !== r + 1) throw new Error(`monitor: request ${r} released page ${p}, which it does not hold`);
      this.holder[p] = 0;
      this.setFree(p, true);
    }
  }

  /** Request `r` took page `p` for a decode step's token (serving.ts), which the token's write fills from its first slot. */
  grow(r: number, p: number): void {
    if (this.holder[p] !== 0) throw new Error(`monitor: request ${r} grew onto page ${p}, which is not free`);
    this.tables.set(r, Int32Array.of(...this.table(r), p));
    this.hold(r, p, 1);
  }

  /** Request `r` was retracted: its pages are free, and what it had written is saved with it. */
  retract(r: number): void {
    for (const p of this.table(r)) {
      if (this.holder[p] !== r + 1) throw new Error(`monitor: request ${r} retracted page ${p}, which it does not hold`);
      this.holder[p] = 0;
      this.setFree(p, true);
    }
  }

  /** Request `r` resumed on `table[0 .. length-1]`, its saved copy loaded into them. */
  resume(r: number, table: Int32Array, length: number): void {
    this.tables.set(r, table.slice(0, length));
    for (let i = 0; i < length; i++) {
      const p = table[i] ?? 0;
      if (this.holder[p] !== 0) throw new Error(`monitor: request ${r} resumed onto page ${p}, which is not free`);
      this.hold(r, p, this.pageSize);
    }
  }

  /** Page `p` is `r`'s, and holds `r`'s data in its first `fill` slots. */
  private hold(r: number, p: number, fill: number): void {
    this.holder[p] = r + 1;
    this.data[p] = r + 1;
    this.fresh[p] = 1;
    this.fill[p] = fill;
    this.setFree(p, false);
  }

  private table(r: number): Int32Array {
    const table = this.tables.get(r);
    if (table === undefined) throw new Error(`monitor: request ${r} holds no page table`);
    return table;
  }

  private setFree(p: number, free: boolean): void {
    const w = p >>> 5;
    const bit = 1 << (p & 31);
    const word = this.freeBits[w] ?? 0;
    this.freeBits[w] = free ? word | bit : word & ~bit;
  }

  /** Whether some page among `0 .. p` is free. */
  private anyFreeUpTo(p: number): boolean {
    const last = p >>> 5;
    for (let w = 0; w < last; w++) if (this.freeBits[w] !== 0) return true;
    // Bits 0 .. (p & 31) of the last word; a shift by 32 would wrap, hence the two steps.
    const mask = (p & 31) === 31 ? 0xffffffff : (1 << ((p & 31) + 1)) - 1;
    return ((this.freeBits[last] ?? 0) & mask) !== 0;
  }
}
