/**
 * The Promela model's constants (`template.ts` joins the pieces): the phase codes and flag
 * bits as spec/state.ts stores them, and the macros over a request's constants (index,
 * length, prefix group, page-table offset) that the actions and invariants use.
 */

/** Phase codes and flag bits, as spec/state.ts stores them, and the helper macros. */
export const PROMELA_CONSTANTS = String.raw`
/* ---- phases (spec/state.ts, Ph) and flags ---- */
#define NEW         0
#define ALLOCATED   1
#define WRITTEN     2
#define HANDED_OFF  3
#define DECODED     4
#define REFUSED     5
#define FAILED      6
#define FREED       7
#define TIMED_OUT   8
#define LANDED      9
#define RELEASED    10
#define WRITING     11 /* torn-write: P posted its write; its parts are landing */
#define LANDING     12 /* torn-write: timed out while parts were still in flight */
#define DECODING    13 /* between two decode steps */
#define READ        128 /* read record: the position was read */
#define MISPLACED   64  /* read record: the content was written for another position */
#define READ_LABEL  63  /* read record: the label read */
#define HIT         1  /* allocated on its prefix's cached pages */
#define INSERTED    2  /* its first pages, its prefix's, went into the prefix cache */
#define READ_UNHELD 4  /* its decode read a page it did not hold */
#define NO_PAGE     255
#define NONE        255 /* no prefix group */

/* ---- helpers over a request's constants (r, L, G, T) ---- */
#define LIVE(ph)          ((ph) >= ALLOCATED && (ph) <= FAILED || (ph) == WRITING || (ph) == DECODING)
#define SHARES(r)         ((flags[r] & (HIT | INSERTED)) != 0)
/* The leading table positions of r that are shared prefix pages (KOF: r's prefix length, 0 without one). */
#define SHARED(r)         (SHARES(r) -> KOF(r) : 0)
/* The label of page j of prefix group G (PBASE: the pages of the groups before it). */
#define PREFIX_AT(G, j)   (N + 1 + PBASE(G) + (j))
#define HAS_CACHE(G)      ((G) != NONE && CACHED(G))
/* Copies of page p on the free list: counted under double-free (a multiset), else free = held by nobody. */
#define COPIES(p)         (DOUBLE_FREE -> freecnt[p] : (holder[p] == 0 -> 1 : 0))
/* What r may read at table position i: its own data, page i of its prefix only at position i. */
#define MAY_READ_AT(r, G, i, x) ((x) == (r) + 1 || ((G) != NONE && (i) < PLEN(G) && (x) == PREFIX_AT(G, i)))
/* A read record's verdict (spec/reads.ts): 0 ok, 1 breaks Integrity, 2 breaks Isolation. */
#define VERDICT(r, G, i, rec) (((rec) & READ) == 0 -> 0 : (((rec) & READ_LABEL) == 0 -> 1 : \
  (!MAY_READ_AT(r, G, i, (rec) & READ_LABEL) -> 2 : (((rec) & MISPLACED) != 0 -> 1 : 0))))
/* Token slots (spec/slots.ts, writes.ts): r's prompt is TOKENS(r) tokens; it is too long for P
   under the length rule; P stubs it, or under auto-truncate prefills it cut to the limit. */
#define OVER_LONG(r)      (LENGTH_GE -> (TOKENS(r) >= PREFILL_LIMIT) : (TOKENS(r) > PREFILL_LIMIT))
#define STUB_WRITE(r)     (OVER_LONG(r) && !AUTO_TRUNCATE)
#define PREFILLED(r)      (OVER_LONG(r) && AUTO_TRUNCATE && TOKENS(r) > PREFILL_LIMIT -> PREFILL_LIMIT : TOKENS(r))
#define PAGES_OF(x)       (((x) + PAGE_SIZE - 1) / PAGE_SIZE)
/* P's write for r: how many pages, from which table position; the label at position i; the slots it fills there. */
#define WRITE_FROM(r)     SHARED(r)
#define WRITE_COUNT(r, L) (STUB_WRITE(r) -> 1 : (PAGES_OF(PREFILLED(r)) > WRITE_FROM(r) -> PAGES_OF(PREFILLED(r)) - WRITE_FROM(r) : 0))
#define WRITE_LABEL(r, L, G, i) ((G) != NONE && (i) < PLEN(G) && !STUB_WRITE(r) -> PREFIX_AT(G, i) : (r) + 1)
#define WRITE_SLOTS(r, i) (STUB_WRITE(r) -> 1 : (PREFILLED(r) - (i) * PAGE_SIZE < PAGE_SIZE -> PREFILLED(r) - (i) * PAGE_SIZE : PAGE_SIZE))
/* Decode reads the prompt's slots plus one per token decoded so far, within the table: SLOTS_AT at position i. */
#define READ_END(r, L)    (TOKENS(r) + (steps[r] > 0 -> steps[r] - 1 : 0) < L * PAGE_SIZE -> TOKENS(r) + (steps[r] > 0 -> steps[r] - 1 : 0) : L * PAGE_SIZE)
#define SLOTS_AT(r, L, i) (READ_END(r, L) - (i) * PAGE_SIZE < PAGE_SIZE -> READ_END(r, L) - (i) * PAGE_SIZE : PAGE_SIZE)
`;
