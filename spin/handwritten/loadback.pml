/*
 * The host cache's load back under the length fix, written by hand as a SPIN user would,
 * beside source-pages.pml (one process per request, one d_step per protocol step). Not
 * generated from pagecheck and not a copy of its state layout; the independent reference of
 * test/spin/handwritten-loadback.test.ts.
 *
 * Request SYSREQ has a prompt prefix of one page (label SYS), the others none. The prefix
 * is in host memory from the start (hostCopy 0). D allocates the lowest free pages; when
 * the host copy still holds the prefix, the request posts a load into its first page
 * (load 1) and P writes only the pages past it, else P writes them all (its prefix page
 * with SYS). P refuses a request longer than its limit (the length fix). The Loader lands
 * the load (load 2), copying what the host slot holds then: SYS, or STALE once the copy was
 * evicted and its slot reused. The Host evicts the copy when host memory runs short, but
 * never under a posted load; with -DHOST_EVICT_DURING_LOAD (fault host-evict-during-load,
 * evict_host without protect_host) also under one. Decode waits for the load, reads every
 * page (asserting it read its own data or its prefix, each for its position) and, for the
 * prefixed request, may then insert its prefix page into D's cache (held by SYS from then
 * on); the release frees the pages it still holds, data kept. A load still posted when its
 * request lets go of its pages (a refused request's) lands nowhere, as SGLang's loading
 * nodes stay locked until the load is acknowledged. A request that waits for pages forever
 * (the cache does not evict) is a valid end state here; pagecheck reports it as Deadlock and
 * goes on, so both explore the whole space.
 *
 *   spin -DHOST_EVICT_DURING_LOAD -o2 -a loadback.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 */
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
#define MAXLEN 2
#endif
#ifndef SYSREQ
#define SYSREQ 1
#endif
#ifndef L0
#define L0 1
#define L1 2
#define L2 0
#endif
#define LEN(p) (p == 0 -> L0 : (p == 1 -> L1 : L2))
#define FREE_AT(p) (PAGES > p && holder[p] == 0)
#define FREE (FREE_AT(0) + FREE_AT(1) + FREE_AT(2) + FREE_AT(3) + FREE_AT(4) + FREE_AT(5))
#define SYS (N + 1)          /* the prefix's KV, page 0 */
#define STALE (N + 2)        /* another user's KV, written into the reused host slot */
#define READ 128             /* a decode read record: READ + label, + 64 when misplaced */
#define MISPLACED 64
#define NOWHERE 255          /* the page of a load whose request let go of its pages */
#define OWN(i) ((i == 0 && _pid == SYSREQ) -> SYS : _pid + 1)

byte holder[PAGES];  /* 0 free, SYS cached, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last write */
byte pos[PAGES];     /* the table position the last write was for */
byte hostCopy;       /* 0: the host slot holds the prefix's KV; 1: evicted, reused */
byte load;           /* the prefixed request's load back: 0 none, 1 posted, 2 landed */
byte loadPage;       /* the page the load writes (the prefixed request's first page) */

/* free: the pages it still holds go back, data kept; the table is forgotten */
inline release() {
  i = 0;
  do :: i < LEN(_pid) -> if :: holder[tab[i]] == _pid + 1 -> holder[tab[i]] = 0 :: else -> skip fi; tab[i] = 0; i++ :: else -> break od;
  i = 0;
  if :: _pid == SYSREQ && load == 1 -> loadPage = NOWHERE :: else -> skip fi  /* its load lands nowhere */
}

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what decode read at each position */
  bool inserted;       /* its prefix page went into D's cache */
  byte i;
  byte p;

endNew:                                  /* without eviction the cache may keep the pages it waits for */
  d_step {                               /* allocate: the lowest free pages; a host hit posts the load */
    FREE >= LEN(_pid) ->
    i = 0; p = 0;
    do
    :: i < LEN(_pid) && holder[p] == 0 -> holder[p] = _pid + 1; tab[i] = p; i++; p++
    :: i < LEN(_pid) && holder[p] != 0 -> p++
    :: else -> break
    od;
    if
    :: _pid == SYSREQ && hostCopy == 0 -> load = 1; loadPage = tab[0]
    :: else -> skip
    fi;
    i = 0; p = 0
  }
  if
  :: d_step {                            /* prefill: P writes every page but a loaded prefix */
       LEN(_pid) <= LIMIT ->
       i = (_pid == SYSREQ && load != 0 -> 1 : 0);
       do
       :: i < LEN(_pid) -> data[tab[i]] = OWN(i); pos[tab[i]] = i; i++
       :: else -> break
       od;
       i = 0 }
     skip;                               /* handoff: D commits */
     d_step {                            /* decode: waits for the load, reads every page */
       (_pid != SYSREQ || load != 1) ->
       i = 0;
       do
       :: i < LEN(_pid) ->
          rd[i] = READ + data[tab[i]] + (data[tab[i]] != 0 && pos[tab[i]] != i -> MISPLACED : 0);
          assert(data[tab[i]] == OWN(i) && pos[tab[i]] == i); i++
       :: else -> break
       od;
       i = 0 }
decoded:
     if
     :: d_step {                         /* insert: the prefix page goes into D's cache */
          _pid == SYSREQ && !inserted && holder[tab[0]] == _pid + 1 ->
          holder[tab[0]] = SYS; inserted = true };
        goto decoded
     :: d_step { release() }             /* free */
     fi
  :: d_step { LEN(_pid) > LIMIT -> skip };  /* stub: P refuses, nothing written */
     d_step { release() }                /* free */
  fi;
end:
  false
}

active proctype Loader() {               /* loadBack: the load lands, copying the host slot now */
endWait:                                 /* a load never posted is no error */
  d_step {
    load == 1 ->
    if :: loadPage != NOWHERE -> data[loadPage] = (hostCopy == 1 -> STALE : SYS); pos[loadPage] = 0 :: else -> skip fi;
    load = 2; loadPage = 0 };
end:
  false
}

active proctype Host() {                 /* evictHost: host memory runs short */
endWait:                                 /* host memory may never run short */
#ifdef HOST_EVICT_DURING_LOAD
  d_step { hostCopy == 0 -> hostCopy = 1 };
#else
  d_step { hostCopy == 0 && load != 1 -> hostCopy = 1 };
#endif
end:
  false
}
