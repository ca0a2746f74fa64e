/**
 * Fast forms of the spec's invariants, for the search's hot loop; the readable forms
 * are in spec/properties.ts. `Isolation` and `Integrity` ask `verdictOf` for every table
 * position of every request; here the verdicts are tabulated once per model, by calling
 * that same `verdictOf` on every possible read-record byte, so a state costs one table
 * lookup per position. `ExclusiveHold` and `Conservation` read the state's bytes by
 * offset, with one scratch array instead of a map. A test checks that every fast form
 * agrees with the spec's on every reachable state of the pinned configurations
 * (test/binding/properties.test.ts). The checker sees them through `checked-model.ts`.
 */
// Each from its own module, not the index: the index loads the configuration decoder (effect), most of a parallel worker's start-up.
import { freeCopies } from '../spec/allocator.ts';
import { bodyLabel, NO_PAGE, prefixLabel, type Model } from '../spec/model.ts';
import { Conservation, ExclusiveHold, Integrity, Isolation, NoDuplicateFree, NoUseAfterFree, ReadsOwnPages, type Property } from '../spec/properties.ts';
import type { Field } from './fast-actions.ts';
import { inFastFamily, oneByteLabels } from './family.ts';
import { severity, verdictOf } from '../spec/reads.ts';
import { BYTE_LABEL, BYTE_READ, isLive, READ_UNHELD, recordOfByte, sharedPages, tablePage, tableRoom, type State } from '../spec/state.ts';

/** A state predicate specialised to one model. */
export type FastPredicate = (s: State) => boolean;

/** Per (request, position), 256 severities indexed by the read-record byte; and where each request's records are. */
interface VerdictTable {
  readonly severities: Uint8Array;
  /** Per (request, position): the state offset of its read-record byte. */
  readonly offsets: Uint32Array;
}

function verdictTable(m: Model): VerdictTable {
  let cells = 0;
  for (let r = 0; r < m.n; r++) cells += m.len[r]!;
  const severities = new Uint8Array(cells * 256);
  const offsets = new Uint32Array(cells);
  let c = 0;
  for (let r = 0; r < m.n; r++) {
    for (let i = 0; i < m.len[r]!; i++, c++) {
      offsets[c] = m.readAt[r]! + i;
      for (let rec = 0; rec < 256; rec++) severities[c * 256 + rec] = severity(verdictOf(m, r, i, recordOfByte(rec)));
    }
  }
  return { severities, offsets };
}

/** A predicate that holds when no read record has severity `limit` or more. */
function noReadAtLeast(table: VerdictTable, limit: number): FastPredicate {
  const { severities, offsets } = table;
  const cells = offsets.length;
  return (s) => {
    for (let c = 0; c < cells; c++) if (severities[c * 256 + s[offsets[c]!]!]! >= limit) return false;
    return true;
  };
}

/** `ExclusiveHold` by byte offsets, with one scratch byte per page. */
function exclusiveHold(m: Model): FastPredicate {
  const seen = new Uint8Array(m.pages);
  return (s) => {
    seen.fill(0);
    for (let r = 0; r < m.n; r++) {
      if (!isLive(s[m.phaseAt + r]!)) continue;
      const len = m.len[r]!;
      for (let i = 0; i < len; i++) {
        // Through the accessor: page ids take two bytes above 254 pages.
        const p = tablePage(m, s, r, i);
        // Past the prompt's pages, the table holds what `grow` added, up to the first empty position.
        if (p === NO_PAGE) {
          if (i < m.promptPages[r]!) return false;
          break;
        }
        const shared = i < sharedPages(m, s, r);
        const owner = shared ? prefixLabel(m, m.group[r]!, i) : bodyLabel(r);
        if (s[m.holderAt + p] !== owner) return false;
        if (!shared) {
          if (seen[p] === 1) return false;
          seen[p] = 1;
        }
      }
    }
    for (let p = 0; p < m.pages; p++) {
      const h = s[m.holderAt + p]!;
      if (h >= 1 && h <= m.n && seen[p] !== 1) return false;
    }
    return true;
  };
}

/** `Conservation` by byte offsets: free-list entries (`freeCopies`) and cached pages, plus live table entries. */
function conservation(m: Model): FastPredicate {
  return (s) => {
    let count = 0;
    for (let p = m.firstPage; p < m.pages; p++) {
      count += freeCopies(m, s, p);
      if (s[m.holderAt + p]! > m.n) count++;
    }
    for (let r = 0; r < m.n; r++) {
      if (isLive(s[m.phaseAt + r]!)) count += tableRoom(m, s, r) - sharedPages(m, s, r);
    }
    return count === m.pages - m.firstPage;
  };
}

/** The invariants {@link conjunctionOf} stands for: named one by one, so that an invariant added later is not claimed by accident. */
export const CONJOINED: readonly Property[] = [Isolation, ExclusiveHold, Conservation, ReadsOwnPages, NoDuplicateFree, NoUseAfterFree];

/**
 * One pass that holds exactly when every invariant of {@link CONJOINED} holds: the read
 * records (`Isolation`), the flags (`ReadsOwnPages`), the live tables (`ExclusiveHold`,
 * `NoUseAfterFree`, and their part of `Conservation`), then the pages (the rest of those,
 * `NoDuplicateFree`). The search asks it before the invariants one by one (the checker's
 * `Conjunction`), and evaluates them only where it fails.
 */
export function conjunctionOf(m: Model): { readonly names: readonly string[]; readonly holds: FastPredicate } {
  const names = CONJOINED.map((p) => p.name);
  // The passes below read one-byte labels and records by offset; wider ones ask the spec's own forms.
  if (!oneByteLabels(m)) return { names, holds: (s) => CONJOINED.every((p) => p.holds(m, s)) };
  const general = generalConjunction(m);
  return { names, holds: inFastFamily(m) ? plainConjunction(m, general) : general };
}

/** {@link conjunctionOf}'s pass for any model. */
function generalConjunction(m: Model): FastPredicate {
  const { severities, offsets } = verdictTable(m);
  const cells = offsets.length;
  const seen = new Uint8Array(m.pages);
  // Where the free list is not stored, a page is free exactly when nobody holds it (allocator.ts).
  const stored = m.freeAt >= 0 || m.listAt >= 0;
  const copies = (s: State, p: number): number => (stored ? freeCopies(m, s, p) : p >= m.firstPage && s[m.holderAt + p] === 0 ? 1 : 0);
  const holds = (s: State): boolean => {
    for (let c = 0; c < cells; c++) if (severities[c * 256 + s[offsets[c]!]!]! >= 2) return false;
    for (let r = 0; r < m.n; r++) if ((s[m.flagsAt + r]! & READ_UNHELD) !== 0) return false;
    for (let p = 0; p < m.pages; p++) seen[p] = 0;
    let count = 0;
    for (let r = 0; r < m.n; r++) {
      if (!isLive(s[m.phaseAt + r]!)) continue;
      const len = m.len[r]!;
      const shares = sharedPages(m, s, r);
      count += tableRoom(m, s, r) - shares;
      for (let i = 0; i < len; i++) {
        const p = tablePage(m, s, r, i);
        if (p === NO_PAGE) {
          if (i < m.promptPages[r]!) return false;
          break;
        }
        const shared = i < shares;
        if (s[m.holderAt + p] !== (shared ? prefixLabel(m, m.group[r]!, i) : bodyLabel(r))) return false;
        if (copies(s, p) > 0) return false;
        if (!shared) {
          if (seen[p] === 1) return false;
          seen[p] = 1;
        }
      }
    }
    for (let p = 0; p < m.pages; p++) {
      const h = s[m.holderAt + p]!;
      if (h >= 1 && h <= m.n && seen[p] !== 1) return false;
      if (p < m.firstPage) continue;
      const c = copies(s, p);
      if (c > 1 && stored) return false;
      count += c + (h > m.n ? 1 : 0);
    }
    return count === m.pages - m.firstPage;
  };
  return holds;
}

/**
 * {@link conjunctionOf}'s pass for the family of `successors.ts` (whole pages, the
 * `sorted` allocator, no prefixes): there no page is shared and the free list is not
 * stored, a page being free exactly when nobody holds it, so the pass is the general one
 * with those cases left out: no read record of severity 2, no unheld read, every live
 * table whole and held by its request alone, every page a request holds in its table,
 * and the pages held or free adding up to the pool.
 */
function plainConjunction(m: Model, general: FastPredicate): FastPredicate {
  const n = m.n;
  const pages = m.pages;
  const first = m.firstPage;
  const { holderAt, phaseAt, flagsAt } = m;
  const len = Int32Array.from(m.len);
  const tableAt = Int32Array.from(m.tableAt);
  // Pages as bits of one integer; a larger pool takes the general pass.
  if (pages > 30) return general;
  const { offsets, foreign } = foreignReads(m);
  const cells = offsets.length;
  // Per holder byte, 1 for a request (1 .. n); per phase byte, 1 for a live one.
  const heldBy = Uint8Array.from({ length: 256 }, (_, h) => (h >= 1 && h <= n ? 1 : 0));
  const live = Uint8Array.from({ length: 256 }, (_, p) => (isLive(p) ? 1 : 0));
  // Lookups and sums where the tests were branches: which records are read and which pages held varies from state to state, and mispredicted branches were most of this pass's time.
  return (s) => {
    // Isolation: a read of another request's content (no prefixes here: any label but nobody and its own).
    let bad = 0;
    for (let c = 0; c < cells; c++) bad |= foreign[(c << 8) | s[offsets[c]!]!]!;
    for (let r = 0; r < n; r++) bad |= s[flagsAt + r]! & READ_UNHELD;
    if (bad !== 0) return false;
    // Every live table whole, each page held by its request and in no other slot of a live table.
    let seen = 0;
    let inTables = 0;
    for (let r = 0; r < n; r++) {
      if (live[s[phaseAt + r]!] === 0) continue;
      const at = tableAt[r]!;
      for (let i = 0, l = len[r]!; i < l; i++) {
        const p = s[at + i]!;
        // A page id past the pool (never reachable) is left to the general pass, which says what it means.
        if (p >= pages) return p === 0xff ? false : general(s);
        if (s[holderAt + p] !== r + 1 || ((seen >>> p) & 1) !== 0) return false;
        seen |= 1 << p;
      }
      inTables += len[r]!;
    }
    // The pages some request holds are exactly those in live tables (those are held and distinct: equal counts say it); with the free and cached ones they make the pool: none held below the first page, and as many held from it on as in the tables.
    let below = 0;
    for (let p = 0; p < first; p++) below += heldBy[s[holderAt + p]!]!;
    let held = 0;
    for (let p = first; p < pages; p++) held += heldBy[s[holderAt + p]!]!;
    return below === 0 && held === inTables;
  };
}

/** Per (request, position) of the read records: its offset, and per record byte 1 when it is a read of another request's content. */
function foreignReads(m: Model): { readonly offsets: Int32Array; readonly foreign: Uint8Array } {
  const cells: number[] = [];
  const foreign: number[] = [];
  for (let r = 0; r < m.n; r++) {
    for (let i = 0; i < m.len[r]!; i++) {
      cells.push(m.readAt[r]! + i);
      for (let rec = 0; rec < 256; rec++) {
        const label = rec & BYTE_LABEL;
        foreign.push((rec & BYTE_READ) !== 0 && label !== 0 && label !== r + 1 ? 1 : 0);
      }
    }
  }
  return { offsets: Int32Array.from(cells), foreign: Uint8Array.from(foreign) };
}

/** The fast form of `p` for model `m`, or `undefined` when the spec's own form is used as it is. */
export function fastFormOf(m: Model, p: Property): FastPredicate | undefined {
  // Every form here reads one-byte labels and records by offset (family.ts's oneByteLabels).
  if (!oneByteLabels(m)) return undefined;
  if (p === Isolation) return noReadAtLeast(verdictTable(m), 2);
  if (p === Integrity) return noReadAtLeast(verdictTable(m), 1);
  if (p === ExclusiveHold) return exclusiveHold(m);
  if (p === Conservation) return conservation(m);
  return undefined;
}

/**
 * The fields of the fast family (`fast-actions.ts`) that the conjoined invariants read:
 * read records (`Isolation`), flags (`ReadsOwnPages`), tables and holders (`ExclusiveHold`,
 * `NoUseAfterFree`, `Conservation`, `NoDuplicateFree`, the free list being who holds what);
 * and phases, but only for their liveness. An action that writes none of these, and keeps
 * its request's liveness, is quiet (`fast-emit.ts`, `isQuiet`).
 */
export const CONJUNCTION_READS: readonly Field[] = ['holder', 'table', 'readRecord', 'flags'];
