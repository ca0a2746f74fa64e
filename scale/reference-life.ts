/**
 * A request's life on D in the reference pool, written from the documentation of the
 * actions (the `@guard` and `@effect` of `grow`, `decode`, `retract`, `offload` and
 * `resume` in docs/SPEC.md): decode in several steps, the table growing one page per
 * token past it, and retraction to host memory and back.
 *
 * Decode steps. A request takes `decodeSteps` steps. Each reads the slots up to its
 * length, the prompt's and then one more per token decoded, and under an owner check
 * checks the tags of the pages it reads first. What a position read is kept as the worst
 * read there so far (own content at its position, then garbage, then another user's);
 * every label read is remembered. A step after the first writes its token into the next
 * slot: without growth the table is the prompt's and the token lands in its last slot.
 *
 * Growth. With `tableGrowth` a step whose token falls past the table's last page waits
 * for `grow`, which takes one page through the allocation order (under `sglang` the
 * release list is merged when the free list is empty, `alloc_decode`'s test), clears its
 * tag and writes nothing.
 *
 * Retraction. `retract` copies the table to host memory (page by page: content, position,
 * fill, tag) and releases it as `free` does; with `offload-after-free` the copy is made
 * later, by `offload`, from whatever the old pages hold by then. `resume` takes as many
 * new pages as the table had, matching no prefix, and loads the copy into them (tags
 * stamped with the request's own label); with `resume-stale` it loads nothing.
 */
import { type RefPage, type RefRequest, STALE, admissionLabel, RUNNING } from './reference-types.ts';
import { ReferenceCache } from './reference-cache.ts';

/** The reference pool's decode steps, growth and retraction. */
export class ReferenceLife extends ReferenceCache {
  /** The slot request `r`'s next token goes to: after its prompt and the tokens its earlier steps wrote. */
  private nextToken(r: RefRequest): number {
    return this.promptTokens(r) + Math.max(0, r.steps - 1);
  }

  /** Under `tableGrowth`: whether `r`'s next step (not its first) writes a token past its table's last page. */
  needsPage(r: RefRequest): boolean {
    if (!this.growth || r.steps === 0) return false;
    const i = Math.floor(this.nextToken(r) / this.slotsPerPage);
    return i < this.maxPages(r) && i >= r.table.length;
  }

  /** grow: a decoding request whose next token has no page takes one, if any is free. */
  grow(slot: number): boolean {
    const r = this.slots[slot];
    if (r?.phase !== 'decoding' || !this.needsPage(r) || this.freePages < 1) return false;
    for (const p of this.take(1, true)) this.hand(r, p);
    return true;
  }

  /** How bad reading `label`, written for `pos`, at position `i` is for `r`: 0 its own there, 1 garbage, 2 another user's. */
  private badness(r: RefRequest, i: number, label: number, pos: number): number {
    if (label === 0) return 1;
    if (!this.mayReadAt(r, i, label)) return 2;
    return pos === i ? 0 : 1;
  }

  /** decode: one step; under owner-check a tag it may not read fails the request; else it reads, and a later step writes its token. */
  decode(slot: number): boolean {
    const r = this.slots[slot];
    if (r === undefined || !RUNNING.includes(r.phase) || this.needsPage(r)) return false;
    const size = this.slotsPerPage;
    const end = Math.min(this.nextToken(r), this.maxPages(r) * size);
    const pages = r.table.slice(0, Math.ceil(end / size)).map((p) => this.page(p));
    if (this.ownerCheck && pages.some((page, i) => !this.mayReadAt(r, i, page.tag))) {
      r.phase = 'failed';
      return true;
    }
    pages.forEach((page, i) => {
      // Past a page's fill, its own page holds stale P-side data.
      const stale = page.data !== 0 && page.fill < Math.min(size, end - i * size) && this.mayReadAt(r, i, page.data);
      const [label, pos] = stale ? [STALE, i] : [page.data, page.pos];
      if (i >= r.reads.length || this.badness(r, i, label, pos) > this.badness(r, i, r.reads[i] ?? 0, r.readPositions[i] ?? 0)) {
        r.reads[i] = label;
        r.readPositions[i] = pos;
      }
      if (label !== 0) r.seen.add(label);
    });
    const own = admissionLabel(r.admission);
    if (pages.some((page, i) => page.holder !== own && !(i === 0 && this.sharesFirstPage(r) && this.mayRead(r, page.holder)))) r.readUnheld = true;
    if (r.steps > 0) this.writeToken(r, Math.min(this.nextToken(r), this.maxPages(r) * size - 1));
    r.steps++;
    r.phase = r.steps >= this.decodeSteps ? 'decoded' : 'decoding';
    return true;
  }

  /** The token's write into slot `at` of `r`'s table: its page is `r`'s up to that slot (further, if it was already `r`'s there). */
  private writeToken(r: RefRequest, at: number): void {
    const i = Math.floor(at / this.slotsPerPage);
    const p = r.table[i];
    if (p === undefined) return;
    const page = this.page(p);
    const filled = at - i * this.slotsPerPage + 1;
    const own = admissionLabel(r.admission);
    // Each count grows only over what was already this request's: the content's at this position, the tag's anywhere.
    this.write(p, own, i, page.data === own && page.pos === i ? Math.max(page.fill, filled) : filled, page.tag === own ? Math.max(page.tagFill, filled) : filled);
  }

  /** retract: a running request's table is copied to host memory and released (copied later under `offload-after-free`). */
  retract(slot: number): boolean {
    const r = this.slots[slot];
    if (this.options.retraction !== true || r === undefined || !RUNNING.includes(r.phase)) return false;
    const late = this.faults.has('offload-after-free');
    if (!late) this.copy(r);
    this.release(r);
    this.unlock(r);
    // It shares nothing with the cache any more: a resume matches no prefix.
    r.hit = false;
    r.inserted = false;
    r.depth = 0;
    r.phase = late ? 'offloading' : 'retracted';
    return true;
  }

  /** offload (`offload-after-free`): the late copy reads the old table's pages as they are now. */
  offload(slot: number): boolean {
    const r = this.slots[slot];
    if (!this.faults.has('offload-after-free') || r?.phase !== 'offloading') return false;
    this.copy(r);
    r.phase = 'retracted';
    return true;
  }

  /** The copy to host memory: what each page of `r`'s table holds now. */
  private copy(r: RefRequest): void {
    r.saved = r.table.map((p) => ({ ...this.page(p) }));
  }

  /** resume: a retracted request takes a new table as long as its old one and loads its copy (not under `resume-stale`); it decodes on. */
  resume(slot: number): boolean {
    const r = this.slots[slot];
    if (this.options.retraction !== true || r?.phase !== 'retracted') return false;
    const room = r.table.length;
    if (this.freePages < room) return false;
    // alloc_extend's tokens: those committed so far, at least one in the last page.
    const size = this.slotsPerPage;
    const tokens = Math.min(room * size, Math.max(this.nextToken(r), (room - 1) * size + 1));
    const saved: RefPage[] = r.saved ?? [];
    r.table = [];
    for (const p of this.take(room, false, tokens)) this.hand(r, p);
    if (!this.faults.has('resume-stale')) r.table.forEach((p, i) => this.load(r, p, saved[i]));
    r.saved = undefined;
    r.resumed = true;
    r.phase = r.steps > 0 ? 'decoding' : 'handedOff';
    return true;
  }

  /** The load of one saved page into page `p`: its content, position and fill; under owner-check the request's own tag. */
  private load(r: RefRequest, p: number, copy: RefPage | undefined): void {
    const page = this.page(p);
    page.data = copy?.data ?? 0;
    page.pos = copy?.pos ?? 0;
    page.fill = copy?.fill ?? 0;
    if (this.ownerCheck) {
      page.tag = admissionLabel(r.admission);
      page.tagFill = page.fill;
    }
    this.touched.add(p);
  }
}
