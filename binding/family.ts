/**
 * The plainest family of configurations, for the search's fast path: whole pages (one
 * slot per page), the `sorted` allocator, no prompt prefixes, no eviction, no owner
 * check, one decode step, at most fault `silent-stub`, one-byte widths ({@link oneByteLayout}). Here the
 * six actions of that family (`allocate`, `prefill`, `stub`, `handoff`, `decode`,
 * `free`) are written out by byte offset, every guard and effect the readable one in
 * `spec/transitions.ts` has under the family, with what the family switches off left out.
 *
 * An action's effect is a list of changes (byte offset, new value) at distinct offsets:
 * applied to a copy of a state it gives the successor, and folded into the parent's
 * Zobrist fingerprint it gives the successor's fingerprint without writing anything
 * (`successors.ts` does both, kind by kind, for the search).
 */
import { allActions } from '../spec/actions.ts';
import { isOverLong, type Model } from '../spec/model.ts';
import { severity, verdictOf } from '../spec/reads.ts';
import { BYTE_LABEL, BYTE_MISPLACED, BYTE_READ, Ph, READ_UNHELD, recordOfByte, type State } from '../spec/state.ts';
import { decode } from '../spec/transitions.ts';

/** The action kinds of the family, in the spec's order: the kinds `allActions` gives there. */
export const KINDS = ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free'] as const;

/** Whether `m` is in the family (see above). */
export function inFastFamily(m: Model): boolean {
  const faultsOn = Object.entries(m.fault).filter(([, on]) => on).map(([f]) => f);
  const mechanisms = Object.values(m.mechanism).some((on) => on);
  return (
    m.pageSize === 1 &&
    m.allocator === 'sorted' &&
    m.freeAt < 0 &&
    m.listAt < 0 &&
    m.releaseAt < 0 &&
    m.groups === 0 &&
    !m.eviction &&
    !m.ownerCheck &&
    !mechanisms &&
    m.decodeSteps === 1 &&
    oneByteLayout(m) &&
    m.fillAt < 0 &&
    !m.rereadsFinishedTable &&
    faultsOn.every((f) => f === 'silent-stub') &&
    sameActions(m)
  );
}

/** Whether labels and read records are one byte: what the fast invariants (`properties.ts`) read by offset; page ids they read through `tablePage`, at any width. */
export function oneByteLabels(m: Model): boolean {
  return m.layout.widths.label === 1 && m.layout.widths.record === 1;
}

/**
 * Whether every variable the fast encodings read by offset is as wide as they were written
 * for: labels, page ids, positions, counts and read records of one byte, a read set of at
 * most 32 bits (`layout.ts`). A wider configuration takes the general path, so stale
 * fast code never reads a two-byte value as one byte.
 */
export function oneByteLayout(m: Model): boolean {
  const w = m.layout.widths;
  return w.label === 1 && w.page === 1 && w.position === 1 && w.parts === 1 && w.record === 1 && w.labelSet <= 4;
}

/** Whether `allActions(m)` is the family's: each of {@link KINDS} for every request, kind-major. */
function sameActions(m: Model): boolean {
  const actions = allActions(m);
  if (actions.length !== KINDS.length * m.n) return false;
  return actions.every((a, i) => a.kind === KINDS[Math.floor(i / m.n)] && a.r === i % m.n && a.pages === undefined);
}

/** The family's layout for one model, and its actions as change lists. */
export class FastFamily {
  readonly m: Model;
  readonly n: number;
  readonly pages: number;
  readonly first: number;
  readonly holderAt: number;
  readonly dataAt: number;
  readonly dataPosAt: number;
  readonly phaseAt: number;
  readonly flagsAt: number;
  readonly observedAt: number;
  readonly observedBytes: number;
  readonly stepsAt: number;
  readonly len: Int32Array;
  readonly tableAt: Int32Array;
  readonly readAt: Int32Array;
  readonly overLong: Uint8Array;
  readonly silentStub: boolean;
  /** A finished request's table is dead and cleared (liveness.ts), unless the naive encoding keeps it. */
  readonly clearOnFree: boolean;
  /** Per request: where its severities start, 256 per table position (verdictOf on every record byte). */
  readonly sevAt: Int32Array;
  readonly sev: Uint8Array;
  /** The free pages of the state being expanded, ascending, and how many. */
  readonly free: Int32Array;
  freeCount = 0;
  /** The last action's changes: byte offsets and their new values (distinct offsets). */
  readonly off: Int32Array;
  readonly val: Int32Array;
  count = 0;

  constructor(m: Model) {
    this.m = m;
    this.n = m.n;
    this.pages = m.pages;
    this.first = m.firstPage;
    this.holderAt = m.holderAt;
    this.dataAt = m.dataAt;
    this.dataPosAt = m.dataPosAt;
    this.phaseAt = m.phaseAt;
    this.flagsAt = m.flagsAt;
    this.observedAt = m.observedAt;
    this.observedBytes = m.observedBytes;
    this.stepsAt = m.stepsAt;
    this.len = Int32Array.from(m.len);
    this.tableAt = Int32Array.from(m.tableAt);
    this.readAt = Int32Array.from(m.readAt);
    this.overLong = Uint8Array.from({ length: m.n }, (_, r) => (isOverLong(m, r) ? 1 : 0));
    this.silentStub = m.silentStub;
    this.clearOnFree = !m.keepDeadState;
    this.sevAt = new Int32Array(m.n);
    let cells = 0;
    for (let r = 0; r < m.n; r++) {
      this.sevAt[r] = cells * 256;
      cells += this.len[r]!;
    }
    this.sev = new Uint8Array(cells * 256);
    for (let r = 0; r < m.n; r++) {
      for (let i = 0; i < this.len[r]!; i++) for (let rec = 0; rec < 256; rec++) this.sev[this.sevAt[r]! + i * 256 + rec] = severity(verdictOf(m, r, i, recordOfByte(rec)));
    }
    this.free = new Int32Array(m.pages);
    this.off = new Int32Array(m.size);
    this.val = new Int32Array(m.size);
  }

  /** Writes action `a`'s changes of `s` into `out` (a copy of `s`). */
  apply(s: State, a: number, out: Uint8Array): void {
    // Only allocate (the first kind) reads the free pages.
    if (a < this.n) this.scanFree(s);
    if (!this.changes(s, a)) throw new Error(`spec: action ${a} is not enabled in the state it was applied to`);
    for (let k = 0; k < this.count; k++) out[this.off[k]!] = this.val[k]!;
  }

  /** The free pages of `s`, ascending: the sorted allocator hands out the lowest (allocator.ts, takeInto). */
  scanFree(s: State): void {
    let c = 0;
    for (let p = this.first; p < this.pages; p++) if (s[this.holderAt + p] === 0) this.free[c++] = p;
    this.freeCount = c;
  }

  /** Fills the change list of action number `a` in `s`; false when it is not enabled. */
  changes(s: State, a: number): boolean {
    const n = this.n;
    const kind = (a / n) | 0;
    const r = a - kind * n;
    // The phase guard first: it is what most actions fail.
    const phase = s[this.phaseAt + r]!;
    this.count = 0;
    switch (kind) {
      case 0:
        return phase === Ph.new && this.allocate(r);
      case 1:
        return phase === Ph.allocated && this.overLong[r] === 0 && this.prefill(s, r);
      case 2:
        return phase === Ph.allocated && this.overLong[r] === 1 && this.stub(s, r);
      case 3:
        return phase === Ph.written && this.set(this.phaseAt + r, Ph.handedOff);
      case 4:
        return phase === Ph.handedOff && this.decode(s, r);
      default:
        return (phase === Ph.decoded || phase === Ph.refused || phase === Ph.failed) && this.release(s, r);
    }
  }

  /** A change at an offset not changed yet by this action; true, for chaining into a guard. */
  private set(o: number, v: number): boolean {
    this.off[this.count] = o;
    this.val[this.count++] = v & 0xff;
    return true;
  }

  /** A change at an offset this action may have changed already (a page's byte: a table may name a page twice): the last value wins. */
  private setPage(o: number, v: number): void {
    for (let k = 0; k < this.count; k++) {
      if (this.off[k] === o) {
        this.val[k] = v & 0xff;
        return;
      }
    }
    this.set(o, v);
  }

  /** allocate: a new request takes the lowest free pages as its table, if there are enough. */
  private allocate(r: number): boolean {
    const need = this.len[r]!;
    if (this.freeCount < need) return false;
    const at = this.tableAt[r]!;
    for (let k = 0; k < need; k++) {
      const p = this.free[k]!;
      this.set(this.holderAt + p, r + 1);
      this.set(at + k, p);
    }
    return this.set(this.phaseAt + r, Ph.allocated);
  }

  /** prefill: P writes the request's own data into every page of its table, for its position. */
  private prefill(s: State, r: number): boolean {
    const at = this.tableAt[r]!;
    for (let i = 0; i < this.len[r]!; i++) {
      const p = s[at + i]!;
      if (p === 0xff) continue;
      this.setPage(this.dataAt + p, r + 1);
      this.setPage(this.dataPosAt + p, i);
    }
    return this.set(this.phaseAt + r, Ph.written);
  }

  /** stub: an over-long request is refused, or (silent stub) written as one dummy page at position 0. */
  private stub(s: State, r: number): boolean {
    if (!this.silentStub) return this.set(this.phaseAt + r, Ph.refused);
    const p = s[this.tableAt[r]!] ?? 0xff;
    if (p !== 0xff) {
      this.set(this.dataAt + p, r + 1);
      this.set(this.dataPosAt + p, 0);
    }
    return this.set(this.phaseAt + r, Ph.written);
  }

  /** decode: one step reads every page of the table: read set, read records (the worse kept), unheld reads. */
  private decode(s: State, r: number): boolean {
    const at = this.tableAt[r]!;
    const l = this.len[r]!;
    for (let i = 0; i < l; i++) if (s[at + i] === 0xff) return this.readable(s, r);
    const w = this.observedBytes;
    const o = this.observedAt + w * r;
    let observed = 0;
    for (let k = 0; k < w; k++) observed |= s[o + k]! << (8 * k);
    let unheld = false;
    const rec0 = this.readAt[r]!;
    const sev0 = this.sevAt[r]!;
    for (let i = 0; i < l; i++) {
      const p = s[at + i]!;
      const label = s[this.dataAt + p]!;
      const record = BYTE_READ | (label & BYTE_LABEL) | (label !== 0 && s[this.dataPosAt + p] !== i ? BYTE_MISPLACED : 0);
      if ((label & BYTE_LABEL) !== 0) observed |= 1 << ((label & BYTE_LABEL) - 1);
      const old = s[rec0 + i]!;
      const row = sev0 + 256 * i;
      const kept = (old & BYTE_READ) === 0 || this.sev[row + record]! > this.sev[row + old]! ? record : old;
      if (kept !== old) this.set(rec0 + i, kept);
      if (s[this.holderAt + p] !== r + 1) unheld = true;
    }
    for (let k = 0; k < w; k++) {
      const byte = (observed >>> (8 * k)) & 0xff;
      if (byte !== s[o + k]) this.set(o + k, byte);
    }
    if (unheld) this.set(this.flagsAt + r, s[this.flagsAt + r]! | READ_UNHELD);
    this.set(this.stepsAt + r, s[this.stepsAt + r]! + 1);
    return this.set(this.phaseAt + r, Ph.decoded);
  }

  /** decode of a table with an empty slot (never reached in the family, where a live table is whole): the readable transition, as changes. */
  private readable(s: State, r: number): boolean {
    const t = decode(this.m, Uint8Array.from(s), r);
    if (t === undefined) return false;
    for (let o = 0; o < this.m.size; o++) if (t[o] !== s[o]) this.set(o, t[o]!);
    return true;
  }

  /** free: the table's pages go back to the free list (nobody holds them); the request is freed and its table dies. */
  private release(s: State, r: number): boolean {
    const at = this.tableAt[r]!;
    const l = this.len[r]!;
    // No prefixes in the family, so no shared prefix pages to skip.
    for (let i = 0; i < l; i++) {
      const p = s[at + i]!;
      if (p !== 0xff) this.setPage(this.holderAt + p, 0);
    }
    if (this.clearOnFree) for (let i = 0; i < l; i++) this.set(at + i, 0xff);
    return this.set(this.phaseAt + r, Ph.freed);
  }
}

