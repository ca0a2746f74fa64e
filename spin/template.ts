/**
 * The fixed body of the Promela model: the actions of spec/transitions.ts and the
 * invariants of spec/properties.ts, written once as Promela `inline`s over a request's
 * constants (index, length, prefix group, page-table offset). `promela.ts` puts a
 * configuration's `#define`s and the action loop around it.
 *
 * Why it is shaped this way (the correspondence with pagecheck's states):
 * - Every action is one `d_step`: its guard is the step's first statement, a pure
 *   expression, so a disabled action is simply not executable, and SPIN stores no state
 *   inside it. A guard that needs a loop (free pages, the cached prefix page) is an
 *   unrolled macro instead, because a statement after the first may not block in a
 *   `d_step`.
 * - The loops inside an action need counters. SPIN's breadth-first search refuses
 *   `hidden` variables, so the counters are ordinary globals, and every action sets them
 *   back to 0 before it ends: in every stored state they are 0 and add no states.
 * - The invariants are evaluated at the end of every action, on the state it produced,
 *   into one-bit globals named after them, asserted, and set back to 1. An assertion thus
 *   fails on the transition into the first violating state, and the trail's length is
 *   the number of actions, as in pagecheck's counterexample.
 * - `printf("@kind r")` names the action in a replay (`spin -t`); verification ignores it.
 */

/** Phase codes and flag bits, as spec/state.ts stores them. */
const CONSTANTS = String.raw`
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

/** The state variables, the scratch counters and the invariant bits. */
const STATE = String.raw`
/* ---- state: the variables of spec/state.ts, byte for byte ---- */
byte holder[PAGES];               /* who holds page p: 0 nobody (free), r+1 request r, PREFIX_AT(g, j) the prefix cache (page j of g's entry) */
byte data[PAGES];                 /* whose content page p holds: the label of the last write; never cleared */
byte tag[PAGES];                  /* owner-check: the owner tag, stamped by writes, cleared by allocate */
byte phase[N];                    /* request r's phase */
byte flags[N];                    /* HIT | INSERTED | READ_UNHELD */
int observed[N];                  /* request r's read set: bit label-1 for every label its decode read */
byte table[TABLE_SIZE] = NO_PAGE; /* the page tables, request r's at its offset T */
byte dataPos[PAGES];              /* the table position page p's content was written for */
byte steps[N];                    /* decode steps request r has taken */
byte dparts[N];                   /* torn-write: content parts of r's write landed */
byte tparts[N];                   /* torn-write: tag parts of r's write landed */
byte readrec[TABLE_SIZE];         /* request r's read record, per table position, at its offset T */
byte freecnt[PAGES] = DOUBLE_FREE; /* double-free: page p's copies on the free list (a multiset); 0 otherwise */
byte fill[PAGES];                 /* token slots (FILL): how many slots of page p, from the first, hold its content; 0 otherwise */
byte tagfill[PAGES];              /* token slots under an owner check (TAG_FILL): the slots p's tag says were written; 0 otherwise */

/* ---- scratch: 0 in every stored state (see the header) ---- */
byte i;
byte pg;
short k;
int seen;
unsigned Isolation : 1 = 1;
unsigned ExclusiveHold : 1 = 1;
unsigned Conservation : 1 = 1;
unsigned ReadsOwnPages : 1 = 1;
unsigned NoDuplicateFree : 1 = 1;
unsigned NoUseAfterFree : 1 = 1;
unsigned Integrity : 1 = 1;
byte j;
byte rec;
`;

/** The actions, one inline each, in spec/transitions.ts's order. */
const ACTIONS = String.raw`
/* A write lands on a page by id: its data for position pos in its first slots slots, and under owner-check its tag. */
inline write_page(page, label, pos, slots) {
  if
  :: page != NO_PAGE ->
     data[page] = label; dataPos[page] = pos;
     if :: FILL -> fill[page] = slots :: else fi;
     if :: OWNER_CHECK -> tag[page] = label; if :: TAG_FILL -> tagfill[page] = slots :: else fi :: else fi
  :: else
  fi
}

/* A decode step after the first writes its token into the next slot of r's table (the last
   slot once the table is full); the page is r's up to that slot (spec/slots.ts). Runs after
   steps[r] was raised: the step before had decoded steps[r] - 2 tokens. */
inline write_token(r, L, T) {
  k = TOKENS(r) + steps[r] - 2;
  if :: k > L * PAGE_SIZE - 1 -> k = L * PAGE_SIZE - 1 :: else fi;
  j = k / PAGE_SIZE;
  rec = k - j * PAGE_SIZE + 1;
  pg = table[T + j];
  if
  :: pg != NO_PAGE ->
     if :: FILL -> fill[pg] = (data[pg] == r + 1 && dataPos[pg] == j && fill[pg] > rec -> fill[pg] : rec) :: else fi;
     data[pg] = r + 1; dataPos[pg] = j;
     if
     :: OWNER_CHECK ->
        if :: TAG_FILL -> tagfill[pg] = (tag[pg] == r + 1 && tagfill[pg] > rec -> tagfill[pg] : rec) :: else fi;
        tag[pg] = r + 1
     :: else
     fi
  :: else
  fi;
  j = 0; rec = 0; k = 0
}

/* The pages of r's table go back to the free list by id, except the shared prefix pages, in
   one release: a page twice in the table goes back once. Under double-free each one is
   one more copy on the free list, even when it is already there. With
   release-checks-holder (hardened), only the pages r still holds. */
inline release(r, L, T) {
  i = SHARED(r);
  do
  :: i < L ->
     if
     :: table[T + i] != NO_PAGE && (!RELEASE_CHECKS || holder[table[T + i]] == r + 1) ->
        j = SHARED(r);
        do :: j < i && table[T + j] != table[T + i] -> j++ :: else -> break od;
        if
        :: j == i ->
           if :: DOUBLE_FREE -> freecnt[table[T + i]]++ :: else fi;
           holder[table[T + i]] = 0
        :: else
        fi
     :: else
     fi;
     i++
  :: else -> break
  od;
  j = 0
}

/* Only live state (spec/liveness.ts): once r has finished, its table is dead unless a
   configured fault can release an old table again; after the second release it is
   always dead. A dead table is reset to NO_PAGE, as before allocate. */
inline settle(r, L, T) {
  if
  :: phase[r] == RELEASED || (!REREAD_FINISHED && (phase[r] == FREED || phase[r] == LANDED)) ->
     i = 0;
     do
     :: i < L -> table[T + i] = NO_PAGE; i++
     :: else -> break
     od
  :: else
  fi
}

/* P's write for r (prefill or a silent stub): whole, or posted to land part by part
   (torn-write); a late one lands nowhere under revoke-writer (hardened). */
inline post_write(r, L, G, T) {
  if
  :: phase[r] == TIMED_OUT && REVOKE_WRITER -> phase[r] = LANDED
  :: else ->
     if
     :: TORN_WRITE && WRITE_COUNT(r, L) > 0 -> dparts[r] = 0; tparts[r] = 0; phase[r] = (phase[r] == TIMED_OUT -> LANDING : WRITING)
     :: else ->
        i = 0;
        do
        :: i < WRITE_COUNT(r, L) ->
           k = WRITE_FROM(r) + i;
           pg = table[T + k];
           rec = WRITE_LABEL(r, L, G, k);
           j = WRITE_SLOTS(r, k);  /* a scratch variable: SPIN 6.5 crashes on this macro as an inline's argument */
           write_page(pg, rec, k, j);
           i++
        :: else -> break
        od;
        rec = 0;
        j = 0;
        phase[r] = (phase[r] == TIMED_OUT -> LANDED : WRITTEN)
     fi
  fi
}

/* After a part landed: when every part of r's write has, r is written (a late one, landed). */
inline finish_if_landed(r, L) {
  if
  :: dparts[r] >= WRITE_COUNT(r, L) && (!OWNER_CHECK || tparts[r] >= WRITE_COUNT(r, L)) ->
     phase[r] = (phase[r] == LANDING -> LANDED : WRITTEN)
  :: else
  fi
}

/* allocate(r): D reserves the lowest free page ids for the whole prompt (alloc_extend).
   On a prefix-cache hit the cached pages come first, page j of the entry at position j,
   shared, not taken. */
inline Allocate(r, L, G, T) {
  d_step {
    phase[r] == NEW && FREE_COUNT >= L - (HAS_CACHE(G) -> PLEN(G) : 0) ->
    k = 0;
    if
    :: HAS_CACHE(G) ->
       do
       :: k < PLEN(G) ->
          pg = 0;
          do :: holder[pg] != PREFIX_AT(G, k) -> pg++ :: else -> break od;
          table[T + k] = pg; k++
       :: else -> break
       od;
       flags[r] = flags[r] | HIT
    :: else
    fi;
    pg = 0;
    do
    :: pg < PAGES && k < L && DOUBLE_FREE && freecnt[pg] > 0 ->
       /* a sorted multiset: a page with two copies comes out twice in a row */
       freecnt[pg]--;
       holder[pg] = r + 1;
       if :: OWNER_CHECK -> tag[pg] = 0; tagfill[pg] = 0 :: else fi;
       table[T + k] = pg; k++
    :: pg < PAGES && k < L && !(DOUBLE_FREE && freecnt[pg] > 0) ->
       if
       :: !DOUBLE_FREE && holder[pg] == 0 ->
          holder[pg] = r + 1;
          if :: OWNER_CHECK -> tag[pg] = 0; tagfill[pg] = 0 :: else fi;
          table[T + k] = pg; k++
       :: else
       fi;
       pg++
    :: else -> break
    od;
    phase[r] = ALLOCATED;
    end_action(0, r)
  }
}

/* prefill(r): P writes the prompt into every page of r's table (the shared prefix pages
   excepted); at position j < PLEN(G) page j of the prefix's data when r has one. With early-free the
   write may land after D timed r out. With auto-truncate, also an over-long prompt, cut. */
inline Prefill(r, L, G, T) {
  d_step {
    (!OVER_LONG(r) || AUTO_TRUNCATE) && (phase[r] == ALLOCATED || phase[r] == TIMED_OUT) ->
    post_write(r, L, G, T);
    settle(r, L, T);
    end_action(1, r)
  }
}

/* stub(r): P meets a prompt longer than its memory. Silent stub: a one-page dummy in r's
   first own page, reported as success. Otherwise (length-fix): P refuses r and tells D. */
inline Stub(r, L, G, T) {
  d_step {
    STUB_WRITE(r) && (phase[r] == ALLOCATED || phase[r] == TIMED_OUT) ->
    if
    :: SILENT_STUB -> post_write(r, L, G, T)
    :: else ->
       phase[r] = (phase[r] == TIMED_OUT -> FREED : REFUSED)
    fi;
    settle(r, L, T);
    end_action(2, r)
  }
}

/* handoff(r): P reports Success, D commits r. Nobody compares page counts. */
inline Handoff(r, L, G, T) {
  d_step {
    phase[r] == WRITTEN ->
    phase[r] = HANDED_OFF;
    end_action(3, r)
  }
}

/* decode(r): D reads every page of r's table, whoever wrote it, up to its length. Under
   owner-check a page whose tag r may not read (or, with TAG_COUNTS, whose tag counts too
   few written slots) fails r loudly, and nothing is read. A read past a page's fill meets
   stale P-side data, another user's (STALE). */
inline Decode(r, L, G, T) {
  d_step {
    phase[r] == HANDED_OFF || phase[r] == DECODING ->
    k = 0;
    if
    :: OWNER_CHECK ->
       i = 0;
       do
       :: i < L ->
          if
          :: !MAY_READ_AT(r, G, i, tag[table[T + i]]) || TAG_COUNTS && tagfill[table[T + i]] < SLOTS_AT(r, L, i) -> k = 1
          :: else
          fi;
          i++
       :: else -> break
       od
    :: else
    fi;
    if
    :: k != 0 -> phase[r] = FAILED
    :: else ->
       i = 0;
       do
       :: i < L ->
          pg = table[T + i];
          rec = READ | data[pg] | (data[pg] != 0 && dataPos[pg] != i -> MISPLACED : 0);
          if :: FILL && data[pg] != 0 && SLOTS_AT(r, L, i) > fill[pg] && VERDICT(r, G, i, rec) != 2 -> rec = READ | STALE :: else fi;
          if :: (rec & READ_LABEL) != 0 -> observed[r] = observed[r] | (1 << ((rec & READ_LABEL) - 1)) :: else fi;
          if
          :: (readrec[T + i] & READ) == 0 || VERDICT(r, G, i, rec) > VERDICT(r, G, i, readrec[T + i]) -> readrec[T + i] = rec
          :: else
          fi;
          if
          :: holder[pg] != r + 1 && !(i < SHARED(r) && MAY_READ_AT(r, G, i, holder[pg])) ->
             flags[r] = flags[r] | READ_UNHELD
          :: else
          fi;
          i++
       :: else -> break
       od;
       steps[r] = steps[r] + 1;
       if :: steps[r] > 1 -> write_token(r, L, T) :: else fi;
       phase[r] = (steps[r] >= DECODE_STEPS -> DECODED : DECODING)
    fi;
    rec = 0;
    end_action(4, r)
  }
}

/* free(r): D releases r's pages, contents untouched. With stale-free, a second release of
   an already freed (or landed) request frees its old table again; with double-free, the
   same while every page of that table is still free (STILL_FREE, unrolled per request). */
inline Free(r, L, G, T) {
  d_step {
    phase[r] == DECODED || phase[r] == REFUSED || phase[r] == FAILED ||
    (STALE_FREE || DOUBLE_FREE && STILL_FREE(r)) && (phase[r] == FREED || phase[r] == LANDED) ->
    release(r, L, T);
    phase[r] = (phase[r] == DECODED || phase[r] == REFUSED || phase[r] == FAILED -> FREED : RELEASED);
    settle(r, L, T);
    end_action(5, r)
  }
}

/* timeout(r), fault early-free: D gives up on the transfer and frees r's pages while P's
   write is still in flight. */
inline Timeout(r, L, G, T) {
  d_step {
    EARLY_FREE && (phase[r] == ALLOCATED || phase[r] == WRITING) ->
    release(r, L, T);
    phase[r] = (phase[r] == ALLOCATED -> TIMED_OUT : (REVOKE_WRITER -> LANDED : LANDING));
    settle(r, L, T);
    end_action(6, r)
  }
}

/* insert(r): D puts r's prefix pages (positions 0 .. PLEN(G)-1) into the prefix cache,
   page j as the entry's page j. With prefix-poison also when r was refused or failed, so
   those pages were never written for the prefix. HOLDS_PREFIX(r) is unrolled per request. */
inline Insert(r, L, G, T) {
  d_step {
    G != NONE && !ANY_CACHED(G) && !SHARES(r) && HOLDS_PREFIX(r) &&
    (phase[r] == DECODED || PREFIX_POISON && (phase[r] == REFUSED || phase[r] == FAILED)) ->
    i = 0;
    do
    :: i < PLEN(G) -> holder[table[T + i]] = PREFIX_AT(G, i); i++
    :: else -> break
    od;
    flags[r] = flags[r] | INSERTED;
    end_action(7, r)
  }
}

/* landData(r), torn-write: the content part of the next page of r's write lands, by id. */
inline LandData(r, L, G, T) {
  d_step {
    (phase[r] == WRITING || phase[r] == LANDING) && dparts[r] < WRITE_COUNT(r, L) ->
    pg = table[T + WRITE_FROM(r) + dparts[r]];
    if
    :: pg != NO_PAGE ->
       data[pg] = WRITE_LABEL(r, L, G, WRITE_FROM(r) + dparts[r]); dataPos[pg] = WRITE_FROM(r) + dparts[r];
       if :: FILL -> fill[pg] = WRITE_SLOTS(r, WRITE_FROM(r) + dparts[r]) :: else fi
    :: else
    fi;
    dparts[r] = dparts[r] + 1;
    finish_if_landed(r, L);
    settle(r, L, T);
    end_action(9, r)  /* ACTION_KINDS: evict (8) is not exported */
  }
}

/* landTag(r), torn-write under an owner check: the tag part of the next page lands, by id. */
inline LandTag(r, L, G, T) {
  d_step {
    OWNER_CHECK && (phase[r] == WRITING || phase[r] == LANDING) && tparts[r] < WRITE_COUNT(r, L) ->
    pg = table[T + WRITE_FROM(r) + tparts[r]];
    if
    :: pg != NO_PAGE ->
       tag[pg] = WRITE_LABEL(r, L, G, WRITE_FROM(r) + tparts[r]);
       if :: TAG_FILL -> tagfill[pg] = WRITE_SLOTS(r, WRITE_FROM(r) + tparts[r]) :: else fi
    :: else
    fi;
    tparts[r] = tparts[r] + 1;
    finish_if_landed(r, L);
    settle(r, L, T);
    end_action(10, r)
  }
}
`;

/** The invariants, evaluated on the state an action produced. */
const INVARIANTS = String.raw`
/* One request's share of the invariants: its read set (Isolation), its reads of unheld
   pages (ReadsOwnPages), and, while it is live, its table (ExclusiveHold) and its count
   of held pages (Conservation). seen marks the non-shared pages of live tables. */
inline check_request(r, L, G, T) {
  i = 0;
  do
  :: i < L ->
     if :: VERDICT(r, G, i, readrec[T + i]) == 2 -> Isolation = 0 :: else fi;
     if :: VERDICT(r, G, i, readrec[T + i]) != 0 -> Integrity = 0 :: else fi;
     i++
  :: else -> break
  od;
  ReadsOwnPages = ReadsOwnPages && (flags[r] & READ_UNHELD) == 0;
  if
  :: LIVE(phase[r]) ->
     k = k + L - SHARED(r);
     i = 0;
     do
     :: i < L ->
        if
        :: table[T + i] == NO_PAGE -> ExclusiveHold = 0
        :: table[T + i] != NO_PAGE && i < SHARED(r) ->
           if :: holder[table[T + i]] != PREFIX_AT(G, i) -> ExclusiveHold = 0 :: else fi
        :: else ->
           if
           :: holder[table[T + i]] != r + 1 || (seen & (1 << table[T + i])) != 0 -> ExclusiveHold = 0
           :: else
           fi;
           seen = seen | (1 << table[T + i])
        fi;
        if :: table[T + i] != NO_PAGE && COPIES(table[T + i]) > 0 -> NoUseAfterFree = 0 :: else fi;
        i++
     :: else -> break
     od
  :: else
  fi
}

/* Isolation, ExclusiveHold, Conservation, ReadsOwnPages, NoDuplicateFree, NoUseAfterFree
   (spec/properties.ts), asserted in that order; then every scratch variable goes back to its stored value. */
inline end_action(kind, r) {
  printf("@%d %d\n", kind, r);
  k = 0;
  pg = 0;
  do
  :: pg < PAGES ->
     k = k + COPIES(pg) + (holder[pg] > N -> 1 : 0);
     if :: COPIES(pg) > 1 -> NoDuplicateFree = 0 :: else fi;
     pg++
  :: else -> break
  od;
  CHECK_REQUESTS;
  pg = 0;
  do
  :: pg < PAGES ->
     if :: holder[pg] >= 1 && holder[pg] <= N && (seen & (1 << pg)) == 0 -> ExclusiveHold = 0 :: else fi;
     pg++
  :: else -> break
  od;
  Conservation = (k == PAGES);
  assert(Isolation);
  assert(ExclusiveHold);
  assert(Conservation);
  assert(ReadsOwnPages);
  assert(NoDuplicateFree);
  assert(NoUseAfterFree);
  if :: CHECK_INTEGRITY -> assert(Integrity) :: else fi;
  Isolation = 1; ExclusiveHold = 1; Conservation = 1; ReadsOwnPages = 1; NoDuplicateFree = 1; NoUseAfterFree = 1; Integrity = 1;
  i = 0; pg = 0; k = 0; seen = 0
}
`;

/** The configuration-independent part of the model, in the order it must appear after the configuration's `#define`s. */
export const PROMELA_BODY = [CONSTANTS, STATE, ACTIONS, INVARIANTS].join('');
