/**
 * A fast form of the spec's successor generation, for the search's hot loop, on the
 * plainest family of configurations: whole pages (one slot per page), the `sorted`
 * allocator, no prompt prefixes, no eviction, no owner check, one decode step, at most
 * fault `silent-stub`, page ids of one byte. The readable transitions are in
 * `transitions.ts`; here the same six actions (`allocate`, `prefill`, `stub`, `handoff`,
 * `decode`, `free`) are written out for that family by byte offset, every guard and
 * effect the readable one has under it, with what the family switches off left out.
 *
 * Why: the readable transitions ask the model for every switch and offset through
 * dozens of small accessors per successor, which V8 cannot all inline; a successor cost
 * about as much as the rest of the search together. Here each kind is one loop with the
 * offsets in fields, the free pages are found once per state, and a read record's
 * severity is a table lookup (the same table as `fast-properties.ts`, from `verdictOf`).
 *
 * An action's effect is computed as a list of changes (byte offset, new value), and
 * used two ways: applied to a copy of the state (`successors`, through `slice()`, so that
 * a `ScratchState` writes it straight into the search's batch), or folded into the
 * parent's Zobrist fingerprint without writing anything (`hashed`, for the search of
 * `checker/bfs-hashed.ts`, which writes only the successors that are new).
 *
 * Quiet successors (`checker/model.ts`): `prefill`, `stub` and `handoff` change only page
 * contents and their positions (`data`, `dataPos`) and a phase from one live phase to
 * another (allocated to written, refused, handed off), none of which the conjoined
 * invariants read (they read read records, flags, liveness, tables, holders and the free
 * list), so those invariants have the same values after them as before.
 *
 * Successors come out exactly as the expanders give them: the same states, in the
 * spec's action order. A test holds both ways to `step` over `allActions` on every
 * reachable state of configurations of the family (test/checker/fast-successors.test.ts);
 * a configuration outside it gets `undefined` and the expanders.
 */
import type { FingerprintSink, HashedSuccessors } from '../checker/model.ts';
import type { Zobrist } from '../checker/zobrist.ts';
import { allActions } from './actions.ts';
import { isOverLong, type Model } from './model.ts';
import { severity, verdictOf } from './reads.ts';
import { MISPLACED, Ph, READ, READ_LABEL, READ_UNHELD, type State } from './state.ts';
import { decode } from './transitions.ts';

/** Receives a successor and the index (in `allActions`) of the action that made it. */
type Sink = (t: State, action: number) => void;

/** The action kinds of the family, in the spec's order: the kinds `allActions` gives there. */
const KINDS = ['allocate', 'prefill', 'stub', 'handoff', 'decode', 'free'] as const;

/** Whether `m` is in the family this file covers (see above). */
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
    m.pageBytes === 1 &&
    m.fillAt < 0 &&
    !m.rereadsFinishedTable &&
    faultsOn.every((f) => f === 'silent-stub') &&
    sameActions(m)
  );
}

/** Whether `allActions(m)` is the family's: each of {@link KINDS} for every request, kind-major. */
function sameActions(m: Model): boolean {
  const actions = allActions(m);
  if (actions.length !== KINDS.length * m.n) return false;
  return actions.every((a, i) => a.kind === KINDS[Math.floor(i / m.n)] && a.r === i % m.n && a.pages === undefined);
}

/** The fast successor function of `m`, or `undefined` when `m` is outside the family. */
export function fastSuccessorsOf(m: Model): ((s: State, sink: Sink) => void) | undefined {
  if (!inFastFamily(m)) return undefined;
  const family = new Family(m);
  return (s, sink) => family.successors(s, sink);
}

/** The fingerprint-first successors of `m` (`checker/model.ts`), or `undefined` when `m` is outside the family. */
export function fastHashedOf(m: Model): HashedSuccessors | undefined {
  if (!inFastFamily(m)) return undefined;
  const family = new Family(m);
  return {
    fingerprints: (s, h1, h2, z, sink) => family.fingerprints(s, h1, h2, z, sink),
    apply: (s, action, out) => family.apply(s, action, out),
  };
}

/** The family's actions as change lists. */
class Family {
  private readonly m: Model;
  private readonly n: number;
  private readonly pages: number;
  private readonly first: number;
  private readonly holderAt: number;
  private readonly dataAt: number;
  private readonly dataPosAt: number;
  private readonly phaseAt: number;
  private readonly flagsAt: number;
  private readonly observedAt: number;
  private readonly observedBytes: number;
  private readonly stepsAt: number;
  private readonly len: Int32Array;
  private readonly tableAt: Int32Array;
  private readonly readAt: Int32Array;
  private readonly overLong: Uint8Array;
  private readonly silentStub: boolean;
  /** A finished request's table is dead and cleared (liveness.ts), unless the naive encoding keeps it. */
  private readonly clearOnFree: boolean;
  /** Per request: where its severities start, 256 per table position (verdictOf on every record byte). */
  private readonly sevAt: Int32Array;
  private readonly sev: Uint8Array;
  /** The free pages of the state being expanded, ascending, and how many. */
  private readonly free: Int32Array;
  private freeCount = 0;
  /** The last action's changes: byte offsets and their new values (distinct offsets). */
  private readonly off: Int32Array;
  private readonly val: Int32Array;
  private count = 0;

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
      for (let i = 0; i < this.len[r]!; i++) for (let rec = 0; rec < 256; rec++) this.sev[this.sevAt[r]! + i * 256 + rec] = severity(verdictOf(m, r, i, rec));
    }
    this.free = new Int32Array(m.pages);
    this.off = new Int32Array(m.size);
    this.val = new Int32Array(m.size);
  }

  /**
   * Every successor of `s`, written into a `slice()`, in action order (kind-major, then
   * request). Written out per kind with the offsets in locals, like {@link fingerprints};
   * decode, and a table with an empty slot, go through the change list.
   */
  successors(s: State, sink: Sink): void {
    const n = this.n;
    const { phaseAt, holderAt, dataAt, dataPosAt, len, tableAt, overLong } = this;
    // The free pages are looked for once, and only when some request is new.
    let scanned = false;
    for (let r = 0; r < n; r++) {
      // allocate: a new request takes the lowest free pages as its table.
      const need = len[r]!;
      if (s[phaseAt + r] !== Ph.new) continue;
      if (!scanned) this.scanFree(s);
      scanned = true;
      if (this.freeCount < need) continue;
      const t = s.slice();
      const at = tableAt[r]!;
      for (let k = 0; k < need; k++) {
        const p = this.free[k]!;
        t[holderAt + p] = r + 1;
        t[at + k] = p;
      }
      t[phaseAt + r] = Ph.allocated;
      sink(t, r);
    }
    for (let r = 0; r < n; r++) {
      // prefill: P writes the request's own data into every page of its table, for its position.
      if (s[phaseAt + r] !== Ph.allocated || overLong[r] === 1) continue;
      const t = s.slice();
      const at = tableAt[r]!;
      for (let i = 0; i < len[r]!; i++) {
        const p = s[at + i]!;
        if (p === 0xff) continue;
        t[dataAt + p] = r + 1;
        t[dataPosAt + p] = i;
      }
      t[phaseAt + r] = Ph.written;
      sink(t, n + r);
    }
    for (let r = 0; r < n; r++) {
      if (s[phaseAt + r] !== Ph.allocated || overLong[r] === 0) continue;
      this.sliceVia(s, 2 * n + r, sink);
    }
    for (let r = 0; r < n; r++) {
      // handoff: a written request goes to decode.
      if (s[phaseAt + r] !== Ph.written) continue;
      const t = s.slice();
      t[phaseAt + r] = Ph.handedOff;
      sink(t, 3 * n + r);
    }
    for (let r = 0; r < n; r++) {
      if (s[phaseAt + r] !== Ph.handedOff) continue;
      this.sliceVia(s, 4 * n + r, sink);
    }
    for (let r = 0; r < n; r++) {
      // free: the table's pages are held by nobody; the request is freed and its table dies.
      const phase = s[phaseAt + r];
      if (phase !== Ph.decoded && phase !== Ph.refused && phase !== Ph.failed) continue;
      const t = s.slice();
      const at = tableAt[r]!;
      const l = len[r]!;
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        if (p !== 0xff) t[holderAt + p] = 0;
      }
      if (this.clearOnFree) for (let i = 0; i < l; i++) t[at + i] = 0xff;
      t[phaseAt + r] = Ph.freed;
      sink(t, 5 * n + r);
    }
  }

  /** Action `a`'s successor through its change list, written into a `slice()`, to `sink` when it is enabled. */
  private sliceVia(s: State, a: number, sink: Sink): void {
    if (!this.changes(s, a)) return;
    const t = s.slice();
    for (let k = 0; k < this.count; k++) t[this.off[k]!] = this.val[k]!;
    sink(t, a);
  }

  /**
   * Every successor of `s` as its action and fingerprint: `(h1, h2)`, `s`'s, with each
   * changed byte's old value's numbers out and the new one's in. Written out per kind
   * with the fingerprint in locals (the change lists cost more than the rest together);
   * a table that names a page twice (never in the family's reachable states) goes
   * through the change list, where the last write to a byte wins.
   */
  fingerprints(s: State, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
    const lo = z.lo;
    const hi = z.hi;
    const n = this.n;
    const { phaseAt, holderAt, dataAt, dataPosAt, len, tableAt, overLong } = this;
    // The free pages are looked for once, and only when some request is new.
    let scanned = false;
    for (let r = 0; r < n; r++) {
      // allocate: holders of the lowest free pages, the table, the phase.
      const need = len[r]!;
      if (s[phaseAt + r] !== Ph.new) continue;
      if (!scanned) this.scanFree(s);
      scanned = true;
      if (this.freeCount < need) continue;
      let x = h1;
      let y = h2;
      const at = tableAt[r]!;
      for (let k = 0; k < need; k++) {
        const p = this.free[k]!;
        let b = (holderAt + p) << 8;
        x ^= lo[b | s[holderAt + p]!]! ^ lo[b | (r + 1)]!;
        y ^= hi[b | s[holderAt + p]!]! ^ hi[b | (r + 1)]!;
        b = (at + k) << 8;
        x ^= lo[b | s[at + k]!]! ^ lo[b | p]!;
        y ^= hi[b | s[at + k]!]! ^ hi[b | p]!;
      }
      const b = (phaseAt + r) << 8;
      sink(r, x ^ lo[b | Ph.new]! ^ lo[b | Ph.allocated]!, y ^ hi[b | Ph.new]! ^ hi[b | Ph.allocated]!);
    }
    for (let r = 0; r < n; r++) {
      // prefill: each table page's data and position, the phase.
      if (s[phaseAt + r] !== Ph.allocated || overLong[r] === 1) continue;
      const at = tableAt[r]!;
      const l = len[r]!;
      if (this.namesPageTwice(s, at, l)) {
        this.viaChanges(s, n + r, h1, h2, lo, hi, sink, true);
        continue;
      }
      let x = h1;
      let y = h2;
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        if (p === 0xff) continue;
        let b = (dataAt + p) << 8;
        x ^= lo[b | s[dataAt + p]!]! ^ lo[b | (r + 1)]!;
        y ^= hi[b | s[dataAt + p]!]! ^ hi[b | (r + 1)]!;
        b = (dataPosAt + p) << 8;
        x ^= lo[b | s[dataPosAt + p]!]! ^ lo[b | i]!;
        y ^= hi[b | s[dataPosAt + p]!]! ^ hi[b | i]!;
      }
      const b = (phaseAt + r) << 8;
      sink(n + r, x ^ lo[b | Ph.allocated]! ^ lo[b | Ph.written]!, y ^ hi[b | Ph.allocated]! ^ hi[b | Ph.written]!, true);
    }
    for (let r = 0; r < n; r++) {
      // stub: as its change list says (a refusal, or one dummy page): rare.
      if (s[phaseAt + r] !== Ph.allocated || overLong[r] === 0) continue;
      this.viaChanges(s, 2 * n + r, h1, h2, lo, hi, sink, true);
    }
    for (let r = 0; r < n; r++) {
      // handoff: the phase alone.
      if (s[phaseAt + r] !== Ph.written) continue;
      const b = (phaseAt + r) << 8;
      sink(3 * n + r, h1 ^ lo[b | Ph.written]! ^ lo[b | Ph.handedOff]!, h2 ^ hi[b | Ph.written]! ^ hi[b | Ph.handedOff]!, true);
    }
    for (let r = 0; r < n; r++) {
      // decode: the request's own bytes (read records, read set, flags, steps, phase), as `decode` below computes them.
      if (s[phaseAt + r] !== Ph.handedOff) continue;
      const at = tableAt[r]!;
      const l = len[r]!;
      let whole = true;
      for (let i = 0; i < l; i++) if (s[at + i] === 0xff) whole = false;
      if (!whole) {
        this.viaChanges(s, 4 * n + r, h1, h2, lo, hi, sink);
        continue;
      }
      let x = h1;
      let y = h2;
      const w = this.observedBytes;
      const o = this.observedAt + w * r;
      let observed = 0;
      for (let k = 0; k < w; k++) observed |= s[o + k]! << (8 * k);
      let unheld = false;
      const rec0 = this.readAt[r]!;
      const sev0 = this.sevAt[r]!;
      const sev = this.sev;
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        const label = s[dataAt + p]!;
        const record = READ | (label & READ_LABEL) | (label !== 0 && s[dataPosAt + p] !== i ? MISPLACED : 0);
        if ((label & READ_LABEL) !== 0) observed |= 1 << ((label & READ_LABEL) - 1);
        const old = s[rec0 + i]!;
        const row = sev0 + 256 * i;
        if ((old & READ) === 0 || sev[row + record]! > sev[row + old]!) {
          const b = (rec0 + i) << 8;
          x ^= lo[b | old]! ^ lo[b | record]!;
          y ^= hi[b | old]! ^ hi[b | record]!;
        }
        if (s[holderAt + p] !== r + 1) unheld = true;
      }
      for (let k = 0; k < w; k++) {
        const b = (o + k) << 8;
        const was = s[o + k]!;
        const now = (observed >>> (8 * k)) & 0xff;
        x ^= lo[b | was]! ^ lo[b | now]!;
        y ^= hi[b | was]! ^ hi[b | now]!;
      }
      if (unheld) {
        const b = (this.flagsAt + r) << 8;
        const was = s[this.flagsAt + r]!;
        x ^= lo[b | was]! ^ lo[b | (was | READ_UNHELD)]!;
        y ^= hi[b | was]! ^ hi[b | (was | READ_UNHELD)]!;
      }
      let b = (this.stepsAt + r) << 8;
      const steps = s[this.stepsAt + r]!;
      x ^= lo[b | steps]! ^ lo[b | ((steps + 1) & 0xff)]!;
      y ^= hi[b | steps]! ^ hi[b | ((steps + 1) & 0xff)]!;
      b = (phaseAt + r) << 8;
      sink(4 * n + r, x ^ lo[b | Ph.handedOff]! ^ lo[b | Ph.decoded]!, y ^ hi[b | Ph.handedOff]! ^ hi[b | Ph.decoded]!);
    }
    for (let r = 0; r < n; r++) {
      // free: the table's pages held by nobody, the table cleared, the phase.
      const phase = s[phaseAt + r]!;
      if (phase !== Ph.decoded && phase !== Ph.refused && phase !== Ph.failed) continue;
      const at = tableAt[r]!;
      const l = len[r]!;
      if (this.namesPageTwice(s, at, l)) {
        this.viaChanges(s, 5 * n + r, h1, h2, lo, hi, sink);
        continue;
      }
      let x = h1;
      let y = h2;
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        if (p === 0xff) continue;
        const b = (holderAt + p) << 8;
        x ^= lo[b | s[holderAt + p]!]! ^ lo[b]!;
        y ^= hi[b | s[holderAt + p]!]! ^ hi[b]!;
      }
      if (this.clearOnFree) {
        for (let i = 0; i < l; i++) {
          const b = (at + i) << 8;
          x ^= lo[b | s[at + i]!]! ^ lo[b | 0xff]!;
          y ^= hi[b | s[at + i]!]! ^ hi[b | 0xff]!;
        }
      }
      const b = (phaseAt + r) << 8;
      sink(5 * n + r, x ^ lo[b | phase]! ^ lo[b | Ph.freed]!, y ^ hi[b | phase]! ^ hi[b | Ph.freed]!);
    }
  }

  /** Whether the table at `at` (`l` slots) names some page twice (empty slots aside). */
  private namesPageTwice(s: State, at: number, l: number): boolean {
    for (let i = 1; i < l; i++) {
      const p = s[at + i]!;
      if (p === 0xff) continue;
      for (let j = 0; j < i; j++) if (s[at + j] === p) return true;
    }
    return false;
  }

  /** Action `a`'s fingerprint through its change list, to `sink` (with `quiet`) when it is enabled. */
  private viaChanges(s: State, a: number, h1: number, h2: number, lo: Int32Array, hi: Int32Array, sink: FingerprintSink, quiet = false): void {
    if (!this.changes(s, a)) return;
    let x = h1;
    let y = h2;
    for (let k = 0; k < this.count; k++) {
      const o = this.off[k]!;
      const was = (o << 8) | s[o]!;
      const now = (o << 8) | this.val[k]!;
      x ^= lo[was]! ^ lo[now]!;
      y ^= hi[was]! ^ hi[now]!;
    }
    sink(a, x, y, quiet);
  }

  /** Writes action `a`'s changes of `s` into `out` (a copy of `s`). */
  apply(s: State, a: number, out: Uint8Array): void {
    // Only allocate (the first kind) reads the free pages.
    if (a < this.n) this.scanFree(s);
    if (!this.changes(s, a)) throw new Error(`spec: action ${a} is not enabled in the state it was applied to`);
    for (let k = 0; k < this.count; k++) out[this.off[k]!] = this.val[k]!;
  }

  /** The free pages of `s`, ascending: the sorted allocator hands out the lowest (allocator.ts, takeInto). */
  private scanFree(s: State): void {
    let c = 0;
    for (let p = this.first; p < this.pages; p++) if (s[this.holderAt + p] === 0) this.free[c++] = p;
    this.freeCount = c;
  }

  /** Fills the change list of action number `a` in `s`; false when it is not enabled. */
  private changes(s: State, a: number): boolean {
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
      const record = READ | (label & READ_LABEL) | (label !== 0 && s[this.dataPosAt + p] !== i ? MISPLACED : 0);
      if ((label & READ_LABEL) !== 0) observed |= 1 << ((label & READ_LABEL) - 1);
      const old = s[rec0 + i]!;
      const row = sev0 + 256 * i;
      const kept = (old & READ) === 0 || this.sev[row + record]! > this.sev[row + old]! ? record : old;
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
