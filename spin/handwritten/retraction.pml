/*
 * Retraction and resume under the length fix, written by hand as a SPIN user would, beside
 * length-fix.pml (the same shape: one process per request, its page table a local array,
 * one d_step per protocol step). Not generated from pagecheck and not a copy of its state
 * layout; the independent reference of test/spin/handwritten-retraction.test.ts.
 *
 * D allocates the lowest free pages; P writes a request's data into every page, or
 * refuses a request longer than its limit (the length fix). A handed-off request either
 * decodes (the assertion says it read only its own data, each page written for its
 * position) or is retracted: its KV is copied to host memory (the local arrays sdata,
 * spos), then its pages are freed, data kept. Retracted, it waits until as many pages as
 * its table holds are free, takes the lowest ones, loads the copy into them, and is handed
 * off again, as SGLang's resume_retracted_reqs -> _pre_alloc -> load_kv_cache. It may be
 * retracted any number of times. With -DOFFLOAD_AFTER_FREE (fault offload-after-free,
 * SGLang PR #30899) the pages are freed first and the copy reads them later, in a step of
 * its own, whoever holds them by then; with -DRESUME_STALE (fault resume-stale, PR #35957)
 * the resume skips the load.
 *
 *   spin -o2 -a retraction.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 *
 * Dead variables are reset where they die, as length-fix.pml forgets the table at free:
 * the copy after the load, the table at free. `resumed` is a ghost bit, for the witness
 * that a request held a second time; it is never reset, and never read by the model, so
 * SPIN would hide it from the state vector without -o2.
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
#define L0 2
#define L1 1
#define L2 0
#endif
#define LEN(p) (p == 0 -> L0 : (p == 1 -> L1 : L2))
#define FREE_AT(p) (PAGES > p && holder[p] == 0)
#define FREE (FREE_AT(0) + FREE_AT(1) + FREE_AT(2) + FREE_AT(3) + FREE_AT(4) + FREE_AT(5))

byte holder[PAGES];  /* 0 free, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the pid + 1 of the last writer; never cleared */
byte pos[PAGES];     /* the table position the last write was for; never cleared */
bool resumed[N];     /* ghost: the request holds, or held, a second time */

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte sdata[MAXLEN];  /* the host copy: what each page of the table held */
  byte spos[MAXLEN];
  byte i;
  byte p;

  /* allocate: wait until enough pages are free, then take the lowest ones */
  d_step {
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
  :: d_step { LEN(_pid) <= LIMIT ->  /* prefill: P writes every page */
       i = 0;
       do :: i < LEN(_pid) -> data[tab[i]] = _pid + 1; pos[tab[i]] = i; i++ :: else -> break od;
       i = 0 }
     skip;                              /* handoff: D commits */
handedOff:
     if
     :: d_step {                        /* decode: read every page, all our own */
          i = 0;
          do :: i < LEN(_pid) -> assert(data[tab[i]] == _pid + 1 && pos[tab[i]] == i); i++ :: else -> break od;
          i = 0 }
     :: d_step {                        /* retract: copy to host memory, then free (the table is kept) */
          i = 0;
          do
          :: i < LEN(_pid) ->
#ifndef OFFLOAD_AFTER_FREE
             sdata[i] = data[tab[i]]; spos[i] = pos[tab[i]];
#endif
             holder[tab[i]] = 0; i++
          :: else -> break
          od;
          i = 0 };
#ifdef OFFLOAD_AFTER_FREE
        d_step {                        /* offload: the copy reads the old pages only now */
          i = 0;
          do :: i < LEN(_pid) -> sdata[i] = data[tab[i]]; spos[i] = pos[tab[i]]; i++ :: else -> break od;
          i = 0 };
#endif
        d_step {                        /* resume: the lowest free pages, the copy loaded into them */
          FREE >= LEN(_pid) ->
          i = 0; p = 0;
          do
          :: i < LEN(_pid) && holder[p] == 0 ->
             holder[p] = _pid + 1; tab[i] = p;
#ifndef RESUME_STALE
             data[p] = sdata[i]; pos[p] = spos[i];
#endif
             sdata[i] = 0; spos[i] = 0; i++; p++
          :: i < LEN(_pid) && holder[p] != 0 -> p++
          :: else -> break
          od;
          resumed[_pid] = true;
          i = 0; p = 0 };
        goto handedOff
     fi
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
