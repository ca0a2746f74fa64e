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
#define HIT         1  /* allocated on its prefix's cached page */
#define INSERTED    2  /* its first page went into the prefix cache */
#define READ_UNHELD 4  /* its decode read a page it did not hold */
#define NO_PAGE     255
#define NONE        255 /* no prefix group */

/* ---- helpers over a request's constants (r, L, G, T) ---- */
#define LIVE(ph)          ((ph) >= ALLOCATED && (ph) <= FAILED)
#define SHARES(r)         ((flags[r] & (HIT | INSERTED)) != 0)
#define PREFIX(G)         (N + 1 + (G))
#define MAY_READ(r, G, x) ((x) == (r) + 1 || ((G) != NONE && (x) == PREFIX(G)))
#define HAS_CACHE(G)      ((G) != NONE && CACHED(G))
/* Copies of page p on the free list: counted under double-free (a multiset), else free = held by nobody. */
#define COPIES(p)         (DOUBLE_FREE -> freecnt[p] : (holder[p] == 0 -> 1 : 0))
`;

/** The state variables, the scratch counters and the invariant bits. */
const STATE = String.raw`
/* ---- state: the variables of spec/state.ts, byte for byte ---- */
byte holder[PAGES];               /* who holds page p: 0 nobody (free), r+1 request r, PREFIX(g) the prefix cache */
byte data[PAGES];                 /* whose content page p holds: the label of the last write; never cleared */
byte tag[PAGES];                  /* owner-check: the owner tag, stamped by writes, cleared by allocate */
byte phase[N];                    /* request r's phase */
byte flags[N];                    /* HIT | INSERTED | READ_UNHELD */
int observed[N];                  /* request r's read set: bit label-1 for every label its decode read */
byte table[TABLE_SIZE] = NO_PAGE; /* the page tables, request r's at its offset T */
byte freecnt[PAGES] = DOUBLE_FREE; /* double-free: page p's copies on the free list (a multiset); 0 otherwise */

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
byte j;
`;

/** The actions, one inline each, in spec/transitions.ts's order. */
const ACTIONS = String.raw`
/* A write lands on a page by id: its data, and under owner-check its tag. */
inline write_page(page, label) {
  if
  :: page != NO_PAGE -> data[page] = label; if :: OWNER_CHECK -> tag[page] = label :: else fi
  :: else
  fi
}

/* The pages of r's table go back to the free list by id, except a shared prefix page, in
   one release: a page twice in the table goes back once. Under double-free each one is
   one more copy on the free list, even when it is already there. */
inline release(r, L, T) {
  i = (SHARES(r) -> 1 : 0);
  do
  :: i < L ->
     if
     :: table[T + i] != NO_PAGE ->
        j = (SHARES(r) -> 1 : 0);
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

/* allocate(r): D reserves the lowest free page ids for the whole prompt (alloc_extend).
   On a prefix-cache hit the cached page comes first, shared, not taken. */
inline Allocate(r, L, G, T) {
  d_step {
    phase[r] == NEW && FREE_COUNT >= L - (HAS_CACHE(G) -> 1 : 0) ->
    k = 0;
    if
    :: HAS_CACHE(G) ->
       pg = 0;
       do :: holder[pg] != PREFIX(G) -> pg++ :: else -> break od;
       table[T] = pg; flags[r] = flags[r] | HIT; k = 1
    :: else
    fi;
    pg = 0;
    do
    :: pg < PAGES && k < L && DOUBLE_FREE && freecnt[pg] > 0 ->
       /* a sorted multiset: a page with two copies comes out twice in a row */
       freecnt[pg]--;
       holder[pg] = r + 1;
       if :: OWNER_CHECK -> tag[pg] = 0 :: else fi;
       table[T + k] = pg; k++
    :: pg < PAGES && k < L && !(DOUBLE_FREE && freecnt[pg] > 0) ->
       if
       :: !DOUBLE_FREE && holder[pg] == 0 ->
          holder[pg] = r + 1;
          if :: OWNER_CHECK -> tag[pg] = 0 :: else fi;
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

/* prefill(r): P writes the prompt into every page of r's table (a shared prefix page
   excepted); the first page holds the prefix's data when r has one. With early-free the
   write may land after D timed r out. */
inline Prefill(r, L, G, T) {
  d_step {
    L <= PREFILL_LIMIT && (phase[r] == ALLOCATED || phase[r] == TIMED_OUT) ->
    i = (SHARES(r) -> 1 : 0);
    do
    :: i < L ->
       if
       :: i == 0 && G != NONE -> write_page(table[T + i], PREFIX(G))
       :: else -> write_page(table[T + i], r + 1)
       fi;
       i++
    :: else -> break
    od;
    phase[r] = (phase[r] == TIMED_OUT -> LANDED : WRITTEN);
    settle(r, L, T);
    end_action(1, r)
  }
}

/* stub(r): P meets a prompt longer than its memory. Silent stub: a one-page dummy in r's
   first own page, reported as success. Otherwise (length-fix): P refuses r and tells D. */
inline Stub(r, L, G, T) {
  d_step {
    L > PREFILL_LIMIT && (phase[r] == ALLOCATED || phase[r] == TIMED_OUT) ->
    if
    :: SILENT_STUB ->
       write_page(table[T + (SHARES(r) -> 1 : 0)], r + 1);
       phase[r] = (phase[r] == TIMED_OUT -> LANDED : WRITTEN)
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

/* decode(r): D reads every page of r's table, whoever wrote it. Under owner-check a page
   whose tag r may not read fails r loudly, and nothing is read. */
inline Decode(r, L, G, T) {
  d_step {
    phase[r] == HANDED_OFF ->
    k = 0;
    if
    :: OWNER_CHECK ->
       i = 0;
       do
       :: i < L -> if :: !MAY_READ(r, G, tag[table[T + i]]) -> k = 1 :: else fi; i++
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
          if :: data[pg] != 0 -> observed[r] = observed[r] | (1 << (data[pg] - 1)) :: else fi;
          if
          :: holder[pg] != r + 1 && !(i == 0 && SHARES(r) && MAY_READ(r, G, holder[pg])) ->
             flags[r] = flags[r] | READ_UNHELD
          :: else
          fi;
          i++
       :: else -> break
       od;
       phase[r] = DECODED
    fi;
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
    EARLY_FREE && phase[r] == ALLOCATED ->
    release(r, L, T);
    phase[r] = TIMED_OUT;
    end_action(6, r)
  }
}

/* insert(r): D puts r's first page into the prefix cache. With prefix-poison also when r
   was refused or failed, so that page was never written for the prefix. */
inline Insert(r, L, G, T) {
  d_step {
    G != NONE && !CACHED(G) && !SHARES(r) && table[T] != NO_PAGE && holder[table[T]] == r + 1 &&
    (phase[r] == DECODED || PREFIX_POISON && (phase[r] == REFUSED || phase[r] == FAILED)) ->
    holder[table[T]] = PREFIX(G);
    flags[r] = flags[r] | INSERTED;
    end_action(7, r)
  }
}
`;

/** The invariants, evaluated on the state an action produced. */
const INVARIANTS = String.raw`
/* One request's share of the invariants: its read set (Isolation), its reads of unheld
   pages (ReadsOwnPages), and, while it is live, its table (ExclusiveHold) and its count
   of held pages (Conservation). seen marks the non-shared pages of live tables. */
inline check_request(r, L, G, T) {
  Isolation = Isolation && (observed[r] & ~((1 << r) | (G != NONE -> 1 << (N + G) : 0))) == 0;
  ReadsOwnPages = ReadsOwnPages && (flags[r] & READ_UNHELD) == 0;
  if
  :: LIVE(phase[r]) ->
     k = k + L - (SHARES(r) -> 1 : 0);
     i = 0;
     do
     :: i < L ->
        if
        :: table[T + i] == NO_PAGE -> ExclusiveHold = 0
        :: table[T + i] != NO_PAGE && i == 0 && SHARES(r) ->
           if :: holder[table[T]] != PREFIX(G) -> ExclusiveHold = 0 :: else fi
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
  Isolation = 1; ExclusiveHold = 1; Conservation = 1; ReadsOwnPages = 1; NoDuplicateFree = 1; NoUseAfterFree = 1;
  i = 0; pg = 0; k = 0; seen = 0
}
`;

/** The configuration-independent part of the model, in the order it must appear after the configuration's `#define`s. */
export const PROMELA_BODY = [CONSTANTS, STATE, ACTIONS, INVARIANTS].join('');
