/*
 * D's state slots and metadata rows under the length fix, written by hand as a SPIN user
 * would, beside length-fix.pml and source-pages.pml (one process per request, its page
 * table a local array, one d_step per protocol step). Not generated from pagecheck and not
 * a copy of its state layout; the independent reference of test/spin/handwritten-state-slots.test.ts.
 *
 * D has a pool of N state slots (a hybrid model's recurrent state, SGLang's MambaPool) and
 * one of N metadata rows (MetadataBuffers, by ReqToMetadataIdxAllocator). allocate takes
 * the lowest free pages, the lowest free slot and the lowest free row; P refuses a request
 * longer than its limit (the length fix), or writes every page, the request's state into
 * its slot and its first output token into its row. handoff (D's commit) reads the row and
 * frees it; decode reads every page and the slot; free gives the pages and the slot back.
 * With -DSLOT_REUSE (fault state-slot-reuse) the commit frees the state slot too, while the
 * request still decodes from it. With -DMETA_COLLISION (fault metadata-collision) the row
 * allocator hands out row 0 whoever holds it.
 *
 *   spin -DSLOT_REUSE -o2 -a state-slots.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 *
 * What the commit and decode read is kept per position (rd, a label and READ), and the
 * labels read as a bit set (obs): with -A the whole space is explored, and two runs that
 * read different things are different states. A read of another user's state or token is
 * kept at position 0 over a read of one's own.
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
#define READ 128             /* a read record: READ + label */
#define ME (_pid + 1)
#define BIT(l) (1 << ((l) - 1))

byte holder[PAGES];  /* 0 free, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last write */
byte pos[PAGES];     /* the table position the last write was for */
byte slotHolder[N];  /* who holds each state slot (0: nobody) */
byte slotState[N];   /* whose recurrent state each slot holds; never cleared */
byte rowHolder[N];   /* who holds each metadata row (0: nobody) */
byte rowToken[N];    /* whose first output token each row holds; never cleared */

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what the commit and decode read at each position */
  byte obs;            /* the labels read, a bit each */
  byte sidx;           /* the state slot given, plus one (0: none) */
  byte midx;           /* the metadata row given, plus one (0: none) */
  byte i;
  byte p;

  d_step {                               /* allocate: the lowest free pages, slot and row */
    FREE >= LEN(_pid) ->
    i = 0; p = 0;
    do
    :: i < LEN(_pid) && holder[p] == 0 -> holder[p] = ME; tab[i] = p; i++; p++
    :: i < LEN(_pid) && holder[p] != 0 -> p++
    :: else -> break
    od;
    p = 0;
    do :: p < N - 1 && slotHolder[p] != 0 -> p++ :: else -> break od;
    slotHolder[p] = ME; sidx = p + 1;
    p = 0;
#ifndef META_COLLISION
    do :: p < N - 1 && rowHolder[p] != 0 -> p++ :: else -> break od;
#endif
    rowHolder[p] = ME; midx = p + 1;
    i = 0; p = 0
  }
  if
  :: d_step { LEN(_pid) <= LIMIT ->      /* prefill: P writes every page, the state and the token */
       i = 0;
       do :: i < LEN(_pid) -> data[tab[i]] = ME; pos[tab[i]] = i; i++ :: else -> break od;
       slotState[sidx - 1] = ME; rowToken[midx - 1] = ME;
       i = 0 }
     d_step {                            /* handoff: D reads the row's token and frees the row */
       if
       :: rowToken[midx - 1] != ME -> obs = obs | BIT(rowToken[midx - 1]); rd[0] = READ + rowToken[midx - 1]
       :: else -> skip
       fi;
       assert(rowToken[midx - 1] == ME);
       if :: rowHolder[midx - 1] == ME -> rowHolder[midx - 1] = 0 :: else -> skip fi;
       midx = 0;
#ifdef SLOT_REUSE
       if :: slotHolder[sidx - 1] == ME -> slotHolder[sidx - 1] = 0 :: else -> skip fi;
#endif
       skip }
     d_step {                            /* decode: read every page, then the state slot */
       i = 0;
       do
       :: i < LEN(_pid) ->
          obs = obs | BIT(data[tab[i]]);
          if :: rd[i] == 0 -> rd[i] = READ + data[tab[i]] :: else -> skip fi;
          assert(data[tab[i]] == ME && pos[tab[i]] == i); i++
       :: else -> break
       od;
       if
       :: slotState[sidx - 1] != ME ->
          obs = obs | BIT(slotState[sidx - 1]);
          if :: rd[0] == READ + ME -> rd[0] = READ + slotState[sidx - 1] :: else -> skip fi
       :: else -> skip
       fi;
       assert(slotState[sidx - 1] == ME);
       i = 0 }
  :: d_step { LEN(_pid) > LIMIT -> skip }  /* stub: P refuses, nothing written */
  fi;
  d_step {                               /* free: pages and slot back (a row not yet freed too); forget the table and the indices */
    i = 0;
    do :: i < LEN(_pid) -> holder[tab[i]] = 0; tab[i] = 0; i++ :: else -> break od;
    if :: slotHolder[sidx - 1] == ME -> slotHolder[sidx - 1] = 0 :: else -> skip fi;
    sidx = 0;
    if :: midx > 0 && rowHolder[midx - 1] == ME -> rowHolder[midx - 1] = 0 :: else -> skip fi;
    midx = 0;
    i = 0
  }
end:
  false
}
