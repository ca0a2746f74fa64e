/*
 * D's prefix cache as a radix tree, under eviction, written by hand as a SPIN user would,
 * beside draft.pml and loadback.pml (one process per request, its page table a local
 * array, one d_step per protocol step). Not generated from pagecheck and not a copy of its
 * state layout; the independent reference of test/spin/handwritten-radix.test.ts.
 *
 * Read from SGLang, python/sglang/srt/mem_cache/radix_cache.py:
 * - match_prefix (_match_prefix_helper) walks from the root down the children whose key is
 *   the request's next page, and returns the pages matched; the scheduler then calls
 *   inc_lock_ref(last_node) and allocates only the pages past the prefix (kv_loc covers
 *   [prefix_len:]). A partial match shares what it matched.
 * - insert (_insert_helper) walks the same path and hangs the rest of the key under the
 *   last node reached. cache_unfinished_req runs it at the handoff (process_prebuilt,
 *   before the first decode) for every page-aligned page of the prompt: a page the tree
 *   already holds replaces the request's own copy, which is freed (a duplicate); then
 *   dec_lock_ref(old last node), inc_lock_ref(new last node). cache_finished_req inserts
 *   again at the end (here nothing is left to insert: the prompt's prefix is already in)
 *   and dec_lock_ref(last_node); the release frees the request's pages past its last node.
 * - inc_lock_ref / dec_lock_ref walk from the node to the root, +1 / -1 at every node, with
 *   no floor: lock_ref may go below 0.
 * - evict pops evictable leaves (not evicted, lock_ref <= 0 counts: only lock_ref > 0
 *   protects, #27666 logs protected=-12), frees the leaf's page and deletes the node; its
 *   parent becomes a leaf once its last child is gone.
 *
 * The tree is the arrays npage (the page a node holds, NONE when the tree has no such
 * node) and nlock (its lock_ref, signed, no clamp). Every request of prefix g walks the
 * same path, so node (g, j) is fixed by the configuration: index GOFF(g) + j, its parent
 * node (g, j - 1), the root for j = 0 (macros, not state). A page held by the tree has
 * holder TREE. A request's last node is its depth (local `depth`): positions [0, depth) of
 * its table are tree nodes it locked.
 *
 * Eviction. SGLang pops the least recently used evictable leaf. A clock per node (last
 * access) would make runs that evict the same leaf different states, which pagecheck
 * merges: here, as in pagecheck, the order is fixed instead, the evictable leaf on the
 * lowest page. A request short of pages evicts one leaf at a time, never of its own
 * prefix (its match comes first and locks it), until enough pages are free.
 *
 * D allocates the lowest free pages past the matched prefix; P writes the positions past
 * the match (prefix page j as label NODEL(g, j), the rest as the request's own), with
 * the owner tag under -DOWNER_CHECK (allocate clears the tags of the pages it takes).
 * Decode reads every position once; under -DOWNER_CHECK it first compares every page's
 * tag with what the position may hold and fails loudly instead. The release frees the
 * pages past the last node (data kept) and unlocks the path; with -DLOCK_UNDERFLOW (fault
 * lock-underflow, #27666) it unlocks it twice.
 *
 *   spin -DLOCK_UNDERFLOW -o2 -a radix.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan -A
 *
 * Kept per request as pagecheck keeps them, for the count comparison: what decode read at
 * each position (rd) and the ghost bits hit, inserted, unheld (decode read a page it did
 * not hold) and evicted (an eviction ran for it). All write-only: -o2 keeps them.
 */
#ifndef PAGES
#define PAGES 2
#endif
#ifndef N
#define N 3
#endif
#ifndef MAXLEN
#define MAXLEN 2
#endif
#ifndef L0               /* prompt length in pages, and prefix group (NONE: no prefix) */
#define L0 2
#define L1 2
#define L2 1
#define G0 0
#define G1 0
#define G2 NONE
#endif
#ifndef K0               /* the prefix groups' lengths in pages (at most 2 each) */
#define K0 1
#define K1 0
#endif
#define NONE 255
#define TREE 254             /* holder of a page the tree holds */
#define NODES (K0 + K1)
#define LEN(r) (r == 0 -> L0 : (r == 1 -> L1 : L2))
#define GRP(r) (r == 0 -> G0 : (r == 1 -> G1 : G2))
#define K(g) (g == 0 -> K0 : (g == 1 -> K1 : 0))
#define GOFF(g) (g == 0 -> 0 : K0)
#define NODE(g, j) (GOFF(g) + (j))
#define NODEL(g, j) (N + 1 + NODE(g, j))   /* the content label of prefix g's page j */
#define GOF(n) (n < K0 -> 0 : 1)            /* node n's prefix group, and its depth */
#define JOF(n) (n < K0 -> n : n - K0)
#define FREE_AT(p) (PAGES > p && holder[p] == 0)
#define FREE (FREE_AT(0) + FREE_AT(1) + FREE_AT(2) + FREE_AT(3) + FREE_AT(4) + FREE_AT(5))
#define HAS(g, j) (K(g) > (j) && npage[NODE(g, j)] != NONE)
#define MATCH(g) (g == NONE -> 0 : HAS(g, 0) + (HAS(g, 0) && HAS(g, 1)))  /* match_prefix, in pages */
#define LEAF(n) (npage[n] != NONE && (JOF(n) + 1 >= K(GOF(n)) || npage[n + 1] == NONE))
#define EVICTABLE(n, own) (NODES > n && GOF(n) != own && LEAF(n) && nlock[n] <= 0)
#define ANY_EVICTABLE(own) (EVICTABLE(0, own) || EVICTABLE(1, own) || EVICTABLE(2, own) || EVICTABLE(3, own))
#define READ 128             /* a decode read record: READ + label, + 64 when misplaced */
#define MISPLACED 64
#define OWN(r, i) (GRP(r) != NONE && i < K(GRP(r)) -> NODEL(GRP(r), i) : r + 1)

byte holder[PAGES];  /* 0 free, TREE, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last write; never cleared */
byte pos[PAGES];     /* the table position the last write was for */
#ifdef OWNER_CHECK
byte tag[PAGES];     /* the owner tag: the label of every write, cleared by allocate */
#endif
byte npage[4] = NONE; /* the tree: node n's page, NONE while the tree has no node n */
short nlock[4];      /* node n's lock_ref: no floor */

/* dec_lock_ref(last_node): -1 at every node of the path still on the request's page */
inline unlock() {
  i = 0;
  do
  :: i < depth -> if :: npage[NODE(GRP(_pid), i)] == tab[i] -> nlock[NODE(GRP(_pid), i)]-- :: else -> skip fi; i++
  :: else -> break
  od
}

active [N] proctype Request() {
  byte tab[MAXLEN];
  byte rd[MAXLEN];     /* what decode read at each position */
  byte depth;          /* the last node's depth */
  bool hit;            /* ghost: the allocation matched a prefix */
  bool inserted;       /* ghost: the handoff inserted into the tree */
  bool unheld;         /* ghost: decode read a page it did not hold */
  bool evicted;        /* ghost: an eviction ran for this request */
  byte i;
  byte p;
  byte n;

endNew:                                  /* a request may wait for pages forever */
  if
  :: d_step {                            /* evict: one leaf, the lowest page, of another prefix */
       FREE < LEN(_pid) - MATCH(GRP(_pid)) && ANY_EVICTABLE(GRP(_pid)) ->
       n = NONE; i = 0;
       do
       :: i < NODES && EVICTABLE(i, GRP(_pid)) && (n == NONE || npage[i] < npage[n]) -> n = i; i++
       :: i < NODES && !(EVICTABLE(i, GRP(_pid)) && (n == NONE || npage[i] < npage[n])) -> i++
       :: else -> break
       od;
       holder[npage[n]] = 0; npage[n] = NONE; nlock[n] = 0;
       evicted = true;
       i = 0; n = 0 };
     goto endNew
  :: d_step {                            /* allocate: match the prefix, lock it, take the lowest free pages past it */
       FREE >= LEN(_pid) - MATCH(GRP(_pid)) ->
       depth = MATCH(GRP(_pid));
       i = 0;
       do
       :: i < depth -> tab[i] = npage[NODE(GRP(_pid), i)]; nlock[NODE(GRP(_pid), i)]++; i++
       :: else -> break
       od;
       hit = depth > 0;
       p = 0;
       do
       :: i < LEN(_pid) && holder[p] == 0 ->
          holder[p] = _pid + 1; tab[i] = p;
#ifdef OWNER_CHECK
          tag[p] = 0;
#endif
          i++; p++
       :: i < LEN(_pid) && holder[p] != 0 -> p++
       :: else -> break
       od;
       i = 0; p = 0 }
  fi;
  d_step {                               /* prefill: P writes the positions past the match */
    i = depth;
    do
    :: i < LEN(_pid) ->
       data[tab[i]] = OWN(_pid, i); pos[tab[i]] = i;
#ifdef OWNER_CHECK
       tag[tab[i]] = OWN(_pid, i);
#endif
       i++
    :: else -> break
    od;
    i = 0 }
  d_step {                               /* handoff: cache_unfinished_req inserts the prompt's prefix */
    p = (GRP(_pid) != NONE && depth < K(GRP(_pid)));
    i = depth;
    do                                   /* only its own pages go in */
    :: p && i < K(GRP(_pid)) -> p = (holder[tab[i]] == _pid + 1); i++
    :: else -> break
    od;
    if
    :: p ->
       i = depth;
       do
       :: i < K(GRP(_pid)) ->
          n = NODE(GRP(_pid), i);
          if
          :: npage[n] != NONE && npage[n] != tab[i] -> holder[tab[i]] = 0; tab[i] = npage[n]  /* a duplicate */
          :: else -> holder[tab[i]] = TREE; npage[n] = tab[i]
          fi;
          i++
       :: else -> break
       od;
       i = depth;                        /* inc_lock_ref of the new last node, below the old one */
       do
       :: i < K(GRP(_pid)) -> if :: npage[NODE(GRP(_pid), i)] == tab[i] -> nlock[NODE(GRP(_pid), i)]++ :: else -> skip fi; i++
       :: else -> break
       od;
       depth = K(GRP(_pid)); inserted = true
    :: else -> skip
    fi;
    i = 0; p = 0; n = 0 }
  d_step {                               /* decode: read every page once */
#ifdef OWNER_CHECK
    p = true; i = 0;                     /* the owner check: a foreign tag fails the request loudly, nothing read */
    do
    :: i < LEN(_pid) -> p = p && tag[tab[i]] == OWN(_pid, i); i++
    :: else -> break
    od;
    i = 0;
    if
    :: p ->
#endif
       do
       :: i < LEN(_pid) ->
          rd[i] = READ + data[tab[i]] + (data[tab[i]] != 0 && pos[tab[i]] != i -> MISPLACED : 0);
          unheld = unheld || (holder[tab[i]] != _pid + 1 && !(i < depth && holder[tab[i]] == TREE && npage[NODE(GRP(_pid), i)] == tab[i]));
          assert(data[tab[i]] == OWN(_pid, i) && pos[tab[i]] == i); i++
       :: else -> break
       od
#ifdef OWNER_CHECK
    :: else -> skip
    fi
#endif
    ; i = 0; p = 0 }
  d_step {                               /* free: the pages past the last node back, data kept; unlock the path; forget the table */
    i = depth;
    do :: i < LEN(_pid) -> holder[tab[i]] = 0; i++ :: else -> break od;
    unlock();
#ifdef LOCK_UNDERFLOW
    unlock();                            /* the second dec_lock_ref of #27666 */
#endif
    i = 0;
    do :: i < LEN(_pid) -> tab[i] = 0; i++ :: else -> break od;
    i = 0 }
end:
  false
}
