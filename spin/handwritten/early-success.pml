/*
 * An early Success (fault premature-success, with torn-write), written by hand as a SPIN
 * user would, beside source-pages.pml (one process per request, its page table a local
 * array, one d_step per protocol step). Not generated from pagecheck and not a copy of its
 * state layout; the independent reference of test/spin/handwritten-wire-early.test.ts.
 *
 * What it models. D commits a transfer in SGLang's DecodeTransferQueue.pop_transferred
 * (disaggregation/decode.py) when poll_and_all_reduce reports KVPoll.Success, and the
 * status comes from P's transfer engine (Mooncake's batch transfer status), which reports
 * it when the sender's side of the RDMA writes has completed, not when every write is
 * visible at D (kvcache-ai/vllm PR #3).
 *
 * D allocates the lowest free pages (with -DOWNER it clears their owner tags); P refuses a
 * request longer than its limit, or posts its write, which lands part by part in table
 * order, one step each: a content part per page, and with -DOWNER a tag part per page, the
 * two lists in either interleaving. Without -DPREMATURE D commits once every part has
 * landed (hardened's commit-counts-landed: D counts the completions itself); with it D
 * commits whenever P says Success, and the parts still in flight land after the commit, by
 * page id, through decode and after the release. Decode runs once: with -DOWNER it first
 * compares every page's tag with its own label and fails loudly on any other (reading
 * nothing), else it reads every page (asserting it read its own data, each page written for
 * its position). The release gives the pages back, data and tags kept; a request released
 * with parts in flight is landing until its last part lands, and its table is forgotten
 * only then.
 *
 *   spin -DOWNER -DPREMATURE -o2 -a early-success.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 *
 * What decode read is kept per position (rd), as the label read and whether it was written
 * for another position: with -A the whole space is explored, and two runs that read
 * different things are different states. A request freed with nothing in flight and one
 * whose last part landed after its release end at different labels (end, endLanded): they
 * ended differently, as a released write and a late write do.
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
#define ME (_pid + 1)
#define READ 128             /* a decode read record: READ + label, + 64 when misplaced */
#define MISPLACED 64

#ifdef OWNER
#define TAGS_DONE (j == LEN(_pid))
#else
#define TAGS_DONE true
#endif
#define LANDED (k == LEN(_pid) && TAGS_DONE)
/* the part about to land is the write's last: nothing else is in flight after it */
#define LAST_DATA (k + 1 == LEN(_pid) && TAGS_DONE)
#define LAST_TAG (j + 1 == LEN(_pid) && k == LEN(_pid))

byte holder[PAGES];  /* 0 free, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last content part that landed */
byte pos[PAGES];     /* the table position that content was written for */
#ifdef OWNER
byte tag[PAGES];     /* the owner tag: the label of the last tag part, cleared by allocate */
#endif

/* landData: the next content part lands in the page its table names, whoever holds it now */
inline landData() { data[tab[k]] = ME; pos[tab[k]] = k; k++ }
/* landTag: the next tag part lands likewise */
inline landTag() { tag[tab[j]] = ME; j++ }
/* the table is forgotten: nothing will read it again */
inline forget() { i = 0; do :: i < LEN(_pid) -> tab[i] = 0; i++ :: else -> break od; i = 0 }
/* free: the pages back to the free list, data and tags kept */
inline release() { i = 0; do :: i < LEN(_pid) -> holder[tab[i]] = 0; i++ :: else -> break od; i = 0 }

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what decode read at each position */
  byte k;              /* content parts landed */
  byte j;              /* tag parts landed (-DOWNER) */
  bool ok;             /* decode's tag check passed */
  byte i;
  byte p;

  d_step {                               /* allocate: the lowest free pages */
    FREE >= LEN(_pid) ->
    i = 0; p = 0;
    do
    :: i < LEN(_pid) && holder[p] == 0 ->
       holder[p] = ME; tab[i] = p;
#ifdef OWNER
       tag[p] = 0;
#endif
       i++; p++
    :: i < LEN(_pid) && holder[p] != 0 -> p++
    :: else -> break
    od;
    i = 0; p = 0
  }
  if
  :: d_step { LEN(_pid) > LIMIT -> skip };  /* stub: P refuses, nothing written */
     d_step { release(); forget() };     /* free */
     goto end
  :: d_step { LEN(_pid) <= LIMIT -> skip }  /* prefill: P posts its write */
  fi;
writing:                                 /* parts landing; with all landed, written */
  if
  :: d_step { k < LEN(_pid) -> landData() }; goto writing
#ifdef OWNER
  :: d_step { j < LEN(_pid) -> landTag() }; goto writing
#endif
#ifdef PREMATURE
  :: skip                                /* handoff on P's Success, landed or not */
#else
  :: LANDED                              /* handoff once D counted every part */
#endif
  fi;
committed:                               /* handed off; parts may still land (-DPREMATURE) */
  if
  :: d_step { k < LEN(_pid) -> landData() }; goto committed
#ifdef OWNER
  :: d_step { j < LEN(_pid) -> landTag() }; goto committed
#endif
  :: d_step {                            /* decode: the tag check, then read every page */
       ok = true;
#ifdef OWNER
       i = 0;
       do :: i < LEN(_pid) -> ok = ok && tag[tab[i]] == ME; i++ :: else -> break od;
#endif
       i = 0;
       do
       :: ok && i < LEN(_pid) ->
          rd[i] = READ + data[tab[i]] + (data[tab[i]] != 0 && pos[tab[i]] != i -> MISPLACED : 0);
          assert(data[tab[i]] == ME && pos[tab[i]] == i); i++
       :: else -> break
       od;
       i = 0; ok = false }
  fi;
decided:                                 /* decoded, or failed by the tag check (rd says which) */
  if
  :: d_step { k < LEN(_pid) -> landData() }; goto decided
#ifdef OWNER
  :: d_step { j < LEN(_pid) -> landTag() }; goto decided
#endif
  :: d_step { LANDED -> release(); forget() }; goto end     /* free */
  :: d_step { !LANDED -> release() }     /* free with parts in flight: landing */
  fi;
landing:                                 /* released; the rest land by page id, in others' pages */
  if
  :: d_step { k < LEN(_pid) && !LAST_DATA -> landData() }; goto landing
  :: d_step { LAST_DATA -> landData(); forget() }; goto endLanded
#ifdef OWNER
  :: d_step { j < LEN(_pid) && !LAST_TAG -> landTag() }; goto landing
  :: d_step { LAST_TAG -> landTag(); forget() }; goto endLanded
#endif
  fi;
endLanded:
  false;
end:
  false
}
