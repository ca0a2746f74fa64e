/**
 * The reference model seen as the spec: on a configuration small enough for the spec,
 * with slot `r` standing for request `r` and each slot admitted once, the reference pool's
 * state in the spec's byte layout. Equal bytes after every step anchor the reference model
 * (written from the documentation) to the spec (the code the documentation comes from).
 */
import type { Action } from '../spec/actions.ts';
import { bodyLabel, NO_PAGE, prefixLabel, type Model } from '../spec/model.ts';
import { tableIsDead } from '../spec/liveness.ts';
import { readRecord } from '../spec/reads.ts';
import { EVICTED_FOR, HIT, initial, INSERTED, Ph, READ_UNHELD, RESUMED, addObserved, setDepth, setLock, setNodeLock, setSavedPage, setHolder, setReadRecord, setSteps, setTablePage, setTag, writeContent, type State } from '../spec/state.ts';
import { match } from 'ts-pattern';
import { STALE, type ReferencePool } from './reference.ts';
import { REFERENCE_COVERAGE } from './coverage.ts';
import { lacking, uncoveredIn } from '../spec/coverage.ts';

/** The reference pool that stands for model `m`: its sizes, switches and order, slots not reused; throws on a feature the reference does not follow (scale/coverage.ts), `any` among them. */
export function referenceFor(m: Model): ConstructorParameters<typeof ReferencePool>[0] {
  const refused = uncoveredIn(REFERENCE_COVERAGE, m.config);
  if (refused !== undefined) throw new Error(`reference: ${REFERENCE_COVERAGE.consumer} ${lacking(REFERENCE_COVERAGE, refused)}`);
  const allocator = m.allocator;
  if (allocator === 'any') throw new Error('reference: allocator any was not refused');
  return {
    pages: m.config.pages,
    // The spec's limit is in tokens; the reference's in pages (its admissions are whole pages).
    prefillLimit: Math.floor(m.config.prefillLimit / m.pageSize),
    variant: m.config.variant,
    faults: m.config.faults,
    slots: m.n,
    reuseSlots: false,
    allocator,
    pageSize: m.pageSize,
    decodeSteps: m.decodeSteps,
    tableGrowth: m.tableGrowth,
    retraction: m.config.retraction === true,
    eviction: m.eviction,
    radix: m.radix,
  };
}

/** Applies spec action `a` to the reference pool: the request's own length and prefix on `allocate`. */
export function applyToReference(m: Model, ref: ReferencePool, a: Action): boolean {
  return (
    match(a.kind)
      .with('allocate', () => ref.allocate(a.r, m.promptPages[a.r] ?? 0, m.group[a.r] ?? -1))
      .with('prefill', () => ref.prefill(a.r))
      .with('stub', () => ref.stub(a.r))
      .with('handoff', () => ref.handoff(a.r))
      .with('grow', () => ref.grow(a.r))
      .with('decode', () => ref.decode(a.r))
      .with('free', () => ref.free(a.r))
      .with('timeout', () => ref.timeout(a.r))
      .with('insert', () => ref.insert(a.r))
      .with('evict', () => ref.evict(a.r, m.promptPages[a.r] ?? 0, m.group[a.r] ?? -1))
      .with('retract', () => ref.retract(a.r))
      .with('offload', () => ref.offload(a.r))
      .with('resume', () => ref.resume(a.r))
      // An action the reference does not have is one it refuses: enabled in the spec, that is a difference.
      .otherwise(() => false)
  );
}

/** The spec state the reference pool stands for. */
export function referenceToSpec(m: Model, ref: ReferencePool): State {
  const s = initial(m);
  writeFreeList(m, ref, s);
  const label = (x: number): number => {
    if (x === 0) return 0;
    if (x === STALE) return m.staleLabel;
    if (x < 0) return prefixLabel(m, -x - 1);
    const r = ref.requests[x - 1];
    if (r === undefined) throw new Error(`reference: no admission ${x - 1}`);
    return bodyLabel(r.slot);
  };
  ref.pages.forEach((page, p) => {
    setHolder(m, s, p, label(page.holder));
    writeContent(m, s, p, label(page.data), page.pos, page.fill);
    setTag(m, s, p, label(page.tag), page.tagFill);
    if (m.radix) setNodeLock(m, s, p, page.nodeLock);
  });
  if (m.eviction && !m.radix) ref.locks.forEach((lock, g) => setLock(m, s, g, lock));
  ref.slots.forEach((r, slot) => {
    if (r === undefined) {
      // An eviction made for a request not yet admitted is on its record already.
      if (ref.slotEvicted[slot] === true) s[m.flagsAt + slot] = EVICTED_FOR;
      return;
    }
    s[m.phaseAt + slot] = Ph[r.phase];
    s[m.flagsAt + slot] = (r.hit ? HIT : 0) | (r.inserted ? INSERTED : 0) | (r.readUnheld ? READ_UNHELD : 0) | (r.resumed ? RESUMED : 0) | (r.evictedFor ? EVICTED_FOR : 0);
    if (m.radix) setDepth(m, s, slot, r.depth);
    // A finished request's table that nothing can read again is dead in the spec (spec/liveness.ts): left empty.
    if (!tableIsDead(m, Ph[r.phase])) r.table.forEach((p, i) => setTablePage(m, s, slot, i, p < m.pages ? p : NO_PAGE));
    for (const x of r.seen) addObserved(m, s, slot, label(x));
    // The read record: the worst read at each position over the steps, and for which position.
    r.reads.forEach((x, i) => setReadRecord(m, s, slot, i, readRecord(label(x), r.readPositions[i] ?? 0, i)));
    setSteps(m, s, slot, r.steps);
    // A count the configuration does not store (one slot per page, no owner check) is its absent value, a full page.
    const stored = (name: 'savedFill' | 'savedTagFill', v: number): number => (m.layout.fields[name] === undefined ? m.pageSize : v);
    r.saved?.forEach((c, i) => setSavedPage(m, s, slot, i, { label: label(c.data), pos: c.pos, fill: stored('savedFill', c.fill), tag: label(c.tag), tagFill: stored('savedTagFill', c.tagFill) }));
    // The spec's encoding of a dead table: every variable that dies with it all ones.
    if (tableIsDead(m, Ph[r.phase])) for (const f of m.layout.dying) s.fill(0xff, f.starts![slot]!, f.starts![slot]! + f.width * (m.len[slot] ?? 0));
  });
  return s;
}

/** The spec's free-list fields from the reference's lists: copies per page, the release list, `lifo`'s order. */
function writeFreeList(m: Model, ref: ReferencePool, s: State): void {
  const list = ref.freeList ?? [];
  // `initial` lists every page once already: count afresh.
  if (m.freeAt >= 0) s.fill(0, m.freeAt, m.freeAt + m.pages);
  if (m.freeAt >= 0) for (const p of list) s[m.freeAt + p] = (s[m.freeAt + p] ?? 0) + 1;
  if (m.releaseAt >= 0) for (const p of ref.releaseList) s[m.releaseAt + p] = (s[m.releaseAt + p] ?? 0) + 1;
  if (m.listAt < 0) return;
  s.fill(NO_PAGE, m.listAt, m.listAt + m.listCap);
  list.forEach((p, i) => (s[m.listAt + i] = p));
}
