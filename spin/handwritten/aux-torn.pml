/*
 * D's metadata slot landing apart from its payload (fault aux-torn), written by hand as a
 * SPIN user would, beside early-success.pml (one process per request, its page table a
 * local array, one d_step per protocol step). Not generated from pagecheck and not a copy
 * of its state layout; the independent reference of test/spin/handwritten-wire-early.test.ts.
 *
 * What it models. Beside the KV pages, P writes each request's first output token into a
 * row of D's MetadataBuffers (SGLang's disaggregation/utils.py) and the request's
 * bootstrap_room into a buffer of its own: separate RDMA writes of the Mooncake transfer,
 * which land apart. D checks the room alone: _apply_metadata_gate keeps Success waiting
 * while the row's room is 0, and _commit_transfer_to_req (disaggregation/decode.py) takes
 * output_ids[idx][0] as the request's first token once the room is the request's.
 * pop_transferred then resets bootstrap_room[idx] = 0 and frees the row: the payload stays.
 *
 * D has one metadata slot (the smallest pool in which a row is reused). allocate takes the
 * lowest free pages (with -DOWNER it clears their tags) and the slot, and waits while
 * another request holds it; P refuses a request longer than its limit (the slot is freed),
 * or writes every page whole (with -DOWNER stamping the tags) and posts the slot's two
 * parts, which land in either order; with -DROOM_LAST (hardened's room-lands-last) the
 * room only after the payload. handoff waits for the room, reads the payload as the
 * request's first token (position 0), resets the room and frees the slot; a part not
 * landed by then is dropped. Decode runs once (with -DOWNER after the tag check) and reads
 * every page; the release gives the pages back, data kept.
 *
 *   spin -DOWNER -o2 -a aux-torn.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 *
 * What the commit and decode read is kept per position (rd, the label read, and whether it
 * was written for another position), the worse of two reads of one position (the first of
 * equals), and the labels read as a bit set (obs): with -A the whole space is explored, and
 * two runs that read different things are different states.
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

byte holder[PAGES];  /* 0 free, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last write */
byte pos[PAGES];     /* the table position the last write was for */
#ifdef OWNER
byte tag[PAGES];     /* the owner tag: the label of the last write, cleared by allocate */
#endif
byte auxHolder;      /* who holds the metadata slot (0: nobody) */
byte auxRoom;        /* its bootstrap_room: 0, or whose room landed; reset at each commit */
byte auxPayload;     /* whose first output token it holds: the last payload landed; never cleared */

/* free: the pages back to the free list, data kept; the table is forgotten */
inline release() {
  i = 0;
  do :: i < LEN(_pid) -> holder[tab[i]] = 0; tab[i] = 0; i++ :: else -> break od;
  i = 0
}

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what the commit and decode read at each position */
  byte obs;            /* the labels read, a bit each */
  byte x;              /* the record being read */
  bool ok;             /* decode's tag check passed */
  byte i;
  byte p;

endNew:                                  /* waiting for the slot */
  d_step {                               /* allocate: the lowest free pages, and the slot */
    FREE >= LEN(_pid) && auxHolder == 0 ->
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
    auxHolder = ME;
    i = 0; p = 0
  }
  if
  :: d_step { LEN(_pid) > LIMIT -> auxRoom = 0; auxHolder = 0 };  /* stub: P refuses; the slot is freed */
     d_step { release() };               /* free */
     goto end
  :: d_step {                            /* prefill: every page whole; the slot's two parts posted */
       LEN(_pid) <= LIMIT ->
       i = 0;
       do
       :: i < LEN(_pid) ->
          data[tab[i]] = ME; pos[tab[i]] = i;
#ifdef OWNER
          tag[tab[i]] = ME;
#endif
          i++
       :: else -> break
       od;
       i = 0 }
  fi;
written:
  if
#ifdef ROOM_LAST
  :: d_step { auxRoom != ME && auxPayload == ME -> auxRoom = ME }; goto written   /* landRoom, fenced */
#else
  :: d_step { auxRoom != ME -> auxRoom = ME }; goto written   /* landRoom */
#endif
  :: d_step { auxPayload != ME -> auxPayload = ME }; goto written   /* landPayload */
  :: d_step {                            /* handoff: the gate and check on the room; read the payload */
       auxRoom == ME ->
       assert(auxPayload == ME);         /* the first token is its own */
       if
       :: auxPayload != ME ->
          x = READ + auxPayload;
          if :: auxPayload != 0 -> obs = obs | BIT(auxPayload) :: else -> skip fi;
          KEEP(0, x)
       :: else -> skip
       fi;
       x = 0; auxRoom = 0; auxHolder = 0 }
  fi;
  d_step {                               /* decode: the tag check, then read every page */
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
       assert(data[tab[i]] == ME && pos[tab[i]] == i);
       KEEP(i, x); i++
    :: else -> break
    od;
    i = 0; x = 0; ok = false }
  d_step { release() };                  /* free */
end:
  false
}
