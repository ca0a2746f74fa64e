/**
 * The plainest family of configurations, for the search's fast path: whole pages (one
 * slot per page), the `sorted` allocator, no prompt prefixes, no eviction, with or without
 * the owner check, `hardened` or not, one decode step, at most faults `silent-stub`,
 * `early-free`, `stale-free` and `torn-write`, one-byte widths ({@link oneByteLayout}).
 * Of `hardened`'s mechanisms two act here, `revoke-writer` and `release-checks-holder`
 * (each on or off: `--without`); every other one acts only under a configuration or a
 * fault outside the family (spec/hardening.ts: retraction, the radix tree, source pages,
 * premature success, the metadata slot, the draft model, state slots, load-back; and
 * `tag-counts-tokens` only with more than one slot per page), so it changes nothing here.
 * Its actions (`allocate`, `prefill`, `stub`, `handoff`, `decode`, `free`, `timeout` under
 * `early-free`, `landData` and `landTag` under `torn-write`) are described once, as data,
 * in `fast-actions.ts`; the code the search runs is emitted from that description
 * (`fast-emit.ts`). Here: which configurations are in the family, and the per-model
 * tables and scratch that the emitted code reads (offsets, lengths, the severities of
 * every read record, the free pages of the state being expanded).
 */
import { allActions, type ActionKind } from '../spec/actions.ts';
import { FAST_ACTIONS } from './fast-actions.ts';
import { tableIsDead } from '../spec/liveness.ts';
import { isOverLong, type Model } from '../spec/model.ts';
import { severity, verdictOf } from '../spec/reads.ts';
import { PHASES, recordOfByte, type State } from '../spec/state.ts';

/** The faults the family's description covers. */
const FAMILY_FAULTS: ReadonlySet<string> = new Set(['silent-stub', 'early-free', 'stale-free', 'torn-write']);

/** The action kinds of the family, in the spec's order (the kinds `allActions` gives there): those its description has. */
export const KINDS: readonly ActionKind[] = FAST_ACTIONS.map((a) => a.kind);

/** Whether `m` is in the family (see above). */
export function inFastFamily(m: Model): boolean {
  const faultsOn = Object.entries(m.fault).filter(([, on]) => on).map(([f]) => f);
  return (
    m.pageSize === 1 &&
    m.allocator === 'sorted' &&
    m.freeAt < 0 &&
    m.listAt < 0 &&
    m.releaseAt < 0 &&
    m.groups === 0 &&
    !m.eviction &&
    m.decodeSteps === 1 &&
    oneByteLayout(m) &&
    m.fillAt < 0 &&
    m.tagFillAt < 0 &&
    // D's state slots and metadata rows (spec/state-slots.ts) are not in the description.
    m.config.stateSlots !== true &&
    faultsOn.every((f) => FAMILY_FAULTS.has(f)) &&
    blocksOf(m) !== undefined
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

/**
 * `allActions(m)` as the family numbers it: per block of `n` actions (one kind, every
 * request in order), the kind's index in {@link KINDS}; `undefined` when the actions are
 * not such blocks, in the description's order, with every kind that has no model guard
 * (`model`: the kinds only some models have, `timeout`, `landData`, `landTag`).
 */
function blocksOf(m: Model): number[] | undefined {
  const actions = allActions(m);
  if (actions.length % m.n !== 0) return undefined;
  const blocks: number[] = [];
  for (let b = 0; b < actions.length / m.n; b++) blocks.push(KINDS.indexOf(actions[b * m.n]!.kind));
  if (blocks.some((k, b) => k < 0 || (b > 0 && k <= blocks[b - 1]!))) return undefined;
  if (FAST_ACTIONS.some((a, k) => a.model === undefined && !blocks.includes(k))) return undefined;
  return actions.every((a, i) => a.kind === KINDS[blocks[Math.floor(i / m.n)]!] && a.r === i % m.n && a.pages === undefined) ? blocks : undefined;
}

/** The family's layout for one model: the offsets and tables the emitted code reads, and its scratch. */
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
  /** Offset of the per-page owner tags; meaningful only under {@link ownerCheck} (without it they take no bytes). */
  readonly tagAt: number;
  /** Whether decode checks owner tags (`owner-check`): allocate clears them, writes stamp them. */
  readonly ownerCheck: boolean;
  readonly observedAt: number;
  readonly observedBytes: number;
  readonly stepsAt: number;
  readonly len: Int32Array;
  readonly tableAt: Int32Array;
  readonly readAt: Int32Array;
  readonly overLong: Uint8Array;
  readonly silentStub: boolean;
  /** Whether D may time a request out while P's write is in flight (fault `early-free`). */
  readonly earlyFree: boolean;
  /** Whether P's write lands part by part (fault `torn-write`): the actions `landData` and `landTag`. */
  readonly tornWrite: boolean;
  /** Whether a finished request's old table can be released again (fault `stale-free`). */
  readonly staleFree: boolean;
  /** Whether a timed-out request's write lands nowhere (`hardened`'s `revoke-writer`). */
  readonly revokeWriter: boolean;
  /** Whether a release frees only the pages the request still holds (`hardened`'s `release-checks-holder`). */
  readonly checksHolder: boolean;
  /** Offset of the content parts landed per request (fault `torn-write`; -1 when absent). */
  readonly dataPartsAt: number;
  /** Offset of the tag parts landed per request (fault `torn-write` under the owner check; -1 when absent). */
  readonly tagPartsAt: number;
  /** Per phase code: 1 when a request entering it has a dead table, cleared (liveness.ts, tableIsDead). */
  readonly clearOn: Uint8Array;
  /** Per kind (index in {@link KINDS}): the number of its first action in `allActions`, or -1 when the model lacks it. */
  readonly base: Int32Array;
  /** Per block of `n` actions in `allActions`: its kind's index in {@link KINDS}. */
  readonly kindOf: Int32Array;
  /** Per request: where its severities start, 256 per table position (verdictOf on every record byte). */
  readonly sevAt: Int32Array;
  readonly sev: Uint8Array;
  /** The free pages of the state being expanded, ascending, and how many. */
  readonly free: Int32Array;
  freeCount = 0;
  /** A fingerprint's two halves, for the cases hashed whole. */
  readonly hash = new Int32Array(2);

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
    this.tagAt = m.tagAt;
    this.ownerCheck = m.ownerCheck;
    this.observedAt = m.observedAt;
    this.observedBytes = m.observedBytes;
    this.stepsAt = m.stepsAt;
    this.len = Int32Array.from(m.len);
    this.tableAt = Int32Array.from(m.tableAt);
    this.readAt = Int32Array.from(m.readAt);
    this.overLong = Uint8Array.from({ length: m.n }, (_, r) => (isOverLong(m, r) ? 1 : 0));
    this.silentStub = m.silentStub;
    this.earlyFree = m.fault['early-free'];
    this.tornWrite = m.fault['torn-write'];
    this.staleFree = m.fault['stale-free'];
    this.revokeWriter = m.mechanism['revoke-writer'];
    this.checksHolder = m.mechanism['release-checks-holder'];
    this.dataPartsAt = m.layout.fields.dataParts?.at ?? -1;
    this.tagPartsAt = m.layout.fields.tagParts?.at ?? -1;
    this.clearOn = Uint8Array.from(PHASES, (_, code) => (tableIsDead(m, code) ? 1 : 0));
    const blocks = blocksOf(m) ?? [];
    this.kindOf = Int32Array.from(blocks);
    this.base = Int32Array.from(KINDS, (_, k) => (blocks.includes(k) ? blocks.indexOf(k) * m.n : -1));
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
  }

  /** The free pages of `s`, ascending: the sorted allocator hands out the lowest (allocator.ts, takeInto). */
  scanFree(s: State): void {
    let c = 0;
    for (let p = this.first; p < this.pages; p++) if (s[this.holderAt + p] === 0) this.free[c++] = p;
    this.freeCount = c;
  }
}

/**
 * The first request after `r` among those of `rs` (bit `r` for request `r`), or `n` when
 * there is none: the emitted fingerprint functions' loop (`fast-emit.ts`). Over 31
 * requests a mask cannot hold them, and every request is next in turn.
 */
export function nextIn(rs: number, r: number, n: number): number {
  if (n > 31) return r + 1;
  const rest = rs & (-1 << (r + 1));
  return rest === 0 ? n : 31 - Math.clz32(rest & -rest);
}

/** Whether the table at `at` (`l` slots) has an empty slot: never in the family's reachable states, where a live table is whole. */
export function hasEmptySlot(s: State, at: number, l: number): boolean {
  for (let i = 0; i < l; i++) if (s[at + i] === 0xff) return true;
  return false;
}

/** Whether the table at `at` (`l` slots) names some page twice (empty slots aside): never in the family's reachable states. */
export function namesPageTwice(s: State, at: number, l: number): boolean {
  for (let i = 1; i < l; i++) {
    const p = s[at + i]!;
    if (p === 0xff) continue;
    for (let j = 0; j < i; j++) if (s[at + j] === p) return true;
  }
  return false;
}

/** The spec's successor for a case the description leaves to it; it must be enabled. */
export function bySpec(t: State | undefined, a: number): State {
  if (t === undefined) throw notEnabled(a);
  return t;
}

/** The error of an action applied where it is not enabled. */
export function notEnabled(a: number): Error {
  return new Error(`spec: action ${a} is not enabled in the state it was applied to`);
}
