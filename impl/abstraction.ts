/**
 * The abstraction function: what a pool driven with a small configuration means in the
 * spec's terms. Slot `r` is request `r` of the configuration; serials map back to request
 * labels, prefix groups to prefix labels, and the result is a state in the spec's own
 * byte layout (spec/model.ts, spec/state.ts). Refinement is then "the bytes are equal"
 * after every step, and {@link refinementDiff} says in words where they are not. The pool
 * keeps a finished request's table; the spec resets it once it is dead, so the
 * abstraction sets each request's phase through the spec's own `enter`
 * (spec/liveness.ts), which resets what dies with it. A retracted request's saved copy is
 * the pool's while it waits to be loaded, and the spec's initial value otherwise.
 */
import { bodyLabel, NO_PAGE as SPEC_NO_PAGE, type Model } from '../spec/model.ts';
import { enter } from '../spec/liveness.ts';
import { readRecord } from '../spec/reads.ts';
import { addObserved, initial, setAuxHolder, setAuxPayload, setAuxRoom, Ph, PHASES, setDepth, setDraft, setDraftPending, setHolder, setHostReused, setLoad, setNodeLock, setPartsLanded, setSourceFreed, setPool, setReadRecord, setSavedPage, setSteps, setTablePage, setTag, writeContent, type State } from '../spec/state.ts';
import { view } from '../spec/view.ts';
import { freeList, releaseList } from '../spec/allocator.ts';
import { lacking, uncoveredIn } from '../spec/coverage.ts';
import { groupOfLabel, STALE_DATA } from './options.ts';
import type { PagePool } from './pool.ts';
import { ServingPool } from './serving-pool.ts';
import { SlotPool } from './slot-pool.ts';
import { DraftPool } from './draft-pool.ts';
import { RadixPool } from './radix-pool.ts';
import { LoadbackPool } from './loadback-pool.ts';
import { TornPool } from './torn-pool.ts';
import { AuxPool } from './aux-pool.ts';
import { loadsBack } from '../spec/loadback.ts';
import { POOL_COVERAGE } from './coverage.ts';

/** The pool's labels in the spec's alphabet; throws on a label that no request or prefix of the model has. */
function specLabel(m: Model, pool: PagePool, label: number): number {
  if (label === 0) return 0;
  if (label === STALE_DATA) return m.staleLabel;
  if (label < 0) {
    // Prefix page k of the pool is the spec's k-th prefix label: both number the groups' pages in turn.
    const k = groupOfLabel(label);
    if (k < m.labels - m.n) return m.n + 1 + k;
  } else {
    for (let r = 0; r < m.n; r++) if (pool.phase(r) !== Ph.new && pool.serial(r) === label) return bodyLabel(r);
  }
  throw new Error(`abstraction: the pool holds label ${label}, which no request or prefix of the model has`);
}

/** The spec state that the pool's state stands for; throws when the pool is too small for the model, or holds what the spec cannot express. */
export function abstractState(m: Model, pool: PagePool): State {
  const refused = uncoveredIn(POOL_COVERAGE, m.config);
  if (refused !== undefined) throw new Error(`abstraction: ${POOL_COVERAGE.consumer} ${lacking(POOL_COVERAGE, refused)}; it cannot stand for a configuration with it`);
  // Under sglang and lifo both count the padding page 0 among the page ids.
  if (pool.holder.length !== m.pages || pool.options.slots < m.n || pool.behaviour.allocator !== m.allocator) {
    throw new Error(
      `abstraction: a pool of ${pool.holder.length} page ids, ${pool.options.slots} slots and order ${pool.behaviour.allocator} cannot stand for ${m.pages} page ids, ${m.n} requests and order ${m.allocator}`,
    );
  }
  const s = initial(m);
  abstractFreeList(m, pool, s);
  if (m.lockAt >= 0) for (let g = 0; g < m.groups; g++) s[m.lockAt + g] = pool.locks[g] ?? 0;
  for (let p = 0; p < m.pages; p++) {
    // Through the spec's setters, whose widths follow the configuration (spec/layout.ts).
    setHolder(m, s, p, specLabel(m, pool, pool.holder[p] ?? 0));
    // Token slots: the spec keeps fills only with more than one slot per page, and tag counts only under an owner check.
    writeContent(m, s, p, specLabel(m, pool, pool.data[p] ?? 0), pool.position[p] ?? 0, m.fillAt >= 0 ? (pool.fill[p] ?? 0) : m.pageSize);
    setTag(m, s, p, specLabel(m, pool, pool.tag[p] ?? 0));
    if (m.tagFillAt >= 0) s[m.tagFillAt + p] = pool.tagFill[p] ?? 0;
  }
  for (let r = 0; r < m.n; r++) abstractRequest(m, pool, s, r);
  if (m.config.stateSlots === true && pool instanceof SlotPool) abstractSlots(m, pool, s);
  if (m.config.draft === true && pool instanceof DraftPool) abstractDraft(m, pool, s);
  if (m.radix && pool instanceof RadixPool) abstractTree(m, pool, s);
  if (loadsBack(m) && pool instanceof LoadbackPool) abstractLoads(m, pool, s);
  if (m.config.faults.includes('aux-torn') && pool instanceof AuxPool) {
    setAuxHolder(m, s, specLabel(m, pool, pool.aux[0] ?? 0));
    setAuxRoom(m, s, specLabel(m, pool, pool.aux[1] ?? 0));
    setAuxPayload(m, s, specLabel(m, pool, pool.aux[2] ?? 0));
  }
  if (m.sourcePages && pool instanceof TornPool) for (let r = 0; r < m.n; r++) setSourceFreed(m, s, r, pool.sourceFreed[r] === 1);
  // Torn writes: the parts of each request's write that have landed (the tag's only under an owner check).
  if (m.layout.fields.dataParts !== undefined && pool instanceof TornPool) for (let r = 0; r < m.n; r++) setPartsLanded(m, s, r, pool.dataParts[r] ?? 0, m.ownerCheck ? (pool.tagParts[r] ?? 0) : 0);
  return s;
}

/** The radix tree (spec/radix.ts): each page's node lock_ref, each request's last node's depth. */
function abstractTree(m: Model, pool: RadixPool, s: State): void {
  for (let p = 0; p < m.pages; p++) setNodeLock(m, s, p, pool.nodeLock[p] ?? 0);
  for (let r = 0; r < m.n; r++) setDepth(m, s, r, pool.depth[r] ?? 0);
}

/** The host tier (spec/loadback.ts): each request's load as it is, each prefix's host copy reused or not. */
function abstractLoads(m: Model, pool: LoadbackPool, s: State): void {
  for (let r = 0; r < m.n; r++) setLoad(m, s, r, pool.load[r] ?? 0);
  for (let g = 0; g < m.groups; g++) if (pool.hostReused[g] === 1) setHostReused(m, s, g);
}

/** The draft model's KV (spec/draft.ts): each page's draft label, and each request's pending draft part. */
function abstractDraft(m: Model, pool: DraftPool, s: State): void {
  for (let p = 0; p < m.pages; p++) setDraft(m, s, p, specLabel(m, pool, pool.draft[p] ?? 0));
  for (let r = 0; r < m.n; r++) setDraftPending(m, s, r, pool.draftPending[r] === 1);
}

/** D's state slots and metadata rows (spec/state-slots.ts): holders and contents as labels, each request's indices as they are. */
function abstractSlots(m: Model, pool: SlotPool, s: State): void {
  for (let k = 0; k < m.n; k++) {
    setPool(m, s, 'stateHolder', k, specLabel(m, pool, pool.stateHolder[k] ?? 0));
    setPool(m, s, 'stateOf', k, specLabel(m, pool, pool.stateOf[k] ?? 0));
    setPool(m, s, 'metaHolder', k, specLabel(m, pool, pool.metaHolder[k] ?? 0));
    setPool(m, s, 'metaOf', k, specLabel(m, pool, pool.metaOf[k] ?? 0));
    setPool(m, s, 'stateIdx', k, pool.stateIdx[k] ?? 0);
    setPool(m, s, 'metaIdx', k, pool.metaIdx[k] ?? 0);
  }
}

/** Request `r`'s fields of `s` from slot `r` of the pool: phase, flags, table, steps, reads, and a retracted request's saved copy. */
function abstractRequest(m: Model, pool: PagePool, s: State, r: number): void {
  const width = pool.options.maxLength;
  const phase = pool.phase(r);
  s[m.flagsAt + r] = pool.flags[r] ?? 0;
  const length = pool.lengths[r] ?? 0;
  // The pool's table holds the pages taken so far: the prompt's, then under tableGrowth one per grow.
  if (length !== 0 && (length < (m.promptPages[r] ?? 0) || length > (m.len[r] ?? 0))) {
    throw new Error(`abstraction: slot ${r} holds a table of ${length} pages, the model's request takes ${m.promptPages[r] ?? 0} to ${m.len[r] ?? 0}`);
  }
  for (let i = 0; i < length; i++) {
    const page = pool.tables[r * width + i] ?? -1;
    setTablePage(m, s, r, i, page >= 0 && page < m.pages ? page : SPEC_NO_PAGE);
  }
  for (const label of pool.labelsRead(r)) addObserved(m, s, r, specLabel(m, pool, label));
  for (let i = 0; i < (pool.readCounts[r] ?? 0); i++) {
    setReadRecord(m, s, r, i, readRecord(specLabel(m, pool, pool.reads[r * width + i] ?? 0), pool.readPositions[r * width + i] ?? 0, i));
  }
  setSteps(m, s, r, pool.steps(r));
  // The spec keeps the copy only while it waits to be loaded; the pool's stays, unread, until the next retraction overwrites it.
  if (phase === Ph.retracted && pool instanceof ServingPool) {
    for (let i = 0; i < length; i++) {
      const copy = pool.savedCopy(r, i);
      const tag = m.ownerCheck ? specLabel(m, pool, copy.tag) : 0;
      setSavedPage(m, s, r, i, { label: specLabel(m, pool, copy.label), pos: copy.pos, fill: m.fillAt >= 0 ? copy.fill : m.pageSize, tag, tagFill: m.tagFillAt >= 0 ? copy.tagFill : m.pageSize });
    }
  }
  // Through the spec's own phase accessor, which resets what dies with a finished request's table (spec/liveness.ts).
  enter(m, s, r, PHASES[phase] ?? 'new');
}

/** The spec's free-list fields (spec/allocator.ts), where the order keeps them: copies per page, `sglang`'s release list, `lifo`'s order. */
function abstractFreeList(m: Model, pool: PagePool, s: State): void {
  for (let p = 0; p < m.pages; p++) {
    if (m.freeAt >= 0) s[m.freeAt + p] = pool.freeCopies(p);
    if (m.releaseAt >= 0) s[m.releaseAt + p] = pool.releaseCopies(p);
  }
  if (m.listAt < 0) return;
  const order = pool.freeOrder();
  if (order.length > m.listCap) throw new Error(`abstraction: the pool's free list has ${order.length} entries, the spec's holds ${m.listCap}`);
  s.fill(SPEC_NO_PAGE, m.listAt, m.listAt + m.listCap);
  order.forEach((p, i) => (s[m.listAt + i] = p));
}

/** Whether two states are the same bytes. */
export function sameState(a: State, b: State): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Where the implementation's abstracted state differs from the spec's, one line per field, in words. */
export function refinementDiff(m: Model, spec: State, impl: State): string[] {
  const a = view(m, spec);
  const b = view(m, impl);
  const lines: string[] = [];
  const show = (x: unknown): string => (x === null ? 'none' : Array.isArray(x) ? `[${x.join(',')}]` : String(x));
  const field = (where: string, name: string, x: unknown, y: unknown): void => {
    if (show(x) !== show(y)) lines.push(`${where} ${name}: spec ${show(x)}, impl ${show(y)}`);
  };
  a.pages.forEach((p, i) => {
    const q = b.pages[i];
    if (q === undefined) return;
    field(`page ${p.id}`, 'holder', p.holder, q.holder);
    field(`page ${p.id}`, 'data', p.data, q.data);
    field(`page ${p.id}`, 'tag', p.tag, q.tag);
  });
  a.requests.forEach((r, i) => {
    const q = b.requests[i];
    if (q === undefined) return;
    field(r.name, 'phase', r.phase, q.phase);
    field(r.name, 'table', r.table, q.table);
    field(r.name, 'read', r.read, q.read);
    field(r.name, 'hit', r.hit, q.hit);
    field(r.name, 'inserted', r.inserted, q.inserted);
    field(r.name, 'readUnheld', r.readUnheld, q.readUnheld);
  });
  field('the', 'free list', freeList(m, spec), freeList(m, impl));
  field('the', 'release list', releaseList(m, spec), releaseList(m, impl));
  a.requests.forEach((r, i) => field(r.name, 'steps', r.steps, b.requests[i]?.steps));
  if (lines.length > 0) return lines;
  // What the view does not show (lock counts, positions, fills, read records, saved copies): the layout's variables, raw.
  for (const f of m.layout.order) {
    const [x, y] = [spec.subarray(f.at, f.at + f.bytes), impl.subarray(f.at, f.at + f.bytes)];
    if (!sameState(x, y)) lines.push(`variable ${f.name}: spec [${x.join(',')}], impl [${y.join(',')}]`);
  }
  return lines;
}
