/**
 * The Promela model's shared steps (`template.ts` joins the pieces): the inlines the
 * actions (`template-actions.ts`) are written with: a page written by id, a decode token
 * written, a table released, dead state settled, P's write posted and its parts landed.
 */

/** The inlines the actions share: writes, releases and the liveness reset. */
export const PROMELA_STEPS = String.raw`
/* A write lands on a page by id: its data for position pos in its first slots slots, and under owner-check its tag. */
inline write_page(page, label, pos, slots) {
  if
  :: page != NO_PAGE ->
     data[page] = label; dataPos[page] = pos;
     if :: FILL -> fill[page] = slots :: else fi;
     if :: OWNER_CHECK -> tag[page] = label; if :: TAG_FILL -> tagfill[page] = slots :: else fi :: else fi
  :: else
  fi
}

/* A decode step after the first writes its token into the next slot of r's table (the last
   slot once the table is full); the page is r's up to that slot (spec/slots.ts). Runs after
   steps[r] was raised: the step before had decoded steps[r] - 2 tokens. */
inline write_token(r, L, T) {
  k = TOKENS(r) + steps[r] - 2;
  if :: k > L * PAGE_SIZE - 1 -> k = L * PAGE_SIZE - 1 :: else fi;
  j = k / PAGE_SIZE;
  rec = k - j * PAGE_SIZE + 1;
  pg = table[T + j];
  if
  :: pg != NO_PAGE ->
     if :: FILL -> fill[pg] = (data[pg] == r + 1 && dataPos[pg] == j && fill[pg] > rec -> fill[pg] : rec) :: else fi;
     data[pg] = r + 1; dataPos[pg] = j;
     if
     :: OWNER_CHECK ->
        if :: TAG_FILL -> tagfill[pg] = (tag[pg] == r + 1 && tagfill[pg] > rec -> tagfill[pg] : rec) :: else fi;
        tag[pg] = r + 1
     :: else
     fi
  :: else
  fi;
  j = 0; rec = 0; k = 0
}

/* The pages of r's table go back to the free list by id, except the shared prefix pages, in
   one release: a page twice in the table goes back once. Under double-free each one is
   one more copy on the free list, even when it is already there. With
   release-checks-holder (hardened), only the pages r still holds. */
inline release(r, L, T) {
  i = SHARED(r);
  do
  :: i < L ->
     if
     :: table[T + i] != NO_PAGE && (!RELEASE_CHECKS || holder[table[T + i]] == r + 1) ->
        j = SHARED(r);
        do :: j < i && table[T + j] != table[T + i] -> j++ :: else -> break od;
        if
        :: j == i ->
           if :: DOUBLE_FREE -> freecnt[table[T + i]]++ :: else fi;
           holder[table[T + i]] = 0
        :: else
        fi
     :: else
     fi;
     i++
  :: else -> break
  od;
  j = 0
}

/* Only live state (spec/liveness.ts): once r has finished, its table is dead unless a
   configured fault can release an old table again; after the second release it is
   always dead. A dead table is reset to NO_PAGE, as before allocate. */
inline settle(r, L, T) {
  if
  :: phase[r] == RELEASED || (!REREAD_FINISHED && (phase[r] == FREED || phase[r] == LANDED)) ->
     i = 0;
     do
     :: i < L -> table[T + i] = NO_PAGE; i++
     :: else -> break
     od
  :: else
  fi
}

/* P's write for r (prefill or a silent stub): whole, or posted to land part by part
   (torn-write); a late one lands nowhere under revoke-writer (hardened). */
inline post_write(r, L, G, T) {
  if
  :: phase[r] == TIMED_OUT && REVOKE_WRITER -> phase[r] = LANDED
  :: else ->
     if
     :: TORN_WRITE && WRITE_COUNT(r, L) > 0 -> dparts[r] = 0; tparts[r] = 0; phase[r] = (phase[r] == TIMED_OUT -> LANDING : WRITING)
     :: else ->
        i = 0;
        do
        :: i < WRITE_COUNT(r, L) ->
           k = WRITE_FROM(r) + i;
           pg = table[T + k];
           rec = WRITE_LABEL(r, L, G, k);
           j = WRITE_SLOTS(r, k);  /* a scratch variable: SPIN 6.5 crashes on this macro as an inline's argument */
           write_page(pg, rec, k, j);
           i++
        :: else -> break
        od;
        rec = 0;
        j = 0;
        phase[r] = (phase[r] == TIMED_OUT -> LANDED : WRITTEN)
     fi
  fi
}

/* After a part landed: when every part of r's write has, r is written (a late one, landed). */
inline finish_if_landed(r, L) {
  if
  :: dparts[r] >= WRITE_COUNT(r, L) && (!OWNER_CHECK || tparts[r] >= WRITE_COUNT(r, L)) ->
     phase[r] = (phase[r] == LANDING -> LANDED : WRITTEN)
  :: else
  fi
}
`;
