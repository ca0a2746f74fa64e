/**
 * The hold invariant's own conjuncts as executable predicates over spec states, with the
 * prose that says why each holds (`invariant.ts` puts them in order, beside the ownership
 * conjuncts they share with the length fix; `hold-conjuncts.ts` has the z3 forms).
 *
 * Under fault `torn-write` a tag and the content it names are two writes, so "a tag names
 * its page's content" is false in reachable states (the tag part lands first). What
 * `hardened` keeps instead is that no write reaches a page its writer does not hold:
 * `revoke-writer` drops a timed-out request's parts in flight and its late write,
 * `release-checks-holder` keeps a stale or double release from freeing (or listing twice)
 * a page that another request holds. From that, a page whose holder has finished writing
 * carries a tag only for the content it holds, which is what decode's check needs.
 */
import {
  dataOf,
  dataPartsOf,
  freeCopies,
  holderOf,
  isLive,
  Ph,
  phaseOf,
  sharedPages,
  tablePage,
  tagOf,
  tagPartsOf,
  writeCount,
  writeLabel,
  writePosition,
  type Model,
  type State,
} from '../spec/index.ts';

/** A conjunct of the hold invariant before it is numbered: its name, why it holds, and the predicate. */
export interface HoldConjunct {
  /** Its name, shared with the z3 encoding. */
  readonly name: string;
  /** Why it holds, in one sentence. */
  readonly prose: string;
  /** The predicate over a spec state. */
  readonly holds: (m: Model, s: State) => boolean;
}

/** Whether slot `i` of `r`'s table is r's own page (not a shared prefix page). */
function ownSlot(m: Model, s: State, r: number, i: number): boolean {
  return i < (m.len[r] ?? 0) && i >= sharedPages(m, s, r);
}

/** Whether table position `i` is in `r`'s write set, and which of its two parts have landed. */
function part(m: Model, s: State, r: number, i: number): { inWrite: boolean; data: boolean; tag: boolean } {
  const k = i - writePosition(m, s, r, 0);
  const inWrite = k >= 0 && k < writeCount(m, s, r);
  return { inWrite, data: inWrite && k < dataPartsOf(m, s, r), tag: inWrite && k < tagPartsOf(m, s, r) };
}

/** Whether `test` holds for every own slot of every request that `which` picks. */
function everyOwnSlot(m: Model, s: State, which: (phase: number) => boolean, test: (r: number, i: number, p: number) => boolean): boolean {
  for (let r = 0; r < m.n; r++) {
    if (!which(phaseOf(m, s, r))) continue;
    for (let i = 0; i < (m.len[r] ?? 0); i++) if (ownSlot(m, s, r, i) && !test(r, i, tablePage(m, s, r, i))) return false;
  }
  return true;
}

const unwritten = (phase: number): boolean => phase === Ph.allocated || phase === Ph.writing;

/** No late parts; the free list; how far a write has landed; tags of settled and cached pages. */
export const HOLD_CONJUNCTS: readonly HoldConjunct[] = [
  {
    name: 'NoLateParts',
    prose:
      "No request is landing: D timed nobody out while parts of its write were in flight, or revoked the writer first (revoke-writer drops the parts, and a write posted after the timeout lands nowhere); without fault early-free nobody is even timed out.",
    holds: (m, s) => {
      for (let r = 0; r < m.n; r++) {
        const phase = phaseOf(m, s, r);
        if (phase === Ph.landing || (phase === Ph.timedOut && !m.fault['early-free'])) return false;
      }
      return true;
    },
  },
  {
    name: 'FreeListUnheld',
    prose:
      'A page on the free list is there once and held by nobody (with fault double-free, where the list could hold a page twice): a release frees only the pages the releasing request still holds (release-checks-holder), and a held page is on no list.',
    holds: (m, s) => {
      if (!m.multiset) return true;
      for (let p = 0; p < m.pages; p++) {
        const c = freeCopies(m, s, p);
        if (c > 1 || (c === 1 && holderOf(m, s, p) !== 0)) return false;
      }
      return true;
    },
  },
  {
    name: 'UntaggedUntilLanded',
    prose:
      "An own page of an allocated or writing request carries no tag until the tag part of that request's write for it has landed: allocate cleared it, and only its holder's write reaches a page that is held.",
    holds: (m, s) => everyOwnSlot(m, s, unwritten, (r, i, p) => tagOf(m, s, p) === 0 || (phaseOf(m, s, r) === Ph.writing && part(m, s, r, i).tag)),
  },
  {
    name: 'LandedPartsHold',
    prose:
      "Each part of a write in flight that has landed is still in its page (the write's label, as content or as tag): the writer holds the page, and nobody else's write reaches it.",
    holds: (m, s) =>
      everyOwnSlot(
        m,
        s,
        (phase) => phase === Ph.writing,
        (r, i, p) => {
          const landed = part(m, s, r, i);
          const label = writeLabel(m, r, i);
          return (!landed.tag || tagOf(m, s, p) === label) && (!landed.data || dataOf(m, s, p) === label);
        },
      ),
  },
  {
    name: 'OwnTagNamesContent',
    prose:
      "An own page of a live request whose write has finished landing (written, handed off, decoding, decoded, refused, failed) carries a tag only for the content it holds: both parts of that write landed in it, a decode step's token stamps both together, and no other write reaches it.",
    holds: (m, s) => everyOwnSlot(m, s, (phase) => isLive(phase) && !unwritten(phase), (_, __, p) => tagOf(m, s, p) === 0 || dataOf(m, s, p) === tagOf(m, s, p)),
  },
  {
    name: 'CacheTagNamesContent',
    prose:
      "A page held by a prefix's cache entry carries a tag only for the content it holds: insert took it from a request whose write had finished landing, and no write reaches a cached page.",
    holds: (m, s) => {
      for (let p = 0; p < m.pages; p++) if (holderOf(m, s, p) > m.n && tagOf(m, s, p) !== 0 && dataOf(m, s, p) !== tagOf(m, s, p)) return false;
      return true;
    },
  },
];

/** The conjunct of {@link HOLD_CONJUNCTS} named `name`. */
export function holdConjunct(name: string): HoldConjunct {
  const c = HOLD_CONJUNCTS.find((x) => x.name === name);
  if (c === undefined) throw new Error(`no hold conjunct ${name}`);
  return c;
}
