/**
 * The Promela model's actions (`template.ts` joins the pieces): one inline each, in
 * spec/transitions.ts's order, each one `d_step` whose first statement is its guard.
 */

/** The actions, one inline each, in spec/transitions.ts's order. */
export const PROMELA_ACTIONS = String.raw`
/* allocate(r): D reserves the lowest free page ids for the whole prompt (alloc_extend).
   On a prefix-cache hit the cached pages come first, page j of the entry at position j,
   shared, not taken. */
inline Allocate(r, L, G, T) {
  d_step {
    phase[r] == NEW && FREE_COUNT >= L - (HAS_CACHE(G) -> PLEN(G) : 0) ->
    k = 0;
    if
    :: HAS_CACHE(G) ->
       do
       :: k < PLEN(G) ->
          pg = 0;
          do :: holder[pg] != PREFIX_AT(G, k) -> pg++ :: else -> break od;
          table[T + k] = pg; k++
       :: else -> break
       od;
       flags[r] = flags[r] | HIT
    :: else
    fi;
    pg = 0;
    do
    :: pg < PAGES && k < L && DOUBLE_FREE && freecnt[pg] > 0 ->
       /* a sorted multiset: a page with two copies comes out twice in a row */
       freecnt[pg]--;
       holder[pg] = r + 1;
       if :: OWNER_CHECK -> tag[pg] = 0; tagfill[pg] = 0 :: else fi;
       table[T + k] = pg; k++
    :: pg < PAGES && k < L && !(DOUBLE_FREE && freecnt[pg] > 0) ->
       if
       :: !DOUBLE_FREE && holder[pg] == 0 ->
          holder[pg] = r + 1;
          if :: OWNER_CHECK -> tag[pg] = 0; tagfill[pg] = 0 :: else fi;
          table[T + k] = pg; k++
       :: else
       fi;
       pg++
    :: else -> break
    od;
    phase[r] = ALLOCATED;
    end_action(K_ALLOCATE, r)
  }
}

/* prefill(r): P writes the prompt into every page of r's table (the shared prefix pages
   excepted); at position j < PLEN(G) page j of the prefix's data when r has one. With early-free the
   write may land after D timed r out. With auto-truncate, also an over-long prompt, cut. */
inline Prefill(r, L, G, T) {
  d_step {
    (!OVER_LONG(r) || AUTO_TRUNCATE) && (phase[r] == ALLOCATED || phase[r] == TIMED_OUT) ->
    post_write(r, L, G, T);
    settle(r, L, T);
    end_action(K_PREFILL, r)
  }
}

/* stub(r): P meets a prompt longer than its memory. Silent stub: a one-page dummy in r's
   first own page, reported as success. Otherwise (length-fix): P refuses r and tells D. */
inline Stub(r, L, G, T) {
  d_step {
    STUB_WRITE(r) && (phase[r] == ALLOCATED || phase[r] == TIMED_OUT) ->
    if
    :: SILENT_STUB -> post_write(r, L, G, T)
    :: else ->
       phase[r] = (phase[r] == TIMED_OUT -> FREED : REFUSED)
    fi;
    settle(r, L, T);
    end_action(K_STUB, r)
  }
}

/* handoff(r): P reports Success, D commits r. Nobody compares page counts. */
inline Handoff(r, L, G, T) {
  d_step {
    phase[r] == WRITTEN ->
    phase[r] = HANDED_OFF;
    end_action(K_HANDOFF, r)
  }
}

/* decode(r): D reads every page of r's table, whoever wrote it, up to its length. Under
   owner-check a page whose tag r may not read (or, with TAG_COUNTS, whose tag counts too
   few written slots) fails r loudly, and nothing is read. A read past a page's fill meets
   stale P-side data, another user's (STALE). */
inline Decode(r, L, G, T) {
  d_step {
    phase[r] == HANDED_OFF || phase[r] == DECODING ->
    k = 0;
    if
    :: OWNER_CHECK ->
       i = 0;
       do
       :: i < L ->
          if
          :: !MAY_READ_AT(r, G, i, tag[table[T + i]]) || TAG_COUNTS && tagfill[table[T + i]] < SLOTS_AT(r, L, i) -> k = 1
          :: else
          fi;
          i++
       :: else -> break
       od
    :: else
    fi;
    if
    :: k != 0 -> phase[r] = FAILED
    :: else ->
       i = 0;
       do
       :: i < L ->
          pg = table[T + i];
          rec = READ | data[pg] | (data[pg] != 0 && dataPos[pg] != i -> MISPLACED : 0);
          if :: FILL && data[pg] != 0 && SLOTS_AT(r, L, i) > fill[pg] && VERDICT(r, G, i, rec) != 2 -> rec = READ | STALE :: else fi;
          if :: (rec & READ_LABEL) != 0 -> observed[r] = observed[r] | (1 << ((rec & READ_LABEL) - 1)) :: else fi;
          if
          :: (readrec[T + i] & READ) == 0 || VERDICT(r, G, i, rec) > VERDICT(r, G, i, readrec[T + i]) -> readrec[T + i] = rec
          :: else
          fi;
          if
          :: holder[pg] != r + 1 && !(i < SHARED(r) && MAY_READ_AT(r, G, i, holder[pg])) ->
             flags[r] = flags[r] | READ_UNHELD
          :: else
          fi;
          i++
       :: else -> break
       od;
       steps[r] = steps[r] + 1;
       if :: steps[r] > 1 -> write_token(r, L, T) :: else fi;
       phase[r] = (steps[r] >= DECODE_STEPS -> DECODED : DECODING)
    fi;
    rec = 0;
    end_action(K_DECODE, r)
  }
}

/* free(r): D releases r's pages, contents untouched. With stale-free, a second release of
   an already freed (or landed) request frees its old table again; with double-free, the
   same while every page of that table is still free (STILL_FREE, unrolled per request). */
inline Free(r, L, G, T) {
  d_step {
    phase[r] == DECODED || phase[r] == REFUSED || phase[r] == FAILED ||
    (STALE_FREE || DOUBLE_FREE && STILL_FREE(r)) && (phase[r] == FREED || phase[r] == LANDED) ->
    release(r, L, T);
    phase[r] = (phase[r] == DECODED || phase[r] == REFUSED || phase[r] == FAILED -> FREED : RELEASED);
    settle(r, L, T);
    end_action(K_FREE, r)
  }
}

/* timeout(r), fault early-free: D gives up on the transfer and frees r's pages while P's
   write is still in flight. */
inline Timeout(r, L, G, T) {
  d_step {
    EARLY_FREE && (phase[r] == ALLOCATED || phase[r] == WRITING) ->
    release(r, L, T);
    phase[r] = (phase[r] == ALLOCATED -> TIMED_OUT : (REVOKE_WRITER -> LANDED : LANDING));
    settle(r, L, T);
    end_action(K_TIMEOUT, r)
  }
}

/* insert(r): D puts r's prefix pages (positions 0 .. PLEN(G)-1) into the prefix cache,
   page j as the entry's page j. With prefix-poison also when r was refused or failed, so
   those pages were never written for the prefix. HOLDS_PREFIX(r) is unrolled per request. */
inline Insert(r, L, G, T) {
  d_step {
    G != NONE && !ANY_CACHED(G) && !SHARES(r) && HOLDS_PREFIX(r) &&
    (phase[r] == DECODED || PREFIX_POISON && (phase[r] == REFUSED || phase[r] == FAILED)) ->
    i = 0;
    do
    :: i < PLEN(G) -> holder[table[T + i]] = PREFIX_AT(G, i); i++
    :: else -> break
    od;
    flags[r] = flags[r] | INSERTED;
    end_action(K_INSERT, r)
  }
}

/* landData(r), torn-write: the content part of the next page of r's write lands, by id. */
inline LandData(r, L, G, T) {
  d_step {
    (phase[r] == WRITING || phase[r] == LANDING) && dparts[r] < WRITE_COUNT(r, L) ->
    pg = table[T + WRITE_FROM(r) + dparts[r]];
    if
    :: pg != NO_PAGE ->
       data[pg] = WRITE_LABEL(r, L, G, WRITE_FROM(r) + dparts[r]); dataPos[pg] = WRITE_FROM(r) + dparts[r];
       if :: FILL -> fill[pg] = WRITE_SLOTS(r, WRITE_FROM(r) + dparts[r]) :: else fi
    :: else
    fi;
    dparts[r] = dparts[r] + 1;
    finish_if_landed(r, L);
    settle(r, L, T);
    end_action(K_LANDDATA, r)
  }
}

/* landTag(r), torn-write under an owner check: the tag part of the next page lands, by id. */
inline LandTag(r, L, G, T) {
  d_step {
    OWNER_CHECK && (phase[r] == WRITING || phase[r] == LANDING) && tparts[r] < WRITE_COUNT(r, L) ->
    pg = table[T + WRITE_FROM(r) + tparts[r]];
    if
    :: pg != NO_PAGE ->
       tag[pg] = WRITE_LABEL(r, L, G, WRITE_FROM(r) + tparts[r]);
       if :: TAG_FILL -> tagfill[pg] = WRITE_SLOTS(r, WRITE_FROM(r) + tparts[r]) :: else fi
    :: else
    fi;
    tparts[r] = tparts[r] + 1;
    finish_if_landed(r, L);
    settle(r, L, T);
    end_action(K_LANDTAG, r)
  }
}
`;
