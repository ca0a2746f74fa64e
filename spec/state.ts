/**
 * The state of the model: plain data, one flat byte string per state so that the checker
 * can hash and store it as it is. Read it through the accessors below or through
 * {@link view}; never write into a state you did not just copy.
 *
 * Per page:
 * - holder: who holds the page: nobody (it is on the free list), a request, or the prefix
 *   cache entry of a prompt prefix;
 * - data: whose content the page holds: the request (or prefix) whose write last landed
 *   in it. Never cleared: neither `free` nor `allocate` zeroes KV pages, as in SGLang;
 * - tag (`owner-check` only): the owner tag, stamped with the label of every write and
 *   cleared when `allocate` hands the page out. Zero in the other variants.
 *
 * Per request:
 * - phase: where it is in its lifecycle (see {@link PHASES});
 * - flags: whether its first pages are its prefix's shared pages ({@link HIT}, {@link INSERTED})
 *   and whether its decode read a page it did not hold ({@link READ_UNHELD});
 * - observed: the set of content labels its decode read (bit `label - 1`);
 * - table: its page table, the ordered page ids decode reads; kept after `free`, because a
 *   stale second release frees exactly that list.
 *
 * Per page, appended for content with a position (the layout only grows at its end):
 * - dataPos: the table position the page's content was written for.
 *
 * Per page, appended last and only with more than one token slot per page (`slots.ts`):
 * - fill: how many of its slots, from the first, hold its content; the rest hold stale
 *   P-side data;
 * - tagFill (`owner-check`, `hardened`): how many slots its owner tag says were written
 *   (read only under `hardened`'s `tag-counts-tokens`).
 *
 * Per position, appended last and only with config `retraction` (`retraction.ts`), the
 * saved copy of a retracted request: what its page at that position held when the copy
 * read it:
 * - savedData [savedPageOf]: the content's label (0: a page never written);
 * - savedPos [savedPageOf]: the table position the content was written for;
 * - savedTag (`owner-check`, `hardened`) [savedPageOf]: the owner tag, restored by the
 *   load under `copy-carries-tag`;
 * - savedFill (token slots) [savedPageOf]: how many slots held the content;
 * - savedTagFill (token slots, `owner-check`, `hardened`) [savedPageOf]: how many slots
 *   the tag says were written.
 *
 * Per request, appended for writes as they land and decode as steps:
 * - steps: how many decode steps it has taken;
 * - dataParts (`torn-write`): how many content parts of P's write for it have landed;
 * - tagParts (`torn-write`): how many tag parts of P's write for it have landed;
 * - readRecord: per table position, one byte saying what its decode read there. Over
 *   several steps it keeps the worst read per position (one that breaks `Isolation` over
 *   one that breaks only `Integrity`, over a correct one), the first of equals: what a
 *   step read is never lost by a later step.
 */
import { initFree } from './allocator.ts';
import { NO_PAGE, prefixLabel, prefixLength, type Model } from './model.ts';

/** A state: `Model.size` bytes laid out as `model.ts` describes. */
export type State = Uint8Array;

/** The lifecycle of a request, in the order it normally goes through it. */
export const PHASES = [
  'new',
  'allocated',
  'written',
  'handedOff',
  'decoded',
  'refused',
  'failed',
  'freed',
  'timedOut',
  'landed',
  'released',
  'writing',
  'landing',
  'decoding',
  'retracted',
  'offloading',
] as const;

/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** Phase codes, as stored in the state. */
export const Ph = {
  new: 0,
  allocated: 1,
  written: 2,
  handedOff: 3,
  decoded: 4,
  refused: 5,
  failed: 6,
  freed: 7,
  timedOut: 8,
  landed: 9,
  released: 10,
  writing: 11,
  landing: 12,
  decoding: 13,
  retracted: 14,
  offloading: 15,
} as const satisfies Record<Phase, number>;

/** What each phase means; the documentation's source. */
export const PHASE_DOCS: Readonly<Record<Phase, string>> = {
  new: 'Sent by the router; nothing reserved yet.',
  allocated: 'D reserved a page table for the whole prompt and sent the page ids to P.',
  written: 'P reported Success: it wrote the prompt, or (a silent stub) one dummy page.',
  handedOff: 'D committed the transfer and will decode.',
  decoded: 'D read every page of the table; what it read is recorded.',
  refused: 'P refused the over-long request and told D; nothing was written.',
  failed: 'The owner check found a page the request did not write; the request failed loudly and read nothing.',
  freed: "D released the request's pages; their contents stay as they were.",
  timedOut: "D timed the request out and freed its pages; P's write is still in flight.",
  landed: "P's late write for a timed-out request arrived and landed by page id (under `revoke-writer`, it was dropped).",
  released: 'A second, stale release freed the old page table again.',
  writing: "P posted its write (fault `torn-write`); its content and tag parts are landing, one at a time.",
  landing: "D timed the request out while parts of P's write were still in flight; they land later, by page id.",
  decoding: 'D has taken some of its decode steps, not all; every step read, and checked, every page.',
  retracted: "D retracted the request (config `retraction`): its KV is saved in host memory and its pages are released; it waits to be resumed on new pages.",
  offloading: "D retracted the request and released its pages before the copy to host memory read them (fault `offload-after-free`); the copy is still in flight (`offload`).",
};

/** The request was allocated on its prefix's cached pages (a prefix-cache hit). */
export const HIT = 1;
/** The request's first pages, its prefix's, were inserted into the prefix cache. */
export const INSERTED = 2;
/** The request's decode read a page that it did not hold at the time. */
export const READ_UNHELD = 4;
/** D evicted a cached prefix page to make room for the request. */
export const EVICTED_FOR = 8;
/** The request was resumed after a retraction: it holds pages a second time (flag 16 is `release.ts`'s OVERLAPPED). */
export const RESUMED = 32;

/** Phases in which a request holds its page table. */
export function isLive(phase: number): boolean {
  return (phase >= Ph.allocated && phase <= Ph.failed) || phase === Ph.writing || phase === Ph.decoding;
}

/** Read record: the position was read. Records are read and written as 16-bit values; a one-byte record (labels below 64) stores these bits as {@link BYTE_READ}, {@link BYTE_MISPLACED}, {@link BYTE_LABEL}. */
export const READ = 0x8000;
/** Read record: the content read there was written for another table position. */
export const MISPLACED = 0x4000;
/** Read record: the content label read (0 = a page never written). */
export const READ_LABEL = 0x3fff;
/** A one-byte read record's {@link READ} bit, as the fast encodings store it. */
export const BYTE_READ = 0x80;
/** A one-byte read record's {@link MISPLACED} bit. */
export const BYTE_MISPLACED = 0x40;
/** A one-byte read record's label bits. */
export const BYTE_LABEL = 0x3f;

/** The read record a one-byte record stands for. */
export function recordOfByte(b: number): number {
  return ((b & 0xc0) << 8) | (b & BYTE_LABEL);
}

/** The little-endian value of width `w` (1 or 2) at `at`. */
function get(s: State, at: number, w: number): number {
  return w === 1 ? s[at]! : s[at]! | (s[at + 1]! << 8);
}

/** Writes `v` little-endian in width `w` (1 or 2) at `at`; a value too wide for its field is a bug, and throws. */
function put(t: State, at: number, w: number, v: number): void {
  if (v >>> (8 * w) !== 0) throw new Error(`state: value ${v} does not fit ${w} byte${w === 1 ? '' : 's'} at offset ${at}`);
  t[at] = v & 0xff;
  if (w === 2) t[at + 1] = v >>> 8;
}

/** Writes into a variable that may be absent: a write of 0 (its only value there) changes nothing, any other is a bug. */
function absentWrite(name: string, v: number): void {
  if (v !== 0) throw new Error(`state: ${name} is absent under this configuration, and cannot be set to ${v}`);
}

/** Who holds page `p` (a label; 0 = free). */
export function holderOf(m: Model, s: State, p: number): number {
  const w = m.layout.widths.label;
  return get(s, m.holderAt + w * p, w);
}

/** Whose content page `p` holds (a label; 0 = never written). */
export function dataOf(m: Model, s: State, p: number): number {
  const w = m.layout.widths.label;
  return get(s, m.dataAt + w * p, w);
}

/** Page `p`'s owner tag (a label; 0 = cleared). Without an owner check the variable is absent: no page carries a tag, 0. */
export function tagOf(m: Model, s: State, p: number): number {
  const f = m.layout.fields.tag;
  return f === undefined ? 0 : get(s, f.at + f.width * p, f.width);
}

/** Request `r`'s phase code. */
export function phaseOf(m: Model, s: State, r: number): number {
  return s[m.phaseAt + r]!;
}

/** Request `r`'s flags. */
export function flagsOf(m: Model, s: State, r: number): number {
  return s[m.flagsAt + r]!;
}

/** Request `r`'s read set as a number, bit `label - 1` per label read; only where the set is at most 32 bits (see {@link readsLabel} for any). */
export function observedOf(m: Model, s: State, r: number): number {
  const w = m.observedBytes;
  if (w > 4) throw new Error(`state: a read set of ${w} bytes is not a number; ask readsLabel`);
  const o = m.observedAt + w * r;
  let bits = 0;
  for (let k = 0; k < w; k++) bits |= s[o + k]! << (8 * k);
  return bits >>> 0;
}

/** Writes request `r`'s read set into a state being built, from a number (sets of at most 32 bits; its bits above the model's labels are not stored). */
export function setObserved(m: Model, t: State, r: number, bits: number): void {
  const w = m.observedBytes;
  if (w > 4) throw new Error(`state: a read set of ${w} bytes is not a number; use addObserved`);
  const o = m.observedAt + w * r;
  for (let k = 0; k < w; k++) t[o + k] = (bits >>> (8 * k)) & 0xff;
}

/** Whether request `r`'s read set holds `label` (bit `label - 1`, little-endian over its bytes). */
export function readsLabel(m: Model, s: State, r: number, label: number): boolean {
  const b = label - 1;
  return ((s[m.observedAt + m.observedBytes * r + (b >>> 3)]! >>> (b & 7)) & 1) !== 0;
}

/** Adds `label` to request `r`'s read set in a state being built. */
export function addObserved(m: Model, t: State, r: number, label: number): void {
  const b = label - 1;
  const at = m.observedAt + m.observedBytes * r + (b >>> 3);
  t[at] = t[at]! | (1 << (b & 7));
}

/** The labels in request `r`'s read set, ascending. */
export function observedLabels(m: Model, s: State, r: number): number[] {
  const out: number[] = [];
  for (let label = 1; label <= m.observedBytes * 8; label++) if (readsLabel(m, s, r, label)) out.push(label);
  return out;
}

/** The table position page `p`'s content was written for (meaningless while it was never written). */
export function dataPosOf(m: Model, s: State, p: number): number {
  const w = m.layout.widths.position;
  return get(s, m.dataPosAt + w * p, w);
}

/** How many slots of page `p`, from its first, hold its content; the rest hold stale P-side data (`slots.ts`). With one slot per page the variable is absent: a written page is full. */
export function fillOf(m: Model, s: State, p: number): number {
  return m.fillAt < 0 ? m.pageSize : s[m.fillAt + p]!;
}

/** How many slots page `p`'s owner tag says were written (`tag-counts-tokens`; absent, every slot, with one slot per page or no owner check). */
export function tagFillOf(m: Model, s: State, p: number): number {
  return m.tagFillAt < 0 ? m.pageSize : s[m.tagFillAt + p]!;
}

/** How many decode steps request `r` has taken. */
export function stepsOf(m: Model, s: State, r: number): number {
  return s[m.stepsAt + r]!;
}

/** How many content parts of request `r`'s write have landed (absent without `torn-write`, where no write is in parts: 0). */
export function dataPartsOf(m: Model, s: State, r: number): number {
  const f = m.layout.fields.dataParts;
  return f === undefined ? 0 : get(s, f.at + f.width * r, f.width);
}

/** How many tag parts of request `r`'s write have landed (absent without `torn-write` and an owner check: 0). */
export function tagPartsOf(m: Model, s: State, r: number): number {
  const f = m.layout.fields.tagParts;
  return f === undefined ? 0 : get(s, f.at + f.width * r, f.width);
}

/** Request `r`'s read record at table position `i`: 0 when not read, else {@link READ} with the label read and {@link MISPLACED}. */
export function readRecordOf(m: Model, s: State, r: number, i: number): number {
  const w = m.layout.widths.record;
  const at = m.readAt[r]! + w * i;
  return w === 1 ? recordOfByte(s[at]!) : get(s, at, 2);
}

/** The `i`-th page of request `r`'s table, or {@link NO_PAGE}. */
export function tablePage(m: Model, s: State, r: number, i: number): number {
  const at = m.tableAt[r]! + m.pageBytes * i;
  const raw = m.pageBytes === 1 ? s[at]! : s[at]! | (s[at + 1]! << 8);
  return raw === (m.pageBytes === 1 ? 0xff : 0xffff) ? NO_PAGE : raw;
}

/** Sets the `i`-th page of request `r`'s table in a state being built ({@link NO_PAGE} clears the slot). */
export function setTablePage(m: Model, t: State, r: number, i: number, p: number): void {
  const at = m.tableAt[r]! + m.pageBytes * i;
  t[at] = p & 0xff;
  if (m.pageBytes === 2) t[at + 1] = (p >>> 8) & 0xff;
}

/** Clears request `r`'s whole page table in a state being built: every slot {@link NO_PAGE}. */
export function clearTable(m: Model, t: State, r: number): void {
  const at = m.tableAt[r]!;
  // A loop, not fill(): a builtin call costs more than the few bytes of a table.
  for (let i = at, end = at + m.pageBytes * m.len[r]!; i < end; i++) t[i] = 0xff;
}

/**
 * How many pages request `r`'s live table holds now: its prompt's pages, then under
 * `tableGrowth` the pages `grow` added, in order, up to the first empty position.
 */
export function tableRoom(m: Model, s: State, r: number): number {
  let room = m.promptPages[r]!;
  const len = m.len[r]!;
  while (room < len && tablePage(m, s, r, room) !== NO_PAGE) room++;
  return room;
}

/** Request `r`'s page table (empty before `allocate`). */
export function tableOf(m: Model, s: State, r: number): number[] {
  const out: number[] = [];
  const len = m.len[r]!;
  for (let i = 0; i < len; i++) {
    const p = tablePage(m, s, r, i);
    if (p !== NO_PAGE) out.push(p);
  }
  return out;
}

/** The page cached for page `j` of prefix group `g` (table position `j`), or -1 when the cache holds none. */
export function cachedPage(m: Model, s: State, g: number, j: number): number {
  const label = prefixLabel(m, g, j);
  for (let p = 0; p < m.pages; p++) if (holderOf(m, s, p) === label) return p;
  return -1;
}

/** Whether the cache holds every page of prefix group `g`'s entry: a request with that prefix hits it. */
export function entryCached(m: Model, s: State, g: number): boolean {
  for (let j = 0; j < m.prefixPages[g]!; j++) if (cachedPage(m, s, g, j) < 0) return false;
  return true;
}

/** Whether the cache holds no page of prefix group `g`'s entry: a request with that prefix may insert one. */
export function entryEmpty(m: Model, s: State, g: number): boolean {
  for (let j = 0; j < m.prefixPages[g]!; j++) if (cachedPage(m, s, g, j) >= 0) return false;
  return true;
}

/** Prefix group `g`'s lock count: how many live requests that hit the cache read its pages (0 without eviction). */
export function lockOf(m: Model, s: State, g: number): number {
  return m.lockAt < 0 ? 0 : s[m.lockAt + g]!;
}

/** Whether request `r`'s first pages are its prefix's shared pages rather than its own. */
export function sharesFirstPage(m: Model, s: State, r: number): boolean {
  return (flagsOf(m, s, r) & (HIT | INSERTED)) !== 0;
}

/** How many leading table positions of request `r` are shared prefix pages: its prefix's length on a hit or after an insert, else 0. */
export function sharedPages(m: Model, s: State, r: number): number {
  return sharesFirstPage(m, s, r) ? prefixLength(m, r) : 0;
}

/** The initial state: every page free (but the padding page) and never written, every request new. */
export function initial(m: Model): State {
  const s = new Uint8Array(m.size);
  for (let r = 0; r < m.n; r++) clearTable(m, s, r);
  initFree(m, s);
  return s;
}

// Effects. The transitions write a state they have just copied only through these, so an
// action's body reads as what happens: a phase, a holder, a write with its label and position.

/** Request `r` enters `phase`. */
export function setPhase(m: Model, t: State, r: number, phase: Phase): void {
  t[m.phaseAt + r] = Ph[phase];
}

/** Page `p` is now held by `label` (0: it is back on the free list). */
export function setHolder(m: Model, t: State, p: number, label: number): void {
  const w = m.layout.widths.label;
  put(t, m.holderAt + w * p, w, label);
}

/** Content `label`, written for table position `pos`, lands in page `p`, filling its first `slots` slots (all of them when left out; `slots.ts`). */
export function writeContent(m: Model, t: State, p: number, label: number, pos: number, slots: number = m.pageSize): void {
  const { label: lw, position: pw } = m.layout.widths;
  put(t, m.dataAt + lw * p, lw, label);
  put(t, m.dataPosAt + pw * p, pw, pos);
  if (m.fillAt >= 0) t[m.fillAt + p] = slots;
}

/** Page `p`'s owner tag becomes `label` (0: cleared), and, under `tag-counts-tokens`, the slots it says were written become `slots` (all when left out; 0 when cleared). */
export function setTag(m: Model, t: State, p: number, label: number, slots: number = m.pageSize): void {
  const f = m.layout.fields.tag;
  if (f === undefined) return absentWrite('tag', label);
  put(t, f.at + f.width * p, f.width, label);
  if (m.tagFillAt >= 0) t[m.tagFillAt + p] = label === 0 ? 0 : slots;
}

/** Request `r`'s flags gain `bits`. */
export function addFlags(m: Model, t: State, r: number, bits: number): void {
  t[m.flagsAt + r] = t[m.flagsAt + r]! | bits;
}

/** Clears `bits` of request `r`'s flags. */
export function clearFlags(m: Model, t: State, r: number, bits: number): void {
  t[m.flagsAt + r] = t[m.flagsAt + r]! & ~bits;
}

/** Request `r` has taken `steps` decode steps. */
export function setSteps(m: Model, t: State, r: number, steps: number): void {
  t[m.stepsAt + r] = steps;
}

/** `count` content parts and `tagCount` tag parts of request `r`'s write have landed. */
export function setPartsLanded(m: Model, t: State, r: number, count: number, tagCount: number): void {
  const data = m.layout.fields.dataParts;
  const tag = m.layout.fields.tagParts;
  if (data === undefined) absentWrite('dataParts', count);
  else put(t, data.at + data.width * r, data.width, count);
  if (tag === undefined) absentWrite('tagParts', tagCount);
  else put(t, tag.at + tag.width * r, tag.width, tagCount);
}

/** Request `r`'s read record at position `i` becomes `record`. */
export function setReadRecord(m: Model, t: State, r: number, i: number, record: number): void {
  const w = m.layout.widths.record;
  const at = m.readAt[r]! + w * i;
  if (w === 2) put(t, at, 2, record);
  else if ((record & READ_LABEL) > BYTE_LABEL) throw new Error(`state: label ${record & READ_LABEL} does not fit a one-byte read record`);
  else t[at] = ((record >>> 8) & 0xc0) | (record & BYTE_LABEL);
}

/** Prefix group `g`'s lock count becomes `count` (under eviction only). */
export function setLock(m: Model, t: State, g: number, count: number): void {
  if (m.lockAt < 0) return absentWrite('lock', count);
  t[m.lockAt + g] = count;
}

/** What a retracted request's saved copy holds at one table position: its page's content, position, fill, tag and tag count when the copy read it. */
export interface SavedPage {
  /** The content label (0: a page never written). */
  readonly label: number;
  /** The table position the content was written for. */
  readonly pos: number;
  /** How many slots held the content. */
  readonly fill: number;
  /** The owner tag (0 without an owner check). */
  readonly tag: number;
  /** How many slots the tag says were written. */
  readonly tagFill: number;
}

/** The value of request `r`'s per-position variable `name` at position `i`, or `absent` when the variable is absent. */
function positionValue(m: Model, s: State, name: 'savedData' | 'savedPos' | 'savedTag' | 'savedFill' | 'savedTagFill', r: number, i: number, absent: number): number {
  const f = m.layout.fields[name];
  return f === undefined ? absent : get(s, f.starts![r]! + f.width * i, f.width);
}

/** Writes request `r`'s per-position variable `name` at position `i`; an absent one takes only its absent value. */
function setPositionValue(m: Model, t: State, name: 'savedData' | 'savedPos' | 'savedTag' | 'savedFill' | 'savedTagFill', r: number, i: number, v: number, absent: number): void {
  const f = m.layout.fields[name];
  if (f === undefined) {
    if (v !== absent) throw new Error(`state: ${name} is absent under this configuration, and cannot be set to ${v}`);
    return;
  }
  put(t, f.starts![r]! + f.width * i, f.width, v);
}

/** Request `r`'s saved copy at table position `i` (`retraction.ts`). */
export function savedPageOf(m: Model, s: State, r: number, i: number): SavedPage {
  return {
    label: positionValue(m, s, 'savedData', r, i, 0),
    pos: positionValue(m, s, 'savedPos', r, i, 0),
    fill: positionValue(m, s, 'savedFill', r, i, m.pageSize),
    tag: positionValue(m, s, 'savedTag', r, i, 0),
    tagFill: positionValue(m, s, 'savedTagFill', r, i, m.pageSize),
  };
}

/** The copy reads page `p` into request `r`'s saved copy at position `i`: its content, position, fill, tag and tag count. */
export function savePage(m: Model, t: State, r: number, i: number, p: number, from: State): void {
  setPositionValue(m, t, 'savedData', r, i, dataOf(m, from, p), 0);
  setPositionValue(m, t, 'savedPos', r, i, dataPosOf(m, from, p), 0);
  setPositionValue(m, t, 'savedFill', r, i, fillOf(m, from, p), m.pageSize);
  setPositionValue(m, t, 'savedTag', r, i, tagOf(m, from, p), 0);
  setPositionValue(m, t, 'savedTagFill', r, i, tagFillOf(m, from, p), m.pageSize);
}

/** Request `r`'s saved copy goes back to its initial value at every position (every field 0, as in {@link initial}). */
export function clearSaved(m: Model, t: State, r: number): void {
  for (const name of ['savedData', 'savedPos', 'savedTag', 'savedFill', 'savedTagFill'] as const) {
    const f = m.layout.fields[name];
    if (f === undefined) continue;
    for (let i = f.starts![r]!, end = i + f.width * m.len[r]!; i < end; i++) t[i] = 0;
  }
}
