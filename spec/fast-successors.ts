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
 * offsets in locals, the free pages are found once per state, and a read record's
 * severity is a table lookup (the same table as `fast-properties.ts`, from `verdictOf`).
 *
 * Successors come out exactly as the expanders give them: the same states, in the
 * spec's action order, each a `slice()` of the input (so a `ScratchState` writes it
 * straight into the search's batch). A test holds this to `step` over `allActions` on
 * every reachable state of configurations of the family
 * (test/checker/fast-successors.test.ts); a configuration outside it gets `undefined`
 * and the expanders.
 */
import { allActions, ACTION_KINDS } from './actions.ts';
import type { Model } from './model.ts';
import { isOverLong } from './model.ts';
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
  return actions.every((a, i) => a.kind === KINDS[Math.floor(i / m.n)] && a.r === i % m.n && a.pages === undefined) && ACTION_KINDS.slice(0, KINDS.length).every((k, i) => k === KINDS[i]);
}

/** The fast successor function of `m`, or `undefined` when `m` is outside the family. */
export function fastSuccessorsOf(m: Model): ((s: State, sink: Sink) => void) | undefined {
  if (!inFastFamily(m)) return undefined;
  const n = m.n;
  const pages = m.pages;
  const first = m.firstPage;
  const { holderAt, dataAt, dataPosAt, phaseAt, flagsAt, observedAt, observedBytes, stepsAt } = m;
  const len = Int32Array.from(m.len);
  const tableAt = Int32Array.from(m.tableAt);
  const readAt = Int32Array.from(m.readAt);
  const overLong = Uint8Array.from({ length: n }, (_, r) => (isOverLong(m, r) ? 1 : 0));
  const silentStub = m.silentStub;
  // A finished request's table is dead and cleared (liveness.ts), unless the naive encoding keeps it.
  const clearOnFree = !m.keepDeadState;
  // Per request: where its severities start, 256 per table position (verdictOf on every record byte).
  const sevAt = new Int32Array(n);
  let cells = 0;
  for (let r = 0; r < n; r++) {
    sevAt[r] = cells * 256;
    cells += len[r]!;
  }
  const sev = new Uint8Array(cells * 256);
  for (let r = 0; r < n; r++) for (let i = 0; i < len[r]!; i++) for (let rec = 0; rec < 256; rec++) sev[sevAt[r]! + i * 256 + rec] = severity(verdictOf(m, r, i, rec));
  const free = new Int32Array(pages);
  const normalFree = (phase: number): boolean => phase === Ph.decoded || phase === Ph.refused || phase === Ph.failed;

  return (s, sink) => {
    // The free pages, ascending: the sorted allocator hands out the lowest (allocator.ts, takeInto).
    let freeCount = 0;
    for (let p = first; p < pages; p++) if (s[holderAt + p] === 0) free[freeCount++] = p;

    // allocate: a new request takes the lowest free pages as its table.
    for (let r = 0; r < n; r++) {
      const need = len[r]!;
      if (s[phaseAt + r] !== Ph.new || freeCount < need) continue;
      const t = s.slice();
      const at = tableAt[r]!;
      for (let k = 0; k < need; k++) {
        const p = free[k]!;
        t[holderAt + p] = r + 1;
        t[at + k] = p;
      }
      t[phaseAt + r] = Ph.allocated;
      sink(t, r);
    }

    // prefill: P writes the request's own data into every page of its table, for its position.
    for (let r = 0; r < n; r++) {
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

    // stub: an over-long request is refused, or (silent stub) written as one dummy page at position 0.
    for (let r = 0; r < n; r++) {
      if (s[phaseAt + r] !== Ph.allocated || overLong[r] === 0) continue;
      const t = s.slice();
      if (silentStub) {
        const p = s[tableAt[r]!] ?? 0xff;
        if (p !== 0xff) {
          t[dataAt + p] = r + 1;
          t[dataPosAt + p] = 0;
        }
        t[phaseAt + r] = Ph.written;
      } else t[phaseAt + r] = Ph.refused;
      sink(t, 2 * n + r);
    }

    // handoff: a written request goes to decode.
    for (let r = 0; r < n; r++) {
      if (s[phaseAt + r] !== Ph.written) continue;
      const t = s.slice();
      t[phaseAt + r] = Ph.handedOff;
      sink(t, 3 * n + r);
    }

    // decode: one step reads every page of the table: read set, read records (the worse kept), unheld reads.
    for (let r = 0; r < n; r++) {
      if (s[phaseAt + r] !== Ph.handedOff) continue;
      const at = tableAt[r]!;
      const l = len[r]!;
      let whole = true;
      for (let i = 0; i < l; i++) if (s[at + i] === 0xff) whole = false;
      if (!whole) {
        // A table with an empty slot: the readable transition says what that reads.
        const t = decode(m, s, r);
        if (t !== undefined) sink(t, 4 * n + r);
        continue;
      }
      const t = s.slice();
      const o = observedAt + observedBytes * r;
      let observed = 0;
      for (let k = 0; k < observedBytes; k++) observed |= s[o + k]! << (8 * k);
      let unheld = false;
      const rec0 = readAt[r]!;
      const sev0 = sevAt[r]!;
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        const label = s[dataAt + p]!;
        const record = READ | (label & READ_LABEL) | (label !== 0 && s[dataPosAt + p] !== i ? MISPLACED : 0);
        if ((label & READ_LABEL) !== 0) observed |= 1 << ((label & READ_LABEL) - 1);
        const old = s[rec0 + i]!;
        const row = sev0 + 256 * i;
        t[rec0 + i] = (old & READ) === 0 || sev[row + record]! > sev[row + old]! ? record : old;
        if (s[holderAt + p] !== r + 1) unheld = true;
      }
      for (let k = 0; k < observedBytes; k++) t[o + k] = (observed >>> (8 * k)) & 0xff;
      if (unheld) t[flagsAt + r] = t[flagsAt + r]! | READ_UNHELD;
      t[stepsAt + r] = s[stepsAt + r]! + 1;
      t[phaseAt + r] = Ph.decoded;
      sink(t, 4 * n + r);
    }

    // free: the table's pages go back to the free list (nobody holds them); the request is freed and its table dies.
    for (let r = 0; r < n; r++) {
      if (!normalFree(s[phaseAt + r]!)) continue;
      const t = s.slice();
      const at = tableAt[r]!;
      const l = len[r]!;
      // No prefixes in the family, so no shared prefix pages to skip.
      for (let i = 0; i < l; i++) {
        const p = s[at + i]!;
        if (p !== 0xff) t[holderAt + p] = 0;
      }
      t[phaseAt + r] = Ph.freed;
      if (clearOnFree) for (let i = 0; i < l; i++) t[at + i] = 0xff;
      sink(t, 5 * n + r);
    }
  };
}
