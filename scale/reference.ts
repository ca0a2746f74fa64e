/**
 * A second reference model of D's page pool, written from the documentation of the
 * actions (docs/SPEC.md, the `@guard` and `@effect` of each) rather than from the spec's
 * code, for the sizes the spec's byte encoding cannot hold: thousands of pages, tables of
 * any length, any number of admissions, request slots that are reused.
 *
 * It is deliberately unlike both the spec and the pool: plain objects, one record per page
 * and per admission, the free list found by looking at who holds each page, labels that
 * are admission numbers. It is slow (`allocate` scans every page) and meant to be obvious.
 * `scale/to-spec.ts` maps it onto the spec's state on small configurations, so that it is
 * anchored to the spec; `scale/compare.ts` compares the pool with it at scale.
 *
 * Labels: `0` nobody / never written, `k + 1` admission `k` (counted from 0), `-(g + 1)`
 * prefix group `g`.
 *
 * Allocation orders (docs/ALLOCATOR.md): under `sorted` without `double-free` a page is
 * free exactly when nobody holds it and `allocate` takes the lowest such ids; otherwise
 * the free list is an explicit array (and `sglang`'s release list another), taken from
 * the front, exactly as the pseudo-code there reads.
 *
 * Positions (issue 14): a page's content is written for one table position, and is right
 * only there; the owner check passes a prefix's tag only at the prefix's position (the
 * first), and a read of a prefix's content elsewhere is another request's data. No torn
 * writes (the scale test does not draw them). Decode steps, growth and retraction are
 * `reference-life.ts`'s; the prefix cache's locks, eviction and radix tree
 * `reference-cache.ts`'s.
 *
 * Token slots (spec/slots.ts): an admission is whole pages of `pageSize` tokens. A write
 * fills a page's first slots (P's prefill every slot, a stub's dummy one token), the rest
 * hold stale P-side data, and decode reads every slot of its pages: a read past a page's
 * fill, of a page whose content is the reader's own, is of stale data, another user's.
 * With `auto-truncate`, P prefills an over-long prompt cut to the limit, a whole number of
 * pages here, and the pages past it keep what they held.
 */
import { type RefRequest, admissionLabel, groupLabel } from './reference-types.ts';
import { ReferenceLife } from './reference-life.ts';

export * from './reference-types.ts';
export * from './coverage.ts';
export { ReferenceState } from './reference-state.ts';

/** The reference pool. Each action returns whether it was enabled; a disabled one changes nothing. */
export class ReferencePool extends ReferenceLife {
  /** allocate: the lowest free pages, after the cached prefix page on a hit; tags cleared under owner-check. */
  allocate(slot: number, length: number, group = -1): boolean {
    if (!this.slotOpen(slot)) return false;
    if (this.freePages < this.need(length, group)) {
      // A failed attempt still merges sglang's release list (spec/alloc-fail.ts).
      if (this.allocator === 'sglang' && this.freeList !== undefined && this.releaseList.length > 0) this.mergeRelease(this.freeList);
      return false;
    }
    const hitPage = group >= 0 ? this.cache.get(group) : undefined;
    const r: RefRequest = {
      admission: this.requests.length,
      slot,
      length,
      group,
      phase: 'allocated',
      hit: hitPage !== undefined,
      inserted: false,
      readUnheld: false,
      table: hitPage === undefined ? [] : [hitPage],
      reads: [],
      readPositions: [],
      seen: new Set(),
      steps: 0,
      saved: undefined,
      resumed: false,
      // An eviction made for a slot's first admission stays on record (the spec's EVICTED_FOR).
      evictedFor: this.slots[slot] === undefined && this.slotEvicted[slot] === true,
      depth: 0,
    };
    this.lockHit(r);
    for (const p of this.take(length - r.table.length)) this.hand(r, p);
    this.requests.push(r);
    this.slots[slot] = r;
    return true;
  }

  /** prefill: the whole prompt is written (the prefix's data in an own first page); a timed-out request's write lands late. */
  prefill(slot: number): boolean {
    const r = this.slots[slot];
    const over = r !== undefined && this.overLong(r);
    if (r === undefined || (r.phase !== 'allocated' && r.phase !== 'timedOut') || (over && !this.faults.has('auto-truncate'))) return false;
    // auto-truncate: only the pages of the prompt cut to the limit are written.
    const written = over ? this.options.prefillLimit : r.length;
    r.table.forEach((p, i) => {
      if ((i === 0 && this.sharesFirstPage(r)) || i >= written) return;
      this.write(p, i === 0 && r.group >= 0 ? groupLabel(r.group) : admissionLabel(r.admission), i, this.slotsPerPage);
    });
    r.phase = r.phase === 'timedOut' ? 'landed' : 'written';
    return true;
  }

  /** stub: an over-long prompt; with the silent stub one own page is written and success reported, else a refusal. */
  stub(slot: number): boolean {
    const r = this.slots[slot];
    if (r === undefined || (r.phase !== 'allocated' && r.phase !== 'timedOut') || !this.overLong(r) || this.faults.has('auto-truncate')) return false;
    const late = r.phase === 'timedOut';
    if (!this.silentStub) {
      r.phase = late ? 'freed' : 'refused';
      return true;
    }
    const at = this.sharesFirstPage(r) ? 1 : 0;
    const first = r.table[at];
    // The dummy is one token.
    if (first !== undefined) this.write(first, admissionLabel(r.admission), at, 1);
    r.phase = late ? 'landed' : 'written';
    return true;
  }

  /** handoff: a written request is committed; under `radix` it first inserts its prefix (`cache_unfinished_req`). */
  handoff(slot: number): boolean {
    const r = this.slots[slot];
    if (r?.phase !== 'written') return false;
    if (this.radix && this.canInsertTree(r)) this.insertTree(r);
    r.phase = 'handedOff';
    return true;
  }

  /** free: a finished request's pages go back, except a shared prefix page; with stale-free, a freed one's old table again. */
  free(slot: number): boolean {
    const r = this.slots[slot];
    if (r === undefined) return false;
    const normal = r.phase === 'decoded' || r.phase === 'refused' || r.phase === 'failed';
    const again = r.phase === 'freed' || r.phase === 'landed';
    // double-free: the old table's pages are all still free, nobody took them since.
    const stillFree = (): boolean => r.table.every((p, i) => (i === 0 && this.sharesFirstPage(r)) || (this.page(p).holder === 0 && this.copies(p) > 0));
    const stale = again && (this.faults.has('stale-free') || (this.multiset && stillFree()));
    if (!normal && !stale) return false;
    this.release(r);
    if (normal) this.unlock(r);
    r.phase = normal ? 'freed' : 'released';
    return true;
  }

  /** timeout (early-free): an allocated request's pages are freed while its write is in flight. */
  timeout(slot: number): boolean {
    const r = this.slots[slot];
    if (!this.faults.has('early-free') || r?.phase !== 'allocated') return false;
    this.release(r);
    this.unlock(r);
    r.phase = 'timedOut';
    return true;
  }

  /** insert: a decoded request's own first page becomes its prefix's cached page (with prefix-poison, a refused or failed one's too); under eviction it locks it; under `radix` the tree's insert. */
  insert(slot: number): boolean {
    const r = this.slots[slot];
    const poison = this.faults.has('prefix-poison') && (r?.phase === 'refused' || r?.phase === 'failed');
    if (r === undefined || (r.phase !== 'decoded' && !poison)) return false;
    if (this.radix) {
      if (!this.canInsertTree(r)) return false;
      this.insertTree(r);
      return true;
    }
    if (r.group < 0 || this.cache.has(r.group) || this.sharesFirstPage(r)) return false;
    const first = r.table[0];
    if (first === undefined || this.page(first).holder !== admissionLabel(r.admission)) return false;
    this.page(first).holder = groupLabel(r.group);
    this.touched.add(first);
    this.cache.set(r.group, first);
    r.inserted = true;
    this.inserts++;
    if (this.eviction) this.locks.set(r.group, (this.locks.get(r.group) ?? 0) + 1);
    return true;
  }
}
