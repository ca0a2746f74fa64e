/**
 * Symmetry reduction. Requests of equal length and equal prefix behave alike: renaming
 * them maps every execution to an execution and every property to itself, because no
 * action, guard or predicate looks at a request's index, only at labels it compares for
 * equality. Pages are not symmetric (`allocate` takes the lowest free ids), so only
 * requests are permuted.
 *
 * The canonical form of a state is the lexicographically least encoding among its
 * renamings that order each class by a key. The key is invariant under renaming (phase,
 * flags, page table, prefix reads, the number of pages holding its own data), so two
 * states of one orbit have the same set of key-ordered renamings and the same least one:
 * the form is exact, not a heuristic. Requests with equal keys are tried in every order;
 * requests still `new` are identical and never tried twice.
 *
 * Which bytes move under a renaming is read from the layout table (`spec/layout.ts`'s
 * `moves` column, as `requestFields` and `labelBytes` in `model.ts`), so a new state
 * variable is permuted by its row there. Labels, read records and read sets of any width
 * the layout gives are renamed.
 */
import { wordState } from '../checker/words.ts';
import type { Model } from '../spec/model.ts';
import type { RequestField } from '../spec/layout.ts';
import { PageCanonicalizer } from './page-symmetry.ts';
import { BYTE_LABEL, dataOf, Ph, READ_LABEL, type State } from '../spec/state.ts';
import { oneByteLayout } from './family.ts';
import { compareHighBits, moveLabelSets } from './label-sets.ts';

/** Maps a state to the canonical member of its orbit. */
export interface Canonicalizer {
  /** The canonical form of `s`: `s` itself, or {@link Canonicalizer.output}, which the next call overwrites. */
  canonical(s: State): State;
  /** The buffer `canonical` returns when the form is not its argument. */
  readonly output: Uint8Array;
  /** The same buffer as zero-padded words (see `words.ts`). */
  readonly outputWords: Int32Array;
}

/** The classes of interchangeable requests (indices ascending), only those of two or more. */
export function symmetryClasses(m: Model): number[][] {
  const classes = new Map<string, number[]>();
  for (let r = 0; r < m.n; r++) {
    // Tokens, not pages: two requests of one page count but different lengths read different slots.
    const key = `${m.tokens[r]}:${m.group[r]}`;
    const members = classes.get(key);
    if (members === undefined) classes.set(key, [r]);
    else members.push(r);
  }
  return [...classes.values()].filter((c) => c.length > 1);
}

/** A canonicalizer for `m`, or `undefined` when no two requests are interchangeable. */
export function createCanonicalizer(m: Model): Canonicalizer | undefined {
  const classes = symmetryClasses(m);
  // Under allocator `any` pages are interchangeable too (page-symmetry.ts).
  if (m.allocator === 'any') {
    // `any` is refused past a few hundred actions (decode.ts), far below where a width grows.
    if (!oneByteLayout(m)) throw new Error('symmetry: page symmetry is written for one-byte widths');
    return new PageCanonicalizer(m, classes);
  }
  return classes.length === 0 ? undefined : new ClassCanonicalizer(m, classes);
}

/** Canonicalization by sorting each class on a renaming-invariant key, then breaking ties by trying every order. */
class ClassCanonicalizer implements Canonicalizer {
  private readonly m: Model;
  private readonly classes: readonly Int32Array[];
  /** The current renaming: request `r` becomes request `perm[r]`. */
  private readonly perm: Int32Array;
  /** Per request: how many pages hold its own data (a renaming-invariant part of the key). */
  private readonly own: Int32Array;
  /** Per class: its members in key order. */
  private readonly order: Int32Array[];
  private readonly labelMap: Uint16Array;
  readonly output: Uint8Array;
  readonly outputWords: Int32Array;
  private readonly candidate: Uint8Array;
  /** Tie runs found in the current state: class, start and end (exclusive) in `order`. */
  private readonly runs: number[] = [];

  constructor(m: Model, classes: readonly number[][]) {
    this.m = m;
    this.classes = classes.map((c) => Int32Array.from(c));
    this.perm = new Int32Array(m.n);
    this.own = new Int32Array(m.n);
    this.order = classes.map((c) => new Int32Array(c.length));
    const out = wordState(m.size);
    this.output = out.bytes;
    this.outputWords = out.words;
    this.candidate = new Uint8Array(m.size);
    this.labelMap = identityLabelMap(m);
  }

  canonical(s: State): State {
    const m = this.m;
    for (let r = 0; r < m.n; r++) this.perm[r] = r;
    const narrow = m.layout.widths.label === 1;
    for (let p = 0; p < m.pages; p++) {
      const d = narrow ? s[m.dataAt + p]! : dataOf(m, s, p);
      if (d >= 1 && d <= m.n) this.own[d - 1] = this.own[d - 1]! + 1;
    }
    this.runs.length = 0;
    let identity = true;
    for (let c = 0; c < this.classes.length; c++) {
      const members = this.classes[c]!;
      const order = this.order[c]!;
      // Insertion sort: classes are a handful of requests.
      for (let i = 0; i < members.length; i++) {
        const r = members[i]!;
        let j = i;
        while (j > 0 && this.compare(s, order[j - 1]!, r) > 0) {
          order[j] = order[j - 1]!;
          j--;
        }
        order[j] = r;
      }
      for (let i = 0; i < members.length; i++) {
        this.perm[order[i]!] = members[i]!;
        if (order[i] !== members[i]) identity = false;
      }
      for (let i = 0; i < members.length; ) {
        let j = i + 1;
        while (j < members.length && s[m.phaseAt + order[i]!] !== Ph.new && this.compare(s, order[i]!, order[j]!) === 0) j++;
        if (j - i > 1) this.runs.push(c, i, j);
        i = j;
      }
    }
    for (let r = 0; r < m.n; r++) this.own[r] = 0;
    if (this.runs.length === 0) {
      if (identity) return s;
      this.apply(s, this.output);
      return this.output;
    }
    this.apply(s, this.output);
    this.tryOrders(s, 0);
    return this.output;
  }

  /** Orders requests `a` and `b` of one class by the renaming-invariant key: every value field in layout order, own pages, then the prefix part of every label set. */
  private compare(s: State, a: number, b: number): number {
    const fields = this.m.requestFields;
    for (let f = 0; f < fields.length; f++) {
      const field = fields[f]!;
      if (field.kind !== 'value') continue;
      const fa = field.at[a]!;
      const fb = field.at[b]!;
      const width = field.width[a]!;
      for (let i = 0; i < width; i++) {
        const d = s[fa + i]! - s[fb + i]!;
        if (d !== 0) return d;
      }
    }
    const d = this.own[a]! - this.own[b]!;
    if (d !== 0) return d;
    // Read bits of prefix labels (above the n request labels) do not change under renaming.
    for (let f = 0; f < fields.length; f++) {
      const field = fields[f]!;
      if (field.kind !== 'labelSet') continue;
      const e = compareHighBits(s, field.at[a]!, field.at[b]!, field.width[a]!, this.m.n);
      if (e !== 0) return e;
    }
    return 0;
  }

  /** Tries every order of the tie runs from `k` on, keeping the least encoding in `output`. */
  private tryOrders(s: State, k: number): void {
    if (k === this.runs.length) {
      this.apply(s, this.candidate);
      if (lessThan(this.candidate, this.output)) this.output.set(this.candidate);
      return;
    }
    const c = this.runs[k]!;
    const start = this.runs[k + 1]!;
    const end = this.runs[k + 2]!;
    const members = this.classes[c]!;
    const order = this.order[c]!;
    // Swap recursion over the run's positions: every order of its requests exactly once.
    const permute = (i: number): void => {
      if (i === end) {
        for (let x = start; x < end; x++) this.perm[order[x]!] = members[x]!;
        this.tryOrders(s, k + 3);
        return;
      }
      for (let x = i; x < end; x++) {
        swap(order, i, x);
        permute(i + 1);
        swap(order, i, x);
      }
    };
    permute(start);
  }

  /** Writes `s` with every request `r` renamed to `perm[r]` into `out`. */
  private apply(s: State, out: Uint8Array): void {
    renameRequests(this.m, s, this.perm, this.labelMap, out);
  }
}

/** A label renaming scratch: the identity on every label value a state can hold (every byte value, at least). */
export function identityLabelMap(m: Model): Uint16Array {
  return Uint16Array.from({ length: Math.max(256, m.staleLabel + 1) }, (_, l) => l);
}

/**
 * Writes `s` with every request `r` renamed to `perm[r]` into `out`; `map` is an
 * {@link identityLabelMap} scratch, the identity on entry and on exit. The allocator's fields after the
 * tables (free and release lists, lock counts) hold page ids and prefix counts only: a
 * renaming of requests leaves them as they are.
 */
export function renameRequests(m: Model, s: State, perm: Int32Array, map: Uint16Array, out: Uint8Array): void {
  // What no field names (content positions, the allocator's lists, lock counts) stays as it is.
  out.set(s);
  for (let r = 0; r < m.n; r++) map[r + 1] = perm[r]! + 1;
  if (m.layout.widths.label === 1) for (let i = 0; i < m.labelBytes; i++) out[i] = map[s[i]!]!;
  else {
    for (let i = 0; i < m.labelBytes; i += 2) {
      const l = map[s[i]! | (s[i + 1]! << 8)]!;
      out[i] = l & 0xff;
      out[i + 1] = l >>> 8;
    }
  }
  const fields = m.requestFields;
  for (let f = 0; f < fields.length; f++) {
    const field = fields[f]!;
    if (field.kind === 'value') moveValues(field, s, out, perm, m.n);
    else if (field.kind === 'labelSet') moveLabelSets(field, s, out, perm, m.n);
    else if (field.kind === 'requestLabels') moveLabels(field, s, out, perm, map, m.n);
    else moveReadRecords(field, s, out, perm, map, m.n);
  }
  for (let r = 0; r < m.n; r++) map[r + 1] = r + 1;
}

/** Copies each request's bytes of `field` to its renamed place. */
function moveValues(field: RequestField, s: State, out: Uint8Array, perm: Int32Array, n: number): void {
  for (let r = 0; r < n; r++) {
    const from = field.at[r]!;
    const to = field.at[perm[r]!]!;
    const width = field.width[r]!;
    for (let i = 0; i < width; i++) out[to + i] = s[from + i]!;
  }
}

/** Moves each request's labels of `field` (a saved copy's) to its renamed place, renaming each label. */
function moveLabels(field: RequestField, s: State, out: Uint8Array, perm: Int32Array, map: Uint16Array, n: number): void {
  const wide = field.valueWidth === 2;
  const step = wide ? 2 : 1;
  // All-ones is a dead copy's value (liveness.ts), not a label.
  const dead = wide ? 0xffff : 0xff;
  for (let r = 0; r < n; r++) {
    const from = field.at[r]!;
    const to = field.at[perm[r]!]!;
    for (let i = 0, width = field.width[r]!; i < width; i += step) {
      const raw = wide ? s[from + i]! | (s[from + i + 1]! << 8) : s[from + i]!;
      const l = raw === dead ? raw : map[raw]!;
      out[to + i] = l & 0xff;
      if (wide) out[to + i + 1] = l >>> 8;
    }
  }
}

/** Moves each request's read records of `field` to its renamed place, renaming the label in each. */
function moveReadRecords(field: RequestField, s: State, out: Uint8Array, perm: Int32Array, map: Uint16Array, n: number): void {
  const wide = field.valueWidth === 2;
  for (let r = 0; r < n; r++) {
    const from = field.at[r]!;
    const to = field.at[perm[r]!]!;
    const width = field.width[r]!;
    if (!wide) {
      for (let i = 0; i < width; i++) {
        const rec = s[from + i]!;
        out[to + i] = (rec & ~BYTE_LABEL) | map[rec & BYTE_LABEL]!;
      }
      continue;
    }
    for (let i = 0; i < width; i += 2) {
      const rec = s[from + i]! | (s[from + i + 1]! << 8);
      const moved = (rec & ~READ_LABEL) | map[rec & READ_LABEL]!;
      out[to + i] = moved & 0xff;
      out[to + i + 1] = moved >>> 8;
    }
  }
}


function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/** Whether byte string `a` sorts strictly before `b` (same length). */
function lessThan(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]!;
  }
  return false;
}
