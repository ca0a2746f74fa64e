/**
 * A fast form of the spec's successor generation, for the search's hot loop, on the
 * plainest family of configurations: whole pages (one slot per page), the `sorted`
 * allocator, no prompt prefixes, no eviction, no owner check, one decode step, at most
 * fault `silent-stub`, page ids of one byte. The readable transitions are in
 * `spec/transitions.ts`; here the same six actions (`allocate`, `prefill`, `stub`, `handoff`,
 * `decode`, `free`) are written out for that family by byte offset, every guard and
 * effect the readable one has under it, with what the family switches off left out.
 *
 * Why: the readable transitions ask the model for every switch and offset through
 * dozens of small accessors per successor, which V8 cannot all inline; a successor cost
 * about as much as the rest of the search together. Here each kind is one loop with the
 * offsets in fields, the free pages are found once per state, and a read record's
 * severity is a table lookup (the same table as `properties.ts`, from `verdictOf`).
 *
 * Two ways (the family and its change lists are in `family.ts`): successors written
 * into a copy of the state (`fastSuccessorsOf`, through `slice()`, so that a
 * `ScratchState` writes them straight into the search's batch), or folded into the
 * parent's Zobrist fingerprint without writing anything (`fastHashedOf`, for the search
 * of `checker/bfs-hashed.ts`, which writes only the successors that are new).
 *
 * Quiet successors (`checker/model.ts`): `prefill`, `stub` and `handoff` change only page
 * contents and their positions (`data`, `dataPos`) and a phase from one live phase to
 * another (allocated to written, refused, handed off), none of which the conjoined
 * invariants read (they read read records, flags, liveness, tables, holders and the free
 * list), so those invariants have the same values after them as before.
 *
 * Successors come out exactly as the expanders give them: the same states, in the
 * spec's action order. A test holds both ways to `step` over `allActions` on every
 * reachable state of configurations of the family (test/binding/successors.test.ts);
 * a configuration outside it gets `undefined` and the expanders.
 */
import type { FingerprintSink, HashedSuccessors } from '../checker/model.ts';
import type { Zobrist } from '../checker/zobrist.ts';
import { FastFamily, inFastFamily } from './family.ts';
import type { Model } from '../spec/model.ts';
import { BYTE_LABEL, BYTE_MISPLACED, BYTE_READ, Ph, READ_UNHELD, type State } from '../spec/state.ts';

export { inFastFamily } from './family.ts';

/** Receives a successor and the index (in `allActions`) of the action that made it. */
type Sink = (t: State, action: number) => void;

/** The fast successor function of `m`, or `undefined` when `m` is outside the family. */
export function fastSuccessorsOf(m: Model): ((s: State, sink: Sink) => void) | undefined {
  if (!inFastFamily(m)) return undefined;
  const family = new FastFamily(m);
  return (s, sink) => successors(family, s, sink);
}

/** The fingerprint-first successors of `m` (`checker/model.ts`), or `undefined` when `m` is outside the family. */
export function fastHashedOf(m: Model): HashedSuccessors | undefined {
  if (!inFastFamily(m)) return undefined;
  const family = new FastFamily(m);
  return {
    fingerprints: (s, h1, h2, z, sink) => fingerprints(family, s, h1, h2, z, sink),
    apply: (s, action, out) => family.apply(s, action, out),
  };
}

/**
 * Every successor of `s`, written into a `slice()`, in action order (kind-major, then
 * request). Written out per kind with the offsets in locals, like {@link fingerprints};
 * stub, and decode of a table with an empty slot, go through the change list.
 */
function successors(f: FastFamily, s: State, sink: Sink): void {
  const n = f.n;
  const { phaseAt, holderAt, dataAt, dataPosAt, len, tableAt, overLong } = f;
  // The free pages are looked for once, and only when some request is new.
  let scanned = false;
  for (let r = 0; r < n; r++) {
    // allocate: a new request takes the lowest free pages as its table.
    const need = len[r]!;
    if (s[phaseAt + r] !== Ph.new) continue;
    if (!scanned) f.scanFree(s);
    scanned = true;
    if (f.freeCount < need) continue;
    const t = s.slice();
    const at = tableAt[r]!;
    for (let k = 0; k < need; k++) {
      const p = f.free[k]!;
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
    sliceVia(f, s, 2 * n + r, sink);
  }
  for (let r = 0; r < n; r++) {
    // handoff: a written request goes to decode.
    if (s[phaseAt + r] !== Ph.written) continue;
    const t = s.slice();
    t[phaseAt + r] = Ph.handedOff;
    sink(t, 3 * n + r);
  }
  for (let r = 0; r < n; r++) {
    // decode: read records (the worse kept), read set, unheld reads, steps, phase; a table with an empty slot through the change list.
    if (s[phaseAt + r] !== Ph.handedOff) continue;
    const at = tableAt[r]!;
    const l = len[r]!;
    let whole = true;
    for (let i = 0; i < l; i++) if (s[at + i] === 0xff) whole = false;
    if (!whole) {
      sliceVia(f, s, 4 * n + r, sink);
      continue;
    }
    const t = s.slice();
    const w = f.observedBytes;
    const o = f.observedAt + w * r;
    let observed = 0;
    for (let k = 0; k < w; k++) observed |= s[o + k]! << (8 * k);
    let unheld = false;
    const rec0 = f.readAt[r]!;
    const sev0 = f.sevAt[r]!;
    const sev = f.sev;
    for (let i = 0; i < l; i++) {
      const p = s[at + i]!;
      const label = s[dataAt + p]!;
      const record = BYTE_READ | (label & BYTE_LABEL) | (label !== 0 && s[dataPosAt + p] !== i ? BYTE_MISPLACED : 0);
      if ((label & BYTE_LABEL) !== 0) observed |= 1 << ((label & BYTE_LABEL) - 1);
      const old = s[rec0 + i]!;
      const row = sev0 + 256 * i;
      if ((old & BYTE_READ) === 0 || sev[row + record]! > sev[row + old]!) t[rec0 + i] = record;
      if (s[holderAt + p] !== r + 1) unheld = true;
    }
    for (let k = 0; k < w; k++) t[o + k] = (observed >>> (8 * k)) & 0xff;
    if (unheld) t[f.flagsAt + r] = s[f.flagsAt + r]! | READ_UNHELD;
    t[f.stepsAt + r] = s[f.stepsAt + r]! + 1;
    t[phaseAt + r] = Ph.decoded;
    sink(t, 4 * n + r);
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
    if (f.clearOnFree) for (let i = 0; i < l; i++) t[at + i] = 0xff;
    t[phaseAt + r] = Ph.freed;
    sink(t, 5 * n + r);
  }
}

/** Action `a`'s successor through its change list, written into a `slice()`, to `sink` when it is enabled. */
function sliceVia(f: FastFamily, s: State, a: number, sink: Sink): void {
  if (!f.changes(s, a)) return;
  const t = s.slice();
  for (let k = 0; k < f.count; k++) t[f.off[k]!] = f.val[k]!;
  sink(t, a);
}

/**
 * Every successor of `s` as its action and fingerprint: `(h1, h2)`, `s`'s, with each
 * changed byte's old value's numbers out and the new one's in. Written out per kind
 * with the fingerprint in locals (the change lists cost more than the rest together);
 * a table that names a page twice (never in the family's reachable states) goes
 * through the change list, where the last write to a byte wins.
 */
function fingerprints(f: FastFamily, s: State, h1: number, h2: number, z: Zobrist, sink: FingerprintSink): void {
  const lo = z.lo;
  const hi = z.hi;
  const n = f.n;
  const { phaseAt, holderAt, dataAt, dataPosAt, len, tableAt, overLong } = f;
  // The free pages are looked for once, and only when some request is new.
  let scanned = false;
  for (let r = 0; r < n; r++) {
    // allocate: holders of the lowest free pages, the table, the phase.
    const need = len[r]!;
    if (s[phaseAt + r] !== Ph.new) continue;
    if (!scanned) f.scanFree(s);
    scanned = true;
    if (f.freeCount < need) continue;
    let x = h1;
    let y = h2;
    const at = tableAt[r]!;
    for (let k = 0; k < need; k++) {
      const p = f.free[k]!;
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
    if (namesPageTwice(s, at, l)) {
      viaChanges(f, s, n + r, h1, h2, lo, hi, sink, true);
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
    viaChanges(f, s, 2 * n + r, h1, h2, lo, hi, sink, true);
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
      viaChanges(f, s, 4 * n + r, h1, h2, lo, hi, sink);
      continue;
    }
    let x = h1;
    let y = h2;
    const w = f.observedBytes;
    const o = f.observedAt + w * r;
    let observed = 0;
    for (let k = 0; k < w; k++) observed |= s[o + k]! << (8 * k);
    let unheld = false;
    const rec0 = f.readAt[r]!;
    const sev0 = f.sevAt[r]!;
    const sev = f.sev;
    for (let i = 0; i < l; i++) {
      const p = s[at + i]!;
      const label = s[dataAt + p]!;
      const record = BYTE_READ | (label & BYTE_LABEL) | (label !== 0 && s[dataPosAt + p] !== i ? BYTE_MISPLACED : 0);
      if ((label & BYTE_LABEL) !== 0) observed |= 1 << ((label & BYTE_LABEL) - 1);
      const old = s[rec0 + i]!;
      const row = sev0 + 256 * i;
      if ((old & BYTE_READ) === 0 || sev[row + record]! > sev[row + old]!) {
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
      const b = (f.flagsAt + r) << 8;
      const was = s[f.flagsAt + r]!;
      x ^= lo[b | was]! ^ lo[b | (was | READ_UNHELD)]!;
      y ^= hi[b | was]! ^ hi[b | (was | READ_UNHELD)]!;
    }
    let b = (f.stepsAt + r) << 8;
    const steps = s[f.stepsAt + r]!;
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
    if (namesPageTwice(s, at, l)) {
      viaChanges(f, s, 5 * n + r, h1, h2, lo, hi, sink);
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
    if (f.clearOnFree) {
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
function namesPageTwice(s: State, at: number, l: number): boolean {
  for (let i = 1; i < l; i++) {
    const p = s[at + i]!;
    if (p === 0xff) continue;
    for (let j = 0; j < i; j++) if (s[at + j] === p) return true;
  }
  return false;
}

/** Action `a`'s fingerprint through its change list, to `sink` (with `quiet`) when it is enabled. */
function viaChanges(f: FastFamily, s: State, a: number, h1: number, h2: number, lo: Int32Array, hi: Int32Array, sink: FingerprintSink, quiet = false): void {
  if (!f.changes(s, a)) return;
  let x = h1;
  let y = h2;
  for (let k = 0; k < f.count; k++) {
    const o = f.off[k]!;
    const was = (o << 8) | s[o]!;
    const now = (o << 8) | f.val[k]!;
    x ^= lo[was]! ^ lo[now]!;
    y ^= hi[was]! ^ hi[now]!;
  }
  sink(a, x, y, quiet);
}
