/**
 * Page symmetry, under allocator `any` only. There an allocation may take any free pages,
 * every choice its own action, and no other action, guard or property looks at a page id
 * except to compare it for equality: renaming pages maps every execution to an execution.
 * (Under `sorted`, `sglang` and `lifo` the order of ids decides what is handed out, so
 * pages are not interchangeable there.)
 *
 * The canonical form is exact over renamings of pages and of interchangeable requests
 * together: for every renaming of requests (within their classes, symmetry.ts) the pages
 * are renamed canonically, and the least encoding wins. The page renaming for a fixed
 * request order: pages in the order they first appear in the page tables (requests in
 * index order, entries in table order), then the pages in no table, ordered by holder,
 * data, tag, free-list copies and (with token slots) fill counts, which is all there is to such a page. Two states that
 * differ by a page renaming get the same form, and so, taking the least over the request
 * renamings, do two states of one orbit of the whole group.
 */
import { NO_PAGE, type Model } from '../spec/model.ts';
import type { Field } from '../spec/layout.ts';
import { setTablePage, tablePage, type State } from '../spec/state.ts';
import { identityLabelMap, renameRequests, type Canonicalizer } from './symmetry.ts';
import { wordState } from '../checker/words.ts';

/** The canonicalizer of allocator `any`: pages and interchangeable requests together. */
export class PageCanonicalizer implements Canonicalizer {
  private readonly m: Model;
  /** Every renaming of requests within their classes, the identity first. */
  private readonly perms: readonly Int32Array[];
  private readonly labelMap: Uint16Array;
  /** The per-page variables, in byte order (the layout table's page scope): what moves with a renamed page, and the key of a page in no table. */
  private readonly pageFields: readonly Field[];
  /** Per old page id: its new id, or -1 while not yet given one. */
  private readonly newId: Int16Array;
  /** The pages in no table, in key order. */
  private readonly rest: Int16Array;
  private readonly renamed: Uint8Array;
  private readonly candidate: Uint8Array;
  readonly output: Uint8Array;
  readonly outputWords: Int32Array;

  constructor(m: Model, classes: readonly number[][]) {
    this.m = m;
    this.perms = requestRenamings(m.n, classes);
    this.labelMap = identityLabelMap(m);
    this.pageFields = m.layout.order.filter((f) => f.row.scope === 'page');
    this.newId = new Int16Array(m.pages);
    this.rest = new Int16Array(m.pages);
    this.renamed = new Uint8Array(m.size);
    this.candidate = new Uint8Array(m.size);
    const out = wordState(m.size);
    this.output = out.bytes;
    this.outputWords = out.words;
  }

  canonical(s: State): State {
    let first = true;
    for (const perm of this.perms) {
      renameRequests(this.m, s, perm, this.labelMap, this.renamed);
      this.renamePages(this.renamed, first ? this.output : this.candidate);
      if (!first && lessThan(this.candidate, this.output)) this.output.set(this.candidate);
      first = false;
    }
    return this.output;
  }

  /** Writes `s` with its pages renamed canonically (for its request order) into `out`. */
  private renamePages(s: Uint8Array, out: Uint8Array): void {
    const m = this.m;
    const id = this.newId;
    id.fill(-1);
    let next = 0;
    for (let r = 0; r < m.n; r++) {
      for (let i = 0; i < m.len[r]!; i++) {
        const p = tablePage(m, s, r, i);
        if (p !== NO_PAGE && id[p] === -1) id[p] = next++;
      }
    }
    // The pages in no table, by key (insertion sort: a handful of pages).
    let count = 0;
    for (let p = 0; p < m.pages; p++) {
      if (id[p] !== -1) continue;
      let j = count++;
      while (j > 0 && this.compare(s, this.rest[j - 1]!, p) > 0) {
        this.rest[j] = this.rest[j - 1]!;
        j--;
      }
      this.rest[j] = p;
    }
    for (let k = 0; k < count; k++) id[this.rest[k]!] = next++;
    out.set(s);
    // Every per-page variable moves with its page (holder, data, tag, position, free copies, fill counts).
    for (const f of this.pageFields) {
      for (let p = 0; p < m.pages; p++) {
        const q = id[p]!;
        for (let k = 0; k < f.width; k++) out[f.at + f.width * q + k] = s[f.at + f.width * p + k]!;
      }
    }
    for (let r = 0; r < m.n; r++) {
      for (let i = 0; i < m.len[r]!; i++) {
        const p = tablePage(m, s, r, i);
        setTablePage(m, out, r, i, p === NO_PAGE ? NO_PAGE : id[p]!);
      }
    }
  }

  /** Orders two pages that are in no table by what they are: their per-page variables in byte order (holder, data, tag, content position, free copies, and with token slots the fill counts), one-byte values (allocator `any` is refused long before a width grows). */
  private compare(s: Uint8Array, a: number, b: number): number {
    for (const f of this.pageFields) {
      const d = s[f.at + a]! - s[f.at + b]!;
      if (d !== 0) return d;
    }
    return 0;
  }
}

/** Every renaming of requests that permutes each class among itself, the identity first. */
function requestRenamings(n: number, classes: readonly number[][]): Int32Array[] {
  let out: Int32Array[] = [Int32Array.from({ length: n }, (_, r) => r)];
  for (const members of classes) {
    const next: Int32Array[] = [];
    for (const base of out) {
      for (const order of permutations(members)) {
        const perm = base.slice();
        members.forEach((r, i) => (perm[r] = order[i]!));
        next.push(perm);
      }
    }
    out = next;
  }
  return out;
}

/** Every order of `xs`, `xs` itself first. */
function permutations(xs: readonly number[]): number[][] {
  if (xs.length <= 1) return [[...xs]];
  const out: number[][] = [];
  xs.forEach((x, i) => {
    for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

/** Whether byte string `a` sorts strictly before `b` (same length). */
function lessThan(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]!;
  }
  return false;
}
