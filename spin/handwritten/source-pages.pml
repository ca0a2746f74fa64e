/*
 * P's source pages under the length fix, written by hand as a SPIN user would, beside
 * length-fix.pml and retraction.pml (one process per request, its page table a local
 * array, one d_step per protocol step). Not generated from pagecheck and not a copy of its
 * state layout; the independent reference of test/spin/handwritten-source-pages.test.ts.
 *
 * D allocates the lowest free pages; P refuses a request longer than its limit (the length
 * fix), or posts its write, which lands page by page in table order, one step each (a torn
 * write: a content part per page, no tag under the length fix). Each part copies what P's
 * source page holds when it lands. With -DSOURCE_EARLY_FREE (fault source-early-free,
 * SGLang's process_disagg_prefill_inflight_queue freeing on KVPoll.Failed) P may abort the
 * request while parts are still to land and free its source page, which P's next prefill,
 * another user's, overwrites: every part that lands after that copies STALE, that user's
 * KV. When the last part has landed the transfer no longer reads the source, and whether it
 * was freed is forgotten. D commits, decodes once (asserting it read its own data, each
 * page written for its position) and frees the pages, data kept.
 *
 *   spin -DSOURCE_EARLY_FREE -o2 -a source-pages.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 *
 * What decode read is kept per position (rd, spos-style local arrays), as a record of the
 * label and whether it was written for another position: with -A the whole space is
 * explored, and two runs that read different things are different states.
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
#ifndef L0
#define L0 2
#define L1 1
#define L2 0
#endif
#define LEN(p) (p == 0 -> L0 : (p == 1 -> L1 : L2))
#define FREE_AT(p) (PAGES > p && holder[p] == 0)
#define FREE (FREE_AT(0) + FREE_AT(1) + FREE_AT(2) + FREE_AT(3) + FREE_AT(4) + FREE_AT(5))
#define STALE (N + 1)        /* another user's KV, computed by P into a reused source page */
#define READ 128             /* a decode read record: READ + label, + 64 when misplaced */
#define MISPLACED 64

byte holder[PAGES];  /* 0 free, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last part that landed */
byte pos[PAGES];     /* the table position the last part was written for */

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what decode read at each position */
  byte k;              /* content parts landed */
  bool freed;          /* P freed the source page of the write in flight */
  byte i;
  byte p;

  d_step {                               /* allocate: the lowest free pages */
    FREE >= LEN(_pid) ->
    i = 0; p = 0;
    do
    :: i < LEN(_pid) && holder[p] == 0 -> holder[p] = _pid + 1; tab[i] = p; i++; p++
    :: i < LEN(_pid) && holder[p] != 0 -> p++
    :: else -> break
    od;
    i = 0; p = 0
  }
  if
  :: d_step { LEN(_pid) <= LIMIT -> k = 0 }  /* prefill: P posts its write */
writing:
     if
     :: d_step {                         /* landData, not the last part: it copies the source */
          k + 1 < LEN(_pid) ->
          data[tab[k]] = (freed -> STALE : _pid + 1); pos[tab[k]] = k; k++ };
        goto writing
     :: d_step {                         /* landData, the last part: the source is read no more */
          k + 1 == LEN(_pid) ->
          data[tab[k]] = (freed -> STALE : _pid + 1); pos[tab[k]] = k; k++; freed = false }
#ifdef SOURCE_EARLY_FREE
     :: d_step { !freed -> freed = true };  /* abortSource: P frees the source page early */
        goto writing
#endif
     fi;
     skip;                               /* handoff: D commits */
     d_step {                            /* decode: read every page */
       i = 0;
       do
       :: i < LEN(_pid) ->
          rd[i] = READ + data[tab[i]] + (data[tab[i]] != 0 && pos[tab[i]] != i -> MISPLACED : 0);
          assert(data[tab[i]] == _pid + 1 && pos[tab[i]] == i); i++
       :: else -> break
       od;
       i = 0 }
  :: d_step { LEN(_pid) > LIMIT -> skip }  /* stub: P refuses, nothing written */
  fi;
  d_step {                               /* free: pages back to the free list, data kept; forget the table */
    i = 0;
    do :: i < LEN(_pid) -> holder[tab[i]] = 0; tab[i] = 0; i++ :: else -> break od;
    i = 0
  }
end:
  false
}
