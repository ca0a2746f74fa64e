/*
 * The draft model's KV under the length fix, written by hand as a SPIN user would, beside
 * source-pages.pml (one process per request, its page table a local array, one d_step per
 * protocol step). Not generated from pagecheck and not a copy of its state layout; the
 * independent reference of test/spin/handwritten-draft.test.ts.
 *
 * Every page holds a draft model's KV beside the target's. D allocates the lowest free
 * pages; a request with the prompt prefix "sys" (one page) whose entry is cached shares
 * the entry's page at position 0 and takes the rest. P writes the target KV of every
 * position it does not share at once (prefill), and posts the draft part, which lands on
 * its own (landDraft); D commits once it has. Decode reads both KVs of every page, once,
 * and keeps per position the worse of the two reads (ok, garbage, another's), with the
 * labels it read. A decoded request with the prefix that did not share it may insert its
 * page 0 into the cache; the release frees the pages it does not share, data kept, and
 * forgets the table. With -DDRAFT_STALE (fault draft-stale, SGLang PR #19897) the draft part
 * skips the prefix's position: P's cache hit it and its draft KV was never filled.
 *
 *   spin -DDRAFT_STALE -o2 -a draft.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 */
#ifndef PAGES
#define PAGES 3
#endif
#ifndef LIMIT
#define LIMIT 3
#endif
#ifndef N
#define N 2
#endif
#ifndef MAXLEN
#define MAXLEN 2
#endif
#ifndef L0
#define L0 1
#define L1 2
#define P0 0
#define P1 1
#endif
#ifndef L2
#define L2 0
#define P2 0
#endif
#define LEN(r) (r == 0 -> L0 : (r == 1 -> L1 : L2))
#define PFX(r) (r == 0 -> P0 : (r == 1 -> P1 : P2))
#define SYS (N + 1)          /* the prefix's label (its one page) */
#define NONE 255
#define FREE_AT(p) (PAGES > p && holder[p] == 0)
#define FREE (FREE_AT(0) + FREE_AT(1) + FREE_AT(2) + FREE_AT(3))
#define READ 128             /* a decode read record: READ + label, + 64 when misplaced */
#define MISPLACED 64
#define LBL(x) (x & 63)
#define WRITTEN(i) (PFX(_pid) && i == 0 -> SYS : _pid + 1)
#define MAYREAD(l, i) (l == _pid + 1 || (PFX(_pid) && i == 0 && l == SYS))
/* How bad a read record is at position i: 0 ok, 1 garbage (nothing, or written for another position), 2 another's. */
#define SEV(x, i) ((x & READ) == 0 -> 0 : (LBL(x) == 0 -> 1 : (!MAYREAD(LBL(x), i) -> 2 : ((x & MISPLACED) != 0 -> 1 : 0))))
#ifdef DRAFT_STALE
#define SKIPS(i) (PFX(_pid) && i == 0)
#else
#define SKIPS(i) false
#endif

byte holder[PAGES];  /* 0 free, a request's pid + 1, or SYS: the cache entry's */
byte data[PAGES];    /* the target KV: 0 never written, else the label written */
byte pos[PAGES];     /* the table position the target KV was written for */
byte draft[PAGES];   /* the draft KV: 0 never written, else the label written */
byte centry = NONE;  /* the cache entry's page (NONE: not cached); holder[centry] == SYS */

/* free: the pages it does not share go back, data kept; forget the table (the locals of the request calling it). */
inline release() {
  i = sh;
  do :: i < LEN(_pid) -> holder[tab[i]] = 0; i++ :: else -> break od;
  i = 0;
  do :: i < LEN(_pid) -> tab[i] = 0; i++ :: else -> break od;
  i = 0
}

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what decode read at each position, the worse of the two KVs */
  byte obs;            /* the labels decode read, bit label - 1 */
  bool hit;            /* its position 0 is the cache entry's page */
  bool ins;            /* it inserted its position 0 into the cache */
  byte sh;             /* positions shared with the cache: 1 after a hit or an insert */
  byte rec;
  byte i;
  byte p;

  d_step {                               /* allocate: the entry's page on a hit, then the lowest free pages */
    (PFX(_pid) && centry != NONE -> FREE + 1 : FREE) >= LEN(_pid) ->
    i = 0; p = 0;
    if
    :: PFX(_pid) && centry != NONE -> tab[0] = centry; hit = true; sh = 1; i = 1
    :: else -> skip
    fi;
    do
    :: i < LEN(_pid) && holder[p] == 0 -> holder[p] = _pid + 1; tab[i] = p; i++; p++
    :: i < LEN(_pid) && holder[p] != 0 -> p++
    :: else -> break
    od;
    i = 0; p = 0
  }
  d_step {                               /* prefill: the target KV lands whole, the draft part is posted */
    LEN(_pid) <= LIMIT ->
    i = sh;
    do :: i < LEN(_pid) -> data[tab[i]] = WRITTEN(i); pos[tab[i]] = i; i++ :: else -> break od;
    i = 0
  }
  d_step {                               /* landDraft: the draft KV of every position written, less those it skips */
    i = sh;
    do
    :: i < LEN(_pid) && !SKIPS(i) -> draft[tab[i]] = WRITTEN(i); i++
    :: i < LEN(_pid) && SKIPS(i) -> i++
    :: else -> break
    od;
    i = 0
  }
  skip;                                  /* handoff: D commits */
  d_step {                               /* decode: read both KVs of every page */
    i = 0;
    do
    :: i < LEN(_pid) ->
       p = tab[i];
       rec = READ + data[p] + (data[p] != 0 && pos[p] != i -> MISPLACED : 0);
       if :: data[p] != 0 -> obs = obs | (1 << (data[p] - 1)) :: else -> skip fi;
       if :: draft[p] != 0 -> obs = obs | (1 << (draft[p] - 1)) :: else -> skip fi;
       if :: SEV(READ + draft[p], i) > SEV(rec, i) -> rec = READ + draft[p] :: else -> skip fi;
       rd[i] = rec;
       assert(SEV(rec, i) == 0);
       i++
    :: else -> break
    od;
    i = 0; p = 0; rec = 0
  }
  if
  :: d_step {                            /* insert: its page 0 becomes the cache entry's */
       PFX(_pid) && !hit && centry == NONE -> holder[tab[0]] = SYS; centry = tab[0]; ins = true; sh = 1 };
     d_step { release() }
  :: d_step { release() }                /* free without an insert */
  fi;
end:
  false
}
