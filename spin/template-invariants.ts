/**
 * The Promela model's invariants (`template.ts` joins the pieces): evaluated on the state
 * an action produced, into one-bit globals that are asserted and set back to 1.
 */

/** The invariants, evaluated on the state an action produced. */
export const PROMELA_INVARIANTS = String.raw`
/* One request's share of the invariants: its read set (Isolation), its reads of unheld
   pages (ReadsOwnPages), and, while it is live, its table (ExclusiveHold) and its count
   of held pages (Conservation). seen marks the non-shared pages of live tables. */
inline check_request(r, L, G, T) {
  i = 0;
  do
  :: i < L ->
     if :: VERDICT(r, G, i, readrec[T + i]) == 2 -> Isolation = 0 :: else fi;
     if :: VERDICT(r, G, i, readrec[T + i]) != 0 -> Integrity = 0 :: else fi;
     i++
  :: else -> break
  od;
  ReadsOwnPages = ReadsOwnPages && (flags[r] & READ_UNHELD) == 0;
  if
  :: LIVE(phase[r]) ->
     k = k + L - SHARED(r);
     i = 0;
     do
     :: i < L ->
        if
        :: table[T + i] == NO_PAGE -> ExclusiveHold = 0
        :: table[T + i] != NO_PAGE && i < SHARED(r) ->
           if :: holder[table[T + i]] != PREFIX_AT(G, i) -> ExclusiveHold = 0 :: else fi
        :: else ->
           if
           :: holder[table[T + i]] != r + 1 || (seen & (1 << table[T + i])) != 0 -> ExclusiveHold = 0
           :: else
           fi;
           seen = seen | (1 << table[T + i])
        fi;
        if :: table[T + i] != NO_PAGE && COPIES(table[T + i]) > 0 -> NoUseAfterFree = 0 :: else fi;
        i++
     :: else -> break
     od
  :: else
  fi
}

/* Isolation, ExclusiveHold, Conservation, ReadsOwnPages, NoDuplicateFree, NoUseAfterFree
   (spec/properties.ts), asserted in that order; then every scratch variable goes back to its stored value. */
inline end_action(kind, r) {
  printf("@%d %d\n", kind, r);
  k = 0;
  pg = 0;
  do
  :: pg < PAGES ->
     k = k + COPIES(pg) + (holder[pg] > N -> 1 : 0);
     if :: COPIES(pg) > 1 -> NoDuplicateFree = 0 :: else fi;
     pg++
  :: else -> break
  od;
  CHECK_REQUESTS;
  pg = 0;
  do
  :: pg < PAGES ->
     if :: holder[pg] >= 1 && holder[pg] <= N && (seen & (1 << pg)) == 0 -> ExclusiveHold = 0 :: else fi;
     pg++
  :: else -> break
  od;
  Conservation = (k == PAGES);
  assert(Isolation);
  assert(ExclusiveHold);
  assert(Conservation);
  assert(ReadsOwnPages);
  assert(NoDuplicateFree);
  assert(NoUseAfterFree);
  if :: CHECK_INTEGRITY -> assert(Integrity) :: else fi;
  Isolation = 1; ExclusiveHold = 1; Conservation = 1; ReadsOwnPages = 1; NoDuplicateFree = 1; NoUseAfterFree = 1; Integrity = 1;
  i = 0; pg = 0; k = 0; seen = 0
}
`;
