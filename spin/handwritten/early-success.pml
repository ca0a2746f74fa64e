/*
 * An early Success (fault premature-success, with torn-write), and with -DAUX the metadata
 * slot of aux-torn.pml beside it (both faults on), with the other faults of docs/WIRE.md's
 * "Both on" configuration behind switches of their own, written by hand as a SPIN user would,
 * beside source-pages.pml (one process per request, its page table a local array, one
 * d_step per protocol step). Not generated from pagecheck and not a copy of its state
 * layout; the independent reference of test/spin/handwritten-wire-early.test.ts.
 *
 * What it models. D commits a transfer in SGLang's DecodeTransferQueue.pop_transferred
 * (disaggregation/decode.py) when poll_and_all_reduce reports KVPoll.Success, and the
 * status comes from P's transfer engine (Mooncake's batch transfer status), which reports
 * it when the sender's side of the RDMA writes has completed, not when every write is
 * visible at D (kvcache-ai/vllm PR #3). With -DAUX, the commit also waits for the
 * bootstrap_room of the request's metadata row, and takes the row's first output token
 * (_commit_transfer_to_req in decode.py; aux-torn.pml says more).
 *
 * D allocates the lowest free pages (with -DOWNER it clears their owner tags; with -DAUX it
 * also takes the one metadata slot, waiting while another request holds it). P refuses a
 * request longer than its limit (freeing the slot), or with -DSILENT_STUB (fault
 * silent-stub, under a variant that does not refuse) writes it a one-page dummy at its first
 * position and reports Success; else P posts its write. A write lands part by part in table
 * order, one step each: a content part per page, and with -DOWNER a tag part per page, the
 * two lists in either interleaving; with -DAUX the slot's room and payload land too, in
 * either order until the commit (with -DROOM_LAST, hardened's room-lands-last, the room
 * after the payload), and a part not landed by then is dropped. Without -DPREMATURE D
 * commits once every part has landed (hardened's commit-counts-landed: D counts the
 * completions itself); with it D commits whenever P says Success, and the parts still in
 * flight land after the commit, by page id, through decode and after the release. The
 * commit (with -DAUX) reads the slot's payload as the request's first token, resets the
 * room and frees the slot. Decode runs once: with -DOWNER it first compares every page's
 * tag with its own label and fails loudly on any other (reading nothing), else it reads
 * every page (asserting it read its own data, each page written for its position). The
 * release gives the pages back, data and tags kept; a request released with parts in
 * flight is landing until its last part lands.
 *
 * With -DEARLY_FREE (fault early-free, SGLang #24527) D may give up on a request not yet
 * written and free its pages and slot at once: parts in flight, and a write P posts later,
 * land by page id in whatever holds the pages by then; with -DREVOKE (hardened's
 * revoke-writer) they land nowhere. With -DSTALE_FREE (fault stale-free) a finished
 * request's table is released a second time, freeing pages another request may hold by
 * now; with -DCHECK_HOLDER (hardened's release-checks-holder) a release frees only the
 * pages the releasing request still holds. A finished table is forgotten, except that a
 * second release reads it (then it is forgotten at that release).
 *
 *   spin -DOWNER -DPREMATURE -o2 -a early-success.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 *
 * With -A the whole space is explored, and runs that read differently are different states:
 * kept are what the commit and decode read per position (rd: the label, and whether it was
 * written for another position; the worse of two reads), the labels read (obs), whether
 * decode read or failed its check (stepped) and read a page it did not hold (unheld). A
 * request freed with nothing in flight ends at end, one whose late write landed at endLanded.
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
#define READ 128             /* a read record: READ + label, + 64 when misplaced */
#define MISPLACED 64
#define BIT(l) (1 << ((l) - 1))
/* how bad a read record is: 0 own data for its position, 1 garbage (nothing, or misplaced), 2 another user's */
#define BAD(x) (((x) & 63) == 0 -> 1 : (((x) & 63) != ME -> 2 : (((x) & MISPLACED) != 0 -> 1 : 0)))
/* rd[i] after reading x there: x if nothing was read before or x is worse */
#define KEEP(i, x) rd[i] = ((rd[i] & READ) == 0 || BAD(x) > BAD(rd[i]) -> (x) : rd[i])

#ifdef SILENT_STUB
#define STUBS false          /* P stubs an over-long prompt silently: one dummy page, and Success */
#else
#define STUBS (LEN(_pid) > LIMIT)  /* P refuses an over-long prompt */
#endif
/* the parts of P's write: a page each, the silent stub's one dummy page */
#define CNT ((LEN(_pid) > LIMIT) -> 1 : LEN(_pid))
#ifdef OWNER
#define TAGS_DONE (j == CNT)
#else
#define TAGS_DONE true
#endif
#define LANDED (k == CNT && TAGS_DONE)
/* the part about to land is the write's last: nothing else is in flight after it */
#define LAST_DATA (k + 1 == CNT && TAGS_DONE)
#define LAST_TAG (j + 1 == CNT && k == CNT)
#ifdef PREMATURE
#define SUCCESS true         /* P's Success, landed or not */
#else
#define SUCCESS LANDED       /* D's own count of the parts landed */
#endif
#ifdef AUX
#define SLOT_FREE (auxHolder == 0)
#define ROOM_OK (auxRoom == ME)
#else
#define SLOT_FREE true
#define ROOM_OK true
#endif

byte holder[PAGES];  /* 0 free, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last content part that landed */
byte pos[PAGES];     /* the table position that content was written for */
#ifdef OWNER
byte tag[PAGES];     /* the owner tag: the label of the last tag part, cleared by allocate */
#endif
#ifdef AUX
byte auxHolder;      /* who holds the metadata slot (0: nobody) */
byte auxRoom;        /* its bootstrap_room: 0, or whose room landed; reset at each commit */
byte auxPayload;     /* whose first output token it holds: the last payload landed; never cleared */
#endif

/* landData: the next content part lands in the page its table names, whoever holds it now */
inline landData() { data[tab[k]] = ME; pos[tab[k]] = k; k++ }
/* landTag: the next tag part lands likewise */
inline landTag() { tag[tab[j]] = ME; j++ }
/* the table is forgotten: nothing will read it again */
inline forget() { i = 0; do :: i < LEN(_pid) -> tab[i] = 0; i++ :: else -> break od; i = 0 }
/* a finished request's table: a second release (-DSTALE_FREE) reads it again, else it is forgotten */
#ifdef STALE_FREE
inline finish() { skip }
#else
inline finish() { forget() }
#endif
/* free: the table's pages back to the free list, data and tags kept; with -DCHECK_HOLDER
   (hardened's release-checks-holder) only those the request still holds */
#ifdef CHECK_HOLDER
#define FREES(p) (holder[p] == ME)
#else
#define FREES(p) true
#endif
inline release() {
  i = 0;
  do :: i < LEN(_pid) -> if :: FREES(tab[i]) -> holder[tab[i]] = 0 :: else -> skip fi; i++ :: else -> break od;
  i = 0
}
#ifdef AUX
/* the end of the transfer (pop_transferred): the slot's room reset and the slot freed, the payload kept */
inline dropSlot() { auxRoom = 0; auxHolder = 0 }
/* the commit takes the slot's payload as the request's first token, read at position 0 */
inline readPayload() {
  if
  :: auxPayload != ME ->
     x = READ + auxPayload;
     if :: auxPayload != 0 -> obs = obs | BIT(auxPayload) :: else -> skip fi;
     assert(false);                      /* another's first token, or none */
     KEEP(0, x); x = 0
  :: else -> skip
  fi
}
#else
inline dropSlot() { skip }
inline readPayload() { skip }
#endif

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what the commit and decode read at each position */
  byte obs;            /* the labels read, a bit each */
  byte x;              /* the record being read */
  byte k;              /* content parts landed */
  byte j;              /* tag parts landed (-DOWNER) */
  bool ok;             /* decode's tag check passed */
  bool stepped;        /* decode read (it did not fail the tag check); kept after the release */
  bool unheld;         /* decode read a page it did not hold (another's stale release freed it) */
  byte i;
  byte p;

endNew:                                  /* waiting for pages, or for the slot (-DAUX) */
  d_step {                               /* allocate: the lowest free pages, and with -DAUX the slot */
    FREE >= LEN(_pid) && SLOT_FREE ->
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
#ifdef AUX
    auxHolder = ME;
#endif
    i = 0; p = 0
  }
  if
  :: d_step { STUBS -> dropSlot() };     /* stub: P refuses, nothing written */
     d_step { release(); finish() };     /* free */
     goto end
  :: d_step { !STUBS -> skip }           /* prefill (or the silent stub): P posts its write */
#ifdef EARLY_FREE
  :: d_step { release(); dropSlot() };   /* timeout: D gives up before P wrote */
     goto timedOut
#endif
  fi;
writing:                                 /* parts landing; with all landed, written */
  if
  :: d_step { k < CNT -> landData() }; goto writing
#ifdef OWNER
  :: d_step { j < CNT -> landTag() }; goto writing
#endif
#ifdef AUX
#ifdef ROOM_LAST
  :: d_step { auxRoom != ME && auxPayload == ME -> auxRoom = ME }; goto writing   /* landRoom, fenced */
#else
  :: d_step { auxRoom != ME -> auxRoom = ME }; goto writing   /* landRoom */
#endif
  :: d_step { auxPayload != ME -> auxPayload = ME }; goto writing   /* landPayload */
#endif
  :: d_step { SUCCESS && ROOM_OK -> readPayload(); dropSlot() }   /* handoff */
#ifdef EARLY_FREE
#ifdef REVOKE
  :: d_step { !LANDED -> release(); dropSlot(); finish() }; goto endLanded  /* timeout: P's access revoked, the rest dropped */
#else
  :: d_step { !LANDED -> release(); dropSlot() }; goto landing  /* timeout: the rest land later */
#endif
#endif
  fi;
committed:                               /* handed off; parts may still land (-DPREMATURE) */
  if
  :: d_step { k < CNT -> landData() }; goto committed
#ifdef OWNER
  :: d_step { j < CNT -> landTag() }; goto committed
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
          x = READ + data[tab[i]] + (data[tab[i]] != 0 && pos[tab[i]] != i -> MISPLACED : 0);
          if :: data[tab[i]] != 0 -> obs = obs | BIT(data[tab[i]]) :: else -> skip fi;
          unheld = unheld || holder[tab[i]] != ME;
          assert(data[tab[i]] == ME && pos[tab[i]] == i);
          KEEP(i, x); i++
       :: else -> break
       od;
       stepped = ok; i = 0; x = 0; ok = false }
  fi;
decided:                                 /* decoded, or failed by the tag check (stepped says which) */
  if
  :: d_step { k < CNT -> landData() }; goto decided
#ifdef OWNER
  :: d_step { j < CNT -> landTag() }; goto decided
#endif
  :: d_step { LANDED -> release(); finish() }; goto end     /* free */
  :: d_step { !LANDED -> release() }     /* free with parts in flight: landing */
  fi;
landing:                                 /* released; the rest land by page id, in others' pages */
  if
  :: d_step { k < CNT && !LAST_DATA -> landData() }; goto landing
  :: d_step { LAST_DATA -> landData(); finish() }; goto endLanded
#ifdef OWNER
  :: d_step { j < CNT && !LAST_TAG -> landTag() }; goto landing
  :: d_step { LAST_TAG -> landTag(); finish() }; goto endLanded
#endif
  fi;
#ifdef EARLY_FREE
timedOut:                                /* D freed the pages; P does not know */
  if
  :: d_step { STUBS -> finish() }; goto end   /* stub: P refuses, nothing written */
#ifdef REVOKE
  :: d_step { !STUBS -> finish() }; goto endLanded   /* prefill, late: it lands nowhere */
#else
  :: d_step { !STUBS -> skip }; goto landing   /* prefill, late: it lands by page id */
#endif
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
