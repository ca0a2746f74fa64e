/**
 * Fast forms of the spec's read invariants, for the search's hot loop. `Isolation` and
 * `Integrity` (spec/properties.ts) ask `verdictOf` for every table position of every
 * request; here the verdicts are tabulated once per model, by calling that same
 * `verdictOf` on every possible read-record byte, so a state costs one table lookup per
 * position. The derivation stays the spec's: this file only caches it. A test checks
 * that both forms agree on every reachable state of the pinned configurations
 * (test/checker/fast-properties.test.ts).
 */
import { Integrity, Isolation, severity, verdictOf, type Model, type Property, type State } from '../spec/index.ts';

/** A state predicate specialised to one model. */
export type FastPredicate = (s: State) => boolean;

/** Per (request, position), 256 severities indexed by the read-record byte; and where each request's records are. */
interface VerdictTable {
  readonly severities: Uint8Array;
  /** Per (request, position): the state offset of its read-record byte. */
  readonly offsets: Uint16Array;
}

function verdictTable(m: Model): VerdictTable {
  let cells = 0;
  for (let r = 0; r < m.n; r++) cells += m.len[r]!;
  const severities = new Uint8Array(cells * 256);
  const offsets = new Uint16Array(cells);
  let c = 0;
  for (let r = 0; r < m.n; r++) {
    for (let i = 0; i < m.len[r]!; i++, c++) {
      offsets[c] = m.readAt[r]! + i;
      for (let rec = 0; rec < 256; rec++) severities[c * 256 + rec] = severity(verdictOf(m, r, i, rec));
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

/** The fast form of `p` for model `m`, or `undefined` when the spec's own form is used as it is. */
export function fastFormOf(m: Model, p: Property): FastPredicate | undefined {
  if (p === Isolation) return noReadAtLeast(verdictTable(m), 2);
  if (p === Integrity) return noReadAtLeast(verdictTable(m), 1);
  return undefined;
}
