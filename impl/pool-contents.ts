/**
 * What the pool's pages hold: a write landing in a page (its content, position, fill and,
 * under `owner-check`, its tag), the owner check before a decode, and decode's reads.
 */
import { READ_UNHELD } from '../spec/state.ts';
import { STALE_DATA, prefixLabelOf } from './options.ts';
import { PoolState } from './pool-state.ts';

/** The pool's writes, owner check and reads of page contents. */
export class PoolContents extends PoolState {
  /** Clears page `p`'s owner tag as `allocate` hands it out: cheap, unlike clearing its KV data. */
  protected clearTag(p: number): void {
    this.tag[p] = 0;
    this.tagFill[p] = 0;
  }

  /** A write lands in page `p`, for table position `pos`, filling its first `slots` slots: its data and, under `owner-check`, its tag become `label`. */
  protected write(p: number, label: number, pos: number, slots: number): void {
    this.data[p] = label;
    this.position[p] = pos;
    this.fill[p] = slots;
    if (this.behaviour.ownerCheck) {
      this.tag[p] = label;
      this.tagFill[p] = slots;
    }
  }

  /** How many slots of the page at table position `i` the slot's decode reads: up to the prompt's length. */
  protected slotsRead(s: number, i: number): number {
    const pageSize = this.options.pageSize ?? 1;
    return Math.min(pageSize, (this.tokens[s] ?? 0) - i * pageSize);
  }

  /** The owner check: every page's tag is the reader's serial, or at prefix position `j` its prefix's page `j`'s label. */
  protected ownerCheckPasses(s: number): boolean {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const base = s * this.options.maxLength;
    const end = base + (this.lengths[s] ?? 0);
    const tables = this.tables;
    const tag = this.tag;
    // A prefix page is valid only at its own position: page j of the prefix at position j.
    const k = g >= 0 ? (this.prefixLengths[g] ?? 1) : 0;
    for (let j = 0; j < k; j++) {
      const t = tag[tables[base + j] ?? 0];
      if (t !== serial && t !== prefixLabelOf(this.prefixSlot(g, j))) return false;
    }
    for (let i = base + k; i < end; i++) if (tag[tables[i] ?? 0] !== serial) return false;
    // tag-counts-tokens: every page's tag counts at least the slots read there.
    if (this.behaviour.tagCountsTokens) for (let i = base; i < end; i++) if ((this.tagFill[tables[i] ?? 0] ?? 0) < this.slotsRead(s, i - base)) return false;
    return true;
  }

  /** Decode's reads: records each page's data label, counts foreign ones, and notes a read of a page the slot does not hold. */
  protected read(s: number): void {
    const serial = this.serials[s] ?? 0;
    const g = this.groups[s] ?? -1;
    const k = g >= 0 ? (this.prefixLengths[g] ?? 1) : 0;
    const base = s * this.options.maxLength;
    const length = this.lengths[s] ?? 0;
    const shared = this.sharedPages(s);
    const { tables, data, holder, reads } = this;
    let foreign = 0;
    let garbage = 0;
    let unheld = false;
    for (let i = 0; i < length; i++) {
      const p = tables[base + i] ?? 0;
      const written = data[p] ?? 0;
      // A prefix page's data is the reader's own only at that page's position.
      const own = i < k ? prefixLabelOf(this.prefixSlot(g, i)) : serial;
      const ownData = written === serial || written === own;
      // A read past the page's fill meets stale P-side data (unless the page is foreign anyway).
      const d = written !== 0 && ownData && this.slotsRead(s, i) > (this.fill[p] ?? 0) ? STALE_DATA : written;
      const pos = d === STALE_DATA && written !== STALE_DATA ? i : (this.position[p] ?? 0);
      reads[base + i] = d;
      this.readPositions[base + i] = pos;
      const mine = d === serial || d === own;
      if (d !== 0 && !mine) foreign++;
      else if (d === 0 || pos !== i) garbage++;
      const h = holder[p];
      // The shared prefix pages are held by the cache entry (or were inserted by this request).
      if (h !== serial && !(i < shared && h === own)) unheld = true;
    }
    this.foreign[s] = foreign;
    this.garbage[s] = garbage;
    this.readCounts[s] = length;
    if (unheld) this.flags[s] = (this.flags[s] ?? 0) | READ_UNHELD;
  }
}
