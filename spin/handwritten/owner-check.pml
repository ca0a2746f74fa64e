/*
 * KV-cache page ownership under the owner check (variant owner-check), and with -DHARDENED
 * under hardened's two mechanisms for writes that land part by part, written by hand as a
 * SPIN user would: one process per request, its page table and what it read as locals, one
 * d_step per protocol step, in the style of length-fix.pml and early-success.pml. Not
 * generated from pagecheck and not a copy of its state layout; the independent reference of
 * `npm run bench -- handwritten-owner` (bench/handwritten-owner.ts) and of
 * test/spin/handwritten-owner.test.ts.
 *
 * What it models. Every page carries an owner tag beside its data: the label of the last
 * write, cleared when D allocates the page. D allocates the lowest free pages. P refuses a
 * request longer than its limit, or with -DSILENT_STUB (fault silent-stub, the incident)
 * writes it a one-page dummy at its first position and reports success; else it writes
 * every page, for its position, tag and data. D commits the request (handoff) once the write
 * has landed, and decode compares every page's tag with the request's own label and fails
 * loudly on any other (reading nothing), else reads every page and asserts that it read its
 * own data, each page written for its position. The release gives the pages back, data and
 * tags kept.
 *
 * Faults, each a switch. -DTORN (torn-write): a write lands part by part in table order,
 * one step each, a content part and a tag part per page, the two lists in either
 * interleaving; D commits once every part has landed. -DEARLY_FREE (early-free, SGLang
 * #24527): D may give up on a request not yet written (with -DTORN, also while its parts
 * land) and free its pages at once; the write, or its parts still in flight, land later by
 * page id in whatever holds the pages by then. -DSTALE_FREE (stale-free): a finished
 * request's table is released a second time, freeing pages another request may hold by now.
 *
 * -DHARDENED, hardened's mechanisms: revoke-writer (a timed-out request's write, and its
 * parts in flight, land nowhere) and release-checks-holder (a release frees only the pages
 * the releasing request still holds). With one slot per page, hardened's tag-counts-tokens
 * changes nothing, and the other mechanisms are for configurations not modelled here.
 *
 *   spin -DSILENT_STUB -DEARLY_FREE -o2 -a owner-check.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 *
 * With -A the whole space is explored, and runs that read differently are different states:
 * kept are what decode read per position (rd: the label, and whether it was written for
 * another position; the worse of two reads), the labels read (obs), whether decode read or
 * failed its check (stepped) and read a page it did not hold (unheld); -o2 keeps those
 * write-only variables. A finished table is forgotten, except that a second release
 * (-DSTALE_FREE) reads it, and forgets it then. A request freed with nothing in flight ends
 * at end, one whose late write landed (or, with -DHARDENED, was dropped) at endLanded.
 */
/* The configuration: up to 10 pages and 7 requests; `spin -DPAGES=6 ...` overrides it. */
#ifndef PAGES
#define PAGES 3
#endif
#ifndef LIMIT
#define LIMIT 2
#endif
#ifndef N
#define N 2
#endif
#ifndef MAXLEN
#define MAXLEN 3
#endif
#ifndef L0
#define L0 2
#define L1 3
#define L2 0
#define L3 0
#define L4 0
#define L5 0
#define L6 0
#endif
#define LEN(p) (p == 0 -> L0 : (p == 1 -> L1 : (p == 2 -> L2 : (p == 3 -> L3 : (p == 4 -> L4 : (p == 5 -> L5 : L6))))))
/* Free pages: a d_step may block only on its first statement, so the count is one expression. */
#define FREE_AT(p) (PAGES > p && holder[p] == 0)
#define FREE (FREE_AT(0) + FREE_AT(1) + FREE_AT(2) + FREE_AT(3) + FREE_AT(4) + FREE_AT(5) + FREE_AT(6) + FREE_AT(7) + FREE_AT(8) + FREE_AT(9))
#define ME (_pid + 1)
#define READ 128             /* a read record: READ + label, + 64 when misplaced */
#define MISPLACED 64
#define BIT(l) (1 << ((l) - 1))
/* how bad a read record is: 0 own data for its position, 1 garbage (nothing, or misplaced), 2 another user's */
#define BAD(x) (((x) & 63) == 0 -> 1 : (((x) & 63) != ME -> 2 : (((x) & MISPLACED) != 0 -> 1 : 0)))
/* rd[i] after reading x there: x if nothing was read before or x is worse */
#define KEEP(i, x) rd[i] = ((rd[i] & READ) == 0 || BAD(x) > BAD(rd[i]) -> (x) : rd[i])

#ifdef SILENT_STUB
#define STUBS false          /* P stubs an over-long prompt silently: one dummy page, and success */
#else
#define STUBS (LEN(_pid) > LIMIT)  /* P refuses an over-long prompt */
#endif
/* the pages P's write covers: every page, or the silent stub's one dummy page */
#define CNT ((LEN(_pid) > LIMIT) -> 1 : LEN(_pid))
#define LANDED (k == CNT && j == CNT)
/* the part about to land is the write's last: nothing else is in flight after it */
#define LAST_DATA (k + 1 == CNT && j == CNT)
#define LAST_TAG (j + 1 == CNT && k == CNT)
/* -DHARDENED is both mechanisms; -DREVOKE or -DCHECK_HOLDER alone is hardened without the other */
#if defined(HARDENED) && !defined(REVOKE)
#define REVOKE               /* revoke-writer */
#endif
#if defined(HARDENED) && !defined(CHECK_HOLDER)
#define CHECK_HOLDER         /* release-checks-holder */
#endif
#ifdef CHECK_HOLDER
#define FREES(p) (holder[p] == ME)
#else
#define FREES(p) true
#endif

byte holder[PAGES];  /* 0 free, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last content that landed */
byte pos[PAGES];     /* the table position that content was written for */
byte tag[PAGES];     /* the owner tag: the label of the last tag written, cleared by allocate */

/* landData, landTag: the next part lands in the page its table names, whoever holds it now */
inline landData() { data[tab[k]] = ME; pos[tab[k]] = k; k++ }
inline landTag() { tag[tab[j]] = ME; j++ }
/* a whole write: every page it covers gets content and tag at once */
inline writeAll() {
  i = 0;
  do :: i < CNT -> data[tab[i]] = ME; pos[tab[i]] = i; tag[tab[i]] = ME; i++ :: else -> break od;
  i = 0
}
/* the table is forgotten: nothing will read it again */
inline forget() { i = 0; do :: i < LEN(_pid) -> tab[i] = 0; i++ :: else -> break od; i = 0 }
/* a finished request's table: a second release (-DSTALE_FREE) reads it again, else it is forgotten */
#ifdef STALE_FREE
inline finish() { skip }
#else
inline finish() { forget() }
#endif
/* free: the table's pages back to the free list, data and tags kept (FREES says which) */
inline release() {
  i = 0;
  do :: i < LEN(_pid) -> if :: FREES(tab[i]) -> holder[tab[i]] = 0 :: else -> skip fi; i++ :: else -> break od;
  i = 0
}

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what decode read at each position */
  byte obs;            /* the labels read, a bit each */
  byte x;              /* the record being read */
  byte k;              /* content parts landed (-DTORN) */
  byte j;              /* tag parts landed (-DTORN) */
  bool ok;             /* decode's tag check passed */
  bool stepped;        /* decode read (it did not fail the tag check); kept after the release */
  bool unheld;         /* decode read a page it did not hold (another's stale release freed it) */
  byte i;
  byte p;

endNew:                                  /* waiting for pages */
  d_step {                               /* allocate: the lowest free pages, their tags cleared */
    FREE >= LEN(_pid) ->
    i = 0; p = 0;
    do
    :: i < LEN(_pid) && holder[p] == 0 -> holder[p] = ME; tab[i] = p; tag[p] = 0; i++; p++
    :: i < LEN(_pid) && holder[p] != 0 -> p++
    :: else -> break
    od;
    i = 0; p = 0
  }
  if
  :: d_step { STUBS -> skip };           /* stub: P refuses, nothing written */
     d_step { release(); finish() };     /* free */
     goto end
#ifdef TORN
  :: d_step { !STUBS -> skip }           /* prefill (or the silent stub): P posts its write */
#else
  :: d_step { !STUBS -> writeAll() }     /* prefill (or the silent stub): the write lands */
#endif
#ifdef EARLY_FREE
  :: d_step { release() }; goto timedOut /* timeout: D gives up before P wrote */
#endif
  fi;
#ifdef TORN
writing:                                 /* parts landing; with all landed, written */
  if
  :: d_step { k < CNT -> landData() }; goto writing
  :: d_step { j < CNT -> landTag() }; goto writing
  :: d_step { LANDED -> skip }           /* handoff: D commits */
#ifdef EARLY_FREE
#ifdef REVOKE
  :: d_step { !LANDED -> release(); finish() }; goto endLanded  /* timeout: P's access revoked, the rest dropped */
#else
  :: d_step { !LANDED -> release() }; goto landing  /* timeout: the rest land later */
#endif
#endif
  fi;
#else
  d_step { skip };                       /* handoff: D commits */
#endif
  d_step {                               /* decode: the tag check, then read every page */
    ok = true;
    i = 0;
    do :: i < LEN(_pid) -> ok = ok && tag[tab[i]] == ME; i++ :: else -> break od;
    i = 0;
    do
    :: ok && i < LEN(_pid) ->
       x = READ + data[tab[i]] + (data[tab[i]] != 0 && pos[tab[i]] != i -> MISPLACED : 0);
       if :: data[tab[i]] != 0 -> obs = obs | BIT(data[tab[i]]) :: else -> skip fi;
       unheld = unheld || holder[tab[i]] != ME;
       assert(data[tab[i]] == ME && pos[tab[i]] == i);
       KEEP(i, x); i++
    :: else -> break
    od;
    stepped = ok; i = 0; x = 0; ok = false }
  d_step { release(); finish() };        /* free */
  goto end;
#ifdef EARLY_FREE
timedOut:                                /* D freed the pages; P does not know */
  if
  :: d_step { STUBS -> finish() }; goto end   /* stub: P refuses, nothing written */
#ifdef REVOKE
  :: d_step { !STUBS -> finish() }; goto endLanded   /* prefill, late: it lands nowhere */
#elif defined(TORN)
  :: d_step { !STUBS -> skip }; goto landing   /* prefill, late: its parts land by page id */
#else
  :: d_step { !STUBS -> writeAll(); finish() }; goto endLanded   /* prefill, late: it lands by page id */
#endif
  fi;
#endif
#ifdef TORN
landing:                                 /* released; the rest land by page id, in others' pages */
  if
  :: d_step { k < CNT && !LAST_DATA -> landData() }; goto landing
  :: d_step { LAST_DATA -> landData(); finish() }; goto endLanded
  :: d_step { j < CNT && !LAST_TAG -> landTag() }; goto landing
  :: d_step { LAST_TAG -> landTag(); finish() }; goto endLanded
  fi;
#endif
endLanded:                               /* its late write landed */
  if
#ifdef STALE_FREE
  :: d_step { release(); forget() }; goto endReleased  /* free, a second time (the abort path and the normal one) */
#endif
  :: false
  fi;
end:                                     /* freed */
  if
#ifdef STALE_FREE
  :: d_step { release(); forget() }; goto endReleased  /* free, a second time */
#endif
  :: false
  fi;
endReleased:
  false
}
