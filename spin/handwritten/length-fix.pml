/*
 * KV-cache page ownership under the length fix, written by hand as a SPIN user would:
 * one process per request, its page table a local array, one d_step per protocol step.
 * Not generated from pagecheck and not a copy of its state layout; it is the independent
 * reference of `npm run bench` (bench/spin.ts, "handwritten").
 *
 * Configuration (the defines below): 9 pages, prefill limit 3, requests of 1,2,2,3,3,4,5
 * pages. D allocates the lowest free pages; P writes a request's data into every page,
 * or refuses a request longer than its limit (the length fix); D decodes (and the
 * assertion says it read only its own data) and frees the pages, whose data stay.
 *
 *   spin -a length-fix.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -w25
 *
 * "states, stored" is the number of reachable states. `free` forgets the table: SPIN's
 * data-flow optimisation does not reset a dead local array, and without that line the
 * count is that of pagecheck's naive encoding (`compile(config, { keepDeadState: true })`).
 */
/* The configuration; `spin -DPAGES=6 ...` overrides it (the cross-check test does). */
#ifndef PAGES
#define PAGES 9
#endif
#ifndef LIMIT
#define LIMIT 3
#endif
#ifndef N
#define N 7
#endif
#ifndef MAXLEN
#define MAXLEN 5
#endif
/* Request p's length in pages (up to 7 requests). */
#ifndef L0
#define L0 1
#define L1 2
#define L2 2
#define L3 3
#define L4 3
#define L5 4
#define L6 5
#endif
#define LEN(p) (p == 0 -> L0 : (p == 1 -> L1 : (p == 2 -> L2 : (p == 3 -> L3 : (p == 4 -> L4 : (p == 5 -> L5 : L6))))))
/* Free pages, for pools of up to 9: a d_step may block only on its first statement, so the count is one expression. */
#define FREE_AT(p) (PAGES > p && holder[p] == 0)
#define FREE (FREE_AT(0) + FREE_AT(1) + FREE_AT(2) + FREE_AT(3) + FREE_AT(4) + FREE_AT(5) + FREE_AT(6) + FREE_AT(7) + FREE_AT(8))

byte holder[PAGES];  /* 0 free, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the pid + 1 of the last writer; never cleared */
byte pos[PAGES];     /* the table position the last write was for (content has a position); never cleared */

active [N] proctype Request() {
  byte tab[MAXLEN];
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
     d_step {                           /* decode: read every page, all our own */
       i = 0;
       do :: i < LEN(_pid) -> assert(data[tab[i]] == _pid + 1 && pos[tab[i]] == i); i++ :: else -> break od;
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
