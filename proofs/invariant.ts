/**
 * The inductive invariants, as executable predicates over the spec's own states.
 *
 * `Isolation` is not inductive by itself: a state in which a handed-off request's table
 * names a page full of another request's data satisfies it, and one `decode` later it is
 * broken. So it is strengthened, TLA+ style, by numbered conjuncts, each with a sentence
 * saying why it is true. Two strengthenings are given:
 *
 * - {@link OWNER_CHECK_INVARIANT}, for `owner-check` (and tried on `buggy`, where it fails
 *   at `decode`): one conjunct about tags suffices, whatever the faults do.
 * - {@link LENGTH_FIX_INVARIANT}, for `length-fix` without faults: Isolation then rests on
 *   the whole ownership discipline (holds, tables, the prefix cache), seven conjuncts.
 *
 * The same conjuncts, by the same names, are encoded for z3 in `conjuncts.ts`; the bounded
 * tests evaluate these predicates on spec states, which ties the encoding to `step`.
 */
import {
  bodyLabel,
  flagsOf,
  HIT,
  holderOf,
  INSERTED,
  isLive,
  Isolation,
  NO_PAGE,
  observedOf,
  Ph,
  PHASES,
  phaseOf,
  prefixLabel,
  READ_UNHELD,
  sharesFirstPage,
  sharedPages,
  isPrefixPosition,
  prefixLength,
  tablePage,
  dataOf,
  tableIsDead,
  tagOf,
  type Fault,
  type Model,
  type State,
  type Variant,
} from '../spec/index.ts';
import { holdConjunct } from './hold-invariant.ts';

/** One numbered conjunct of a strengthened invariant. */
export interface Conjunct {
  /** Its number, from 1; `--drop N` names it. */
  readonly id: number;
  /** Its name, shared with the z3 encoding. */
  readonly name: string;
  /** Why it holds, in one sentence. */
  readonly prose: string;
  /** The predicate over a spec state. */
  readonly holds: (m: Model, s: State) => boolean;
}

/** A strengthened invariant: TypeOK, Isolation, and numbered conjuncts. */
export interface Invariant {
  /** Its name, as printed. */
  readonly name: 'tag' | 'ownership' | 'hold';
  /** The strengthening conjuncts, in order. */
  readonly conjuncts: readonly Conjunct[];
}

const labels = (m: Model): number => m.labels;

/** Whether slot `i` of `r`'s table is r's own page (not a shared prefix page). */
function ownSlot(m: Model, s: State, r: number, i: number): boolean {
  return i < (m.len[r] ?? 0) && i >= sharedPages(m, s, r);
}

/** What `prefill` writes into slot `i` of `r`'s table. */
function slotLabel(m: Model, r: number, i: number): number {
  const g = m.group[r] ?? -1;
  return isPrefixPosition(m, r, i) ? prefixLabel(m, g, i) : bodyLabel(r);
}

const everyRequest = (m: Model, test: (r: number) => boolean): boolean => {
  for (let r = 0; r < m.n; r++) if (!test(r)) return false;
  return true;
};

const everyOwnSlot = (m: Model, s: State, r: number, test: (i: number, p: number) => boolean): boolean => {
  for (let i = 0; i < (m.len[r] ?? 0); i++) if (ownSlot(m, s, r, i) && !test(i, tablePage(m, s, r, i))) return false;
  return true;
};

/**
 * Conjunct 0, TypeOK: every byte is in its domain. Labels are in the alphabet (tags are
 * zero without the owner check), phases are phases, read sets name labels only, only a request with a prefix carries a sharing flag,
 * a new request, and a finished one whose table is dead (spec/liveness.ts), has an empty
 * table and any other a full table of page ids. In the z3
 * encoding this is not a formula but the sorts themselves.
 */
export function typeOK(m: Model, s: State): boolean {
  return typeOKPages(m, s) && typeOKRequests(m, s);
}

/** TypeOK's part over the pages' bytes alone: holders, contents and tags within the labels. */
export function typeOKPages(m: Model, s: State): boolean {
  const top = labels(m);
  for (let p = 0; p < m.pages; p++) {
    if (holderOf(m, s, p) > top || dataOf(m, s, p) > top || tagOf(m, s, p) > (m.ownerCheck ? top : 0)) return false;
  }
  return true;
}

/** TypeOK's part over the requests' bytes alone (phase, flags, read set, table): a universe checks it once for all the pages' choices. */
export function typeOKRequests(m: Model, s: State): boolean {
  const top = labels(m);
  // a plain loop, no closure: a universe asks this of every step's post-state, tens of millions of times
  for (let r = 0; r < m.n; r++) {
    const phase = phaseOf(m, s, r);
    const flags = flagsOf(m, s, r);
    if (phase >= PHASES.length) return false;
    // without torn writes no write is in flight part by part (conjuncts.ts, TypeOK)
    if (!m.fault['torn-write'] && (phase === Ph.writing || phase === Ph.landing)) return false;
    if ((flags & ~(HIT | INSERTED | READ_UNHELD)) !== 0) return false;
    if ((m.group[r] ?? -1) < 0 && (flags & (HIT | INSERTED)) !== 0) return false;
    if (top < 32 && observedOf(m, s, r) >>> top !== 0) return false;
    const empty = phase === Ph.new || tableIsDead(m, phase);
    for (let i = 0; i < (m.len[r] ?? 0); i++) {
      const p = tablePage(m, s, r, i);
      if (empty ? p !== NO_PAGE : p >= m.pages) return false;
    }
  }
  return true;
}

/** The owner check's strengthening: one conjunct. */
export const OWNER_CHECK_INVARIANT: Invariant = {
  name: 'tag',
  conjuncts: [
    {
      id: 1,
      name: 'TagNamesContent',
      prose:
        "A page's owner tag, when set, names the content the page holds: every write stores the same label in both, and the only other change to a tag is allocate clearing it.",
      holds: (m, s) => {
        for (let p = 0; p < m.pages; p++) {
          const tag = tagOf(m, s, p);
          if (tag !== 0 && dataOf(m, s, p) !== tag) return false;
        }
        return true;
      },
    },
  ],
};

const WRITTEN: ReadonlySet<number> = new Set([Ph.written, Ph.handedOff, Ph.decoding, Ph.decoded]);

/** The length fix's strengthening, without faults: seven conjuncts about who holds what. */
export const LENGTH_FIX_INVARIANT: Invariant = {
  name: 'ownership',
  conjuncts: [
    {
      id: 1,
      name: 'NewIsBlank',
      prose: 'A request not yet allocated carries no sharing flag, so its allocate alone decides whether its first page is shared.',
      holds: (m, s) => everyRequest(m, (r) => phaseOf(m, s, r) !== Ph.new || (flagsOf(m, s, r) & (HIT | INSERTED)) === 0),
    },
    {
      id: 2,
      name: 'NoLateWrite',
      prose: 'No request is timed out: only timeout (fault early-free) leads there, and from there a write lands by page id in pages the request no longer holds.',
      holds: (m, s) => everyRequest(m, (r) => phaseOf(m, s, r) !== Ph.timedOut),
    },
    {
      id: 3,
      name: 'OwnPagesHeld',
      prose: "Every own slot of a live request's table (every slot but a shared prefix page) names a page that request holds: allocate takes free pages, and only the request's own free releases them.",
      holds: (m, s) =>
        everyRequest(m, (r) => !isLive(phaseOf(m, s, r)) || everyOwnSlot(m, s, r, (_, p) => holderOf(m, s, p) === bodyLabel(r))),
    },
    {
      id: 4,
      name: 'SharedPageCached',
      prose: "A live request that shares its first pages has a prefix, and its page at each prefix position j is held as page j of its prefix's cache entry, which nothing releases.",
      holds: (m, s) =>
        everyRequest(m, (r) => {
          if (!isLive(phaseOf(m, s, r)) || !sharesFirstPage(m, s, r)) return true;
          const g = m.group[r] ?? -1;
          if (g < 0) return false;
          for (let j = 0; j < prefixLength(m, r); j++) if (holderOf(m, s, tablePage(m, s, r, j)) !== prefixLabel(m, g, j)) return false;
          return true;
        }),
    },
    {
      id: 5,
      name: 'CacheHoldsPrefix',
      prose: "A page held by a prefix's cache entry holds that prefix's data: insert takes only the prefix pages of a request that was written, and no write reaches a page its writer does not hold.",
      holds: (m, s) => {
        for (let p = 0; p < m.pages; p++) {
          const h = holderOf(m, s, p);
          if (h > m.n && dataOf(m, s, p) !== h) return false;
        }
        return true;
      },
    },
    {
      id: 6,
      name: 'WrittenHoldsOwn',
      prose: "From prefill until free, each own slot's page holds what prefill wrote there (page j of the prefix's data at prefix position j of a request with a prefix, the request's own data elsewhere): nobody else writes a page the request holds.",
      holds: (m, s) =>
        everyRequest(m, (r) => !WRITTEN.has(phaseOf(m, s, r)) || everyOwnSlot(m, s, r, (i, p) => dataOf(m, s, p) === slotLabel(m, r, i))),
    },
    {
      id: 7,
      name: 'DistinctSlots',
      prose: 'The own slots of a live request name distinct pages, because allocate hands each free page out once; so one slot\'s write cannot overwrite another\'s.',
      holds: (m, s) =>
        everyRequest(m, (r) => {
          if (!isLive(phaseOf(m, s, r))) return true;
          const seen = new Set<number>();
          return everyOwnSlot(m, s, r, (_, p) => {
            if (seen.has(p)) return false;
            seen.add(p);
            return true;
          });
        }),
    },
  ],
};

const lengthFix = (name: string): Conjunct => {
  const c = LENGTH_FIX_INVARIANT.conjuncts.find((x) => x.name === name);
  if (c === undefined) throw new Error(`no length-fix conjunct ${name}`);
  return c;
};

/**
 * The hold invariant, for `hardened` (and for `owner-check` under fault `torn-write`,
 * where it fails at the step where the design breaks): Isolation rests on who holds a
 * page and how far its holder's write has landed, never on a tag naming content in
 * general (under torn writes a tag lands before its content). Four conjuncts are the
 * ownership discipline of the length fix, kept here by the mechanisms of `hardened`
 * rather than by the absence of faults; six are its own (`hold-invariant.ts`).
 */
export const HOLD_INVARIANT: Invariant = {
  name: 'hold',
  conjuncts: [
    lengthFix('NewIsBlank'),
    holdConjunct('NoLateParts'),
    {
      ...lengthFix('OwnPagesHeld'),
      prose:
        "Every own slot of a live request's table names a page that request holds: allocate takes free pages, and a release frees only the pages the releasing request holds (release-checks-holder), so a stale or double release cannot free a page from under another request.",
    },
    lengthFix('SharedPageCached'),
    {
      ...lengthFix('DistinctSlots'),
      prose: "The own slots of a live request name distinct pages: allocate hands out a page on the free list once (FreeListUnheld), so one slot's write cannot overwrite another's.",
    },
    holdConjunct('FreeListUnheld'),
    holdConjunct('UntaggedUntilLanded'),
    holdConjunct('LandedPartsHold'),
    holdConjunct('OwnTagNamesContent'),
    holdConjunct('CacheTagNamesContent'),
  ].map((c, k) => ({ id: k + 1, name: c.name, prose: c.prose, holds: c.holds })),
};

/**
 * The invariant whose proof is attempted for a variant and its faults: `buggy` gets the
 * owner check's, to show where it breaks; `owner-check` the tag invariant, or the hold
 * invariant under torn writes (where no tag invariant is inductive); `hardened` the hold
 * invariant.
 */
export function invariantFor(variant: Variant, faults: readonly Fault[] = []): Invariant {
  if (variant === 'length-fix') return LENGTH_FIX_INVARIANT;
  if (variant === 'hardened' || (variant === 'owner-check' && faults.includes('torn-write'))) return HOLD_INVARIANT;
  return OWNER_CHECK_INVARIANT;
}

/** The names of the parts of the invariant that fail in `s`: `TypeOK`, `Isolation`, or a conjunct. */
export function failingParts(m: Model, s: State, inv: Invariant = invariantFor(m.config.variant, m.config.faults), drop?: number): string[] {
  const out: string[] = [];
  if (!typeOK(m, s)) return ['TypeOK'];
  if (!Isolation.holds(m, s)) out.push('Isolation');
  for (const c of inv.conjuncts) if (c.id !== drop && !c.holds(m, s)) out.push(c.name);
  return out;
}

/** The strengthened invariant of the model's variant, as one predicate: TypeOK, Isolation and every conjunct (but `drop`). */
export function inductiveInvariant(m: Model, s: State, drop?: number): boolean {
  if (!typeOK(m, s) || !Isolation.holds(m, s)) return false;
  for (const c of invariantFor(m.config.variant, m.config.faults).conjuncts) if (c.id !== drop && !c.holds(m, s)) return false;
  return true;
}
