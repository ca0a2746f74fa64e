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
 *
 * Shared prefixes (`incident --prefixes`): the monitor keeps its own radix tree of one-page
 * nodes, one path per prefix. An allocation shares the nodes its prefix's path holds from
 * the root (they must be the pool's first pages), and takes the rest free; a write fills a
 * prefix position with the prefix's content (the same for every request with it), and a
 * read of it there is the reader's own; the handoff inserts (a node the tree holds
 * replaces the request's page, which is freed; otherwise the page becomes the node), and
 * the pool's table must then be the monitor's; a release or retraction frees only the
 * pages past the shared ones; an eviction must take a leaf that no live request shares.
 */

/** The holder of a page that is a node of the tree (-1 is the padding page's). */
const TREE = -2;

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
  /** The live requests' prefixes (none: absent) and how many leading pages of each are the tree's. */
  private readonly groups = new Map<number, number>();
  private readonly depths = new Map<number, number>();
  /** Per prefix, its length in pages; per node `g * stride + j`, its page or -1; per page, the node it is. */
  private readonly prefixLengths: readonly number[];
  private readonly stride: number;
  private readonly nodes: Int32Array;
  private readonly nodeOf: Int32Array;

  constructor(pages: number, order: OrderCheck, firstPage = 0, pageSize = 1, prefixLengths: readonly number[] = []) {
    this.prefixLengths = prefixLengths;
    this.stride = Math.max(1, ...prefixLengths);
    this.nodes = new Int32Array(prefixLengths.length * this.stride).fill(-1);
    this.nodeOf = new Int32Array(prefixLengths.length > 0 ? pages : 0);
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

  /** Request `r` of `tokens` tokens (whole pages when left out), with prefix `group` (-1: none), was given `table[0 .. length-1]`; throws when a shared page is not the tree's node, or a page was not free, is there twice, or breaks the order. */
  allocate(r: number, table: Int32Array, length: number, tokens: number = length * this.pageSize, group = -1): void {
    if (this.tables.has(r)) throw new Error(`monitor: request ${r} was allocated twice`);
    this.tables.set(r, table.slice(0, length));
    this.tokens.set(r, tokens);
    const shared = group >= 0 ? this.matched(group) : 0;
    if (group >= 0) [this.groups, this.depths].forEach((m, k) => m.set(r, k === 0 ? group : shared));
    for (let j = 0; j < shared; j++) if (table[j] !== this.nodes[group * this.stride + j]) throw new Error(`monitor: request ${r} was given page ${table[j]} at position ${j}, not the tree's node ${this.nodes[group * this.stride + j]}`);
    let highest = -1;
    for (let i = shared; i < length; i++) {
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

  /** Request `r`'s write landed: every page of its table past the tree's, or (a silent stub) the first such one only, a one-token dummy. */
  write(r: number, firstOnly: boolean): void {
    const table = this.table(r);
    const from = this.depths.get(r) ?? 0;
    const end = firstOnly ? Math.min(from + 1, table.length) : table.length;
    for (let i = from; i < end; i++) {
      const p = table[i] ?? 0;
      this.data[p] = firstOnly ? r + 1 : this.label(r, i);
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
      const own = this.label(r, i);
      // The reader's own page, read past its fill: P's stale data, another user's.
      const stale = d === own && this.slotsAt(r, i) > (this.fill[p] ?? 0);
      if ((d !== 0 && d !== own) || stale) foreign++;
      if (d !== own || (this.fresh[p] !== 1 && this.holder[p] !== TREE)) allOwn = false;
      if (stale) staleTail = true;
    }
    return { foreign, allOwn, staleTail };
  }

  /** Request `r` released its table (but the tree's pages); throws when it releases a page it does not hold. */
  free(r: number): void {
    this.releaseOwn(r, 'released');
    for (const m of [this.tables, this.tokens, this.groups, this.depths]) m.delete(r);
  }

  /** Request `r` took page `p` for a decode step's token (serving.ts), which the token's write fills from its first slot. */
  grow(r: number, p: number): void {
    if (this.holder[p] !== 0) throw new Error(`monitor: request ${r} grew onto page ${p}, which is not free`);
    this.tables.set(r, Int32Array.of(...this.table(r), p));
    this.hold(r, p, 1);
  }

  /** Request `r` was retracted: its pages but the tree's are free, what it had written is saved with it, and its resume shares nothing. */
  retract(r: number): void {
    this.releaseOwn(r, 'retracted');
    if (this.depths.has(r)) this.depths.set(r, 0);
  }

  /** Frees request `r`'s pages past the tree's; throws when one is not its own, or a shared one is no node. */
  private releaseOwn(r: number, what: string): void {
    const table = this.table(r);
    const shared = this.depths.get(r) ?? 0;
    for (let i = 0; i < table.length; i++) {
      const p = table[i] ?? 0;
      if (this.holder[p] !== (i < shared ? TREE : r + 1)) throw new Error(`monitor: request ${r} ${what} page ${p}, which it does not hold`);
      if (i < shared) continue;
      this.holder[p] = 0;
      this.setFree(p, true);
    }
  }

  /** Request `r`'s handoff inserted its prefix (`cache_unfinished_req`): past its shared pages, a node the tree holds replaces its page (freed), else its page becomes the node; throws when the pool's table `pool` differs. */
  handoff(r: number, pool: Int32Array): void {
    const g = this.groups.get(r) ?? -1;
    if (g < 0) return;
    const table = this.table(r);
    const k = this.prefixLengths[g] ?? 1;
    for (let j = this.depths.get(r) ?? 0; j < k; j++) {
      const own = table[j] ?? 0;
      const node = this.nodes[g * this.stride + j] ?? -1;
      if (node >= 0 && node !== own) {
        this.holder[own] = 0;
        this.setFree(own, true);
        table[j] = node;
      } else {
        this.nodes[g * this.stride + j] = own;
        this.nodeOf[own] = g * this.stride + j;
        this.holder[own] = TREE;
      }
    }
    this.depths.set(r, k);
    for (let j = 0; j < k; j++) if (pool[j] !== table[j]) throw new Error(`monitor: after request ${r}'s insert its table begins ${Array.from(table.subarray(0, k)).join(', ')}; the pool's ${Array.from(pool.subarray(0, k)).join(', ')}`);
  }

  /** The tree evicted page `p`: it must be a node, a leaf, and shared by no live request. */
  evict(p: number): void {
    const key = this.holder[p] === TREE ? (this.nodeOf[p] ?? 0) : -1;
    const [g, j] = [Math.floor(key / this.stride), key % this.stride];
    if (key < 0 || (j + 1 < (this.prefixLengths[g] ?? 1) && (this.nodes[key + 1] ?? -1) >= 0)) throw new Error(`monitor: page ${p} was evicted, which is no leaf of the tree`);
    for (const [r, d] of this.depths) if (this.groups.get(r) === g && d > j) throw new Error(`monitor: page ${p} was evicted while request ${r} shares it`);
    this.nodes[key] = -1;
    this.holder[p] = 0;
    this.setFree(p, true);
  }

  /** How many nodes of prefix `g`'s path, from the root, the tree holds. */
  private matched(g: number): number {
    let d = 0;
    while (d < (this.prefixLengths[g] ?? 1) && (this.nodes[g * this.stride + d] ?? -1) >= 0) d++;
    return d;
  }

  /** What request `r`'s own content at position `i` is: its prefix's there, else its own. */
  private label(r: number, i: number): number {
    const g = this.groups.get(r) ?? -1;
    return g >= 0 && i < (this.prefixLengths[g] ?? 1) ? -(2 + g * this.stride + i) : r + 1;
  }

  /** Request `r` resumed on `table[0 .. length-1]`, its saved copy loaded into them. */
  resume(r: number, table: Int32Array, length: number): void {
    this.tables.set(r, table.slice(0, length));
    for (let i = 0; i < length; i++) {
      const p = table[i] ?? 0;
      if (this.holder[p] !== 0) throw new Error(`monitor: request ${r} resumed onto page ${p}, which is not free`);
      this.hold(r, p, this.pageSize);
      this.data[p] = this.label(r, i);
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
