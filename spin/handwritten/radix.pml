/*
 * D's prefix cache as a radix tree, under eviction, written by hand as a SPIN user would,
 * beside draft.pml and loadback.pml (one process per request, one d_step per protocol
 * step; the page tables are the rows of one global array, as SGLang's req_to_token_pool,
 * all NONE before the allocation and again after the release). Not generated from
 * pagecheck and not a copy of its state layout; the independent reference of
 * test/spin/handwritten-radix.test.ts.
 *
 * Read from SGLang, python/sglang/srt/mem_cache/radix_cache.py:
 * - match_prefix (_match_prefix_helper) walks from the root down the children whose key is
 *   the request's next page and returns the pages matched, a partial match included; the
 *   request shares them, locks them (inc_lock_ref of its last node) and is given pages
 *   only past them (kv_loc covers [prefix_len:]).
 * - insert (_insert_helper) walks the same path and hangs the rest of the key under the
 *   last node reached. cache_unfinished_req runs it at the handoff (the decode side's
 *   process_prebuilt, before the first decode) for every page-aligned page of the prompt,
 *   frees the request's pages the tree already held (kv_indices[cache_protected_len:
 *   new_prefix_len], duplicates), points the request's row at the tree's pages, then
 *   dec_lock_ref(old last node) and inc_lock_ref(new last node). cache_finished_req, from
 *   the release (release_kv_cache), inserts again, frees the duplicates and the unaligned
 *   tail, and dec_lock_ref(req.last_node).
 * - inc_lock_ref / dec_lock_ref walk from the node to the root, +1 / -1 at every node,
 *   with no floor. _update_leaf_status makes a node an evictable leaf unless it is evicted,
 *   has a child, or has lock_ref > 0: a node below 0 is evictable (#27666 logs
 *   protected=-12).
 * - evict pops evictable leaves in the policy's order (LRU: last_access_time), frees each
 *   one's pages (free(x.value)) and deletes it; its parent is a leaf once its last child
 *   is gone.
 *
 * In this model. A request's key is its prompt's prefix pages; two keys that begin with the
 * same pages walk the same nodes that far. A prefix that extends another (sys/doc: sys's
 * pages, then doc's) shares the other's nodes and hangs its own under the other's last one,
 * as _insert_helper splits where keys diverge (a node is one page, so always at a node's
 * boundary); siblings (sys/doc, sys/faq) share sys's nodes even when no key is sys alone.
 * So the nodes are fixed by the keys: node n has parent PAR(n) (NONE: the root), and
 * request r's key of KR(r) pages walks PATH(r, 0..KR(r)-1) (-D defines, not
 * state). The tree is the arrays npage (the node's page, NONE while the tree has no such
 * node) and nlock (its lock_ref, signed, no clamp); a page the tree holds has holder TREE.
 * A node is a leaf while none of its children is there. A request's last node is its depth
 * (local `depth`): positions [0, depth) of its table are nodes it locked. The insert at
 * finish finds nothing left: the handoff's reached the key's end. SGLang inserts the
 * request's own pages past its prefix too, a branch no other request here shares: this
 * model frees them at the release instead. A node whose parent was evicted under it
 * (lock-underflow) stays, unreachable by match until the parent is inserted again, as a
 * detached TreeNode would.
 *
 * Eviction. A clock per node (SGLang's last_access_time) would tell apart states that
 * differ only in when a node was last touched, which pagecheck does not keep: the order is
 * fixed instead, as there, the evictable leaf on the lowest page. A request short of pages
 * evicts one leaf at a time, never one on its own key's path (its match comes first, and
 * a nested key's path goes through its parent's nodes), until enough pages are free; it
 * may wait forever.
 *
 * D allocates the lowest free pages past the match; P writes the positions past it (key
 * position i as its node's label NODEL(PATH(r, i)), one label per node, so sys/doc's first
 * page carries sys's; the rest as the request's own), with the owner tag under
 * -DOWNER_CHECK (allocate clears the tags of the pages it takes), or refuses a prompt
 * longer than LIMIT (a stub: nothing written, the request released, inserting nothing).
 * Decode reads every position once (asserting it read its own data or its prefix's, each
 * for its position); under -DOWNER_CHECK it first compares every page's tag with what the
 * position may hold, and on a foreign tag fails loudly, reading nothing. The release frees
 * the pages past the last node (data kept) and unlocks the path; with -DLOCK_UNDERFLOW
 * (fault lock-underflow, #27666) it unlocks it twice, which cancels another request's lock
 * on the shared nodes. -DUNLOCK_ONCE (hardened's unlock-once, with -DOWNER_CHECK) moves the
 * request's last node to the root as it unlocks, so that a second unlock walks nothing.
 * Eviction asserts that no page table still points at the leaf's page (the node a request
 * still reads: the underflow's first harm); -DREAD_CHECK_ONLY leaves that out, to find the
 * foreign read itself.
 *
 *   spin -DLOCK_UNDERFLOW -o2 -a radix.pml && gcc -O2 -DBFS -DSAFETY -DNOREDUCE -o pan pan.c && ./pan
 *
 * Kept per request for the count comparison: what decode read at each position (rd) and
 * ghost bits hit, inserted, unheld (decode read a page it did not hold) and evicted, all
 * write-only (-o2 keeps them). At most 3 requests, 6 pages, 4 nodes, keys of 3 pages.
 */
#ifndef PAGES            /* the configuration (the test defines every name of this block) */
#define PAGES 2
#define N 3
#define LIMIT 3          /* P's prefill limit, in pages */
#define MAXLEN 2
#define L0 2             /* prompt lengths in pages; each key's length (KR, 0: no prefix) */
#define L1 2
#define L2 1
#define KR0 1
#define KR1 1
#define KR2 0
#define NODES 1          /* the tree: its nodes, each one's parent (NONE: the root) */
#define PAR0 NONE
#define PAR1 NONE
#define PAR2 NONE
#define PAR3 NONE
#define R0P0 0           /* request r's path: the node at key position i (RrPi), 0 past the key */
#define R0P1 0
#define R0P2 0
#define R1P0 0
#define R1P1 0
#define R1P2 0
#define R2P0 0
#define R2P1 0
#define R2P2 0
#endif
#define NONE 255
#define TREE 254             /* holder of a page the tree holds */
#define LEN(r) (r == 0 -> L0 : (r == 1 -> L1 : L2))
#define KR(r) (r == 0 -> KR0 : (r == 1 -> KR1 : KR2))
#define PATH(r, i) (r == 0 -> (i == 0 -> R0P0 : (i == 1 -> R0P1 : R0P2)) : \
  (r == 1 -> (i == 0 -> R1P0 : (i == 1 -> R1P1 : R1P2)) : (i == 0 -> R2P0 : (i == 1 -> R2P1 : R2P2))))
#define PAR(n) (n == 0 -> PAR0 : (n == 1 -> PAR1 : (n == 2 -> PAR2 : PAR3)))
#define DEP(n) (PAR(n) == NONE -> 0 : (PAR(PAR(n)) == NONE -> 1 : 2))   /* keys of at most 3 pages */
#define NODEL(n) (N + 1 + (n))               /* the content label of node n's page */
#define FREE_AT(p) (PAGES > p && holder[p] == 0)
#define FREE (FREE_AT(0) + FREE_AT(1) + FREE_AT(2) + FREE_AT(3) + FREE_AT(4) + FREE_AT(5))
#define HAS(r, i) (KR(r) > (i) && npage[PATH(r, i)] != NONE)
/* match_prefix: how many nodes of request r's path the tree holds from the root */
#define MATCH(r) (HAS(r, 0) + (HAS(r, 0) && HAS(r, 1)) + (HAS(r, 0) && HAS(r, 1) && HAS(r, 2)))
#define KID(n, c) (NODES > c && PAR(c) == n && npage[c] != NONE)
#define LEAF(n) (npage[n] != NONE && !KID(n, 0) && !KID(n, 1) && !KID(n, 2) && !KID(n, 3))
#define ONPATH(n, r) (KR(r) > DEP(n) && PATH(r, DEP(n)) == n)
#define EVICTABLE(n, r) (NODES > n && !ONPATH(n, r) && LEAF(n) && nlock[n] <= 0)
#define ANY_EVICTABLE(r) \
  (EVICTABLE(0, r) || EVICTABLE(1, r) || EVICTABLE(2, r) || EVICTABLE(3, r))
#define READ 128             /* a decode read record: READ + label, + 64 when misplaced */
#define MISPLACED 64
#define ROW(r, i) req_to_token[(r) * MAXLEN + (i)]
#define T(i) ROW(_pid, i)                   /* the running request's table, and its path's node i */
#define MYNODE(i) PATH(_pid, i)
#define OWN(r, i) (i < KR(r) -> NODEL(PATH(r, i)) : r + 1)

byte holder[PAGES];  /* 0 free, TREE, else the holding request's pid + 1 */
byte data[PAGES];    /* 0 never written, else the label of the last write; never cleared */
byte pos[PAGES];     /* the table position the last write was for */
#ifdef OWNER_CHECK
byte tag[PAGES];     /* the owner tag: the label of every write, cleared by allocate */
#endif
byte req_to_token[N * MAXLEN] = NONE;  /* the page tables, a row per request */
byte npage[4] = NONE; /* the tree: node n's page, NONE while the tree has no node n */
short nlock[4];      /* node n's lock_ref: no floor */

/* dec_lock_ref(last_node): -1 at every node of the path still on the request's page */
inline unlock() {
  i = 0;
  do
  :: i < depth -> if :: npage[MYNODE(i)] == T(i) -> nlock[MYNODE(i)]-- :: else -> skip fi; i++
  :: else -> break
  od
}

/* the release: the pages past the last node back (data kept), dec_lock_ref, the row forgotten */
inline release() {
  i = depth;
  do :: i < LEN(_pid) -> holder[T(i)] = 0; i++ :: else -> break od;
  unlock();
#ifdef UNLOCK_ONCE
  depth = 0;                             /* the last node is the root: a second unlock is empty */
#endif
#ifdef LOCK_UNDERFLOW
  unlock();                              /* the second dec_lock_ref of #27666 */
#endif
  i = 0;
  do :: i < LEN(_pid) -> T(i) = NONE; i++ :: else -> break od;
  i = 0
}

/*
 * insert: the prompt's prefix pages past the last node go into the tree, page by page (its
 * own pages only); a node the tree already holds replaces the request's copy, which is
 * freed (a duplicate); then the path is locked down to the prefix's end (dec_lock_ref of
 * the old last node and inc_lock_ref of the new one leave +1 on the nodes between them).
 */
inline insert() {
  p = (depth < KR(_pid));
  i = depth;
  do
  :: p && i < KR(_pid) -> p = (holder[T(i)] == _pid + 1); i++
  :: else -> break
  od;
  if
  :: p ->
     i = depth;
     do
     :: i < KR(_pid) ->
        n = MYNODE(i);
        if
        :: npage[n] != NONE && npage[n] != T(i) -> holder[T(i)] = 0; T(i) = npage[n]
        :: else -> holder[T(i)] = TREE; npage[n] = T(i)
        fi;
        i++
     :: else -> break
     od;
     i = depth;
     do
     :: i < KR(_pid) -> if :: npage[MYNODE(i)] == T(i) -> nlock[MYNODE(i)]++ :: else -> skip fi; i++
     :: else -> break
     od;
     depth = KR(_pid); inserted = true
  :: else -> skip
  fi;
  i = 0; p = 0; n = 0
}

active [N] proctype Request() {
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
  :: d_step {                            /* evict: the lowest evictable leaf of another prefix */
       FREE < LEN(_pid) - MATCH(_pid) && ANY_EVICTABLE(_pid) ->
       n = NONE; i = 0;
       do
       :: i < NODES && EVICTABLE(i, _pid) && (n == NONE || npage[i] < npage[n]) -> n = i; i++
       :: i < NODES && !(EVICTABLE(i, _pid) && (n == NONE || npage[i] < npage[n])) -> i++
       :: else -> break
       od;
#ifndef READ_CHECK_ONLY
       i = 0;                            /* no page table still points at the leaf's page */
       do :: i < N * MAXLEN -> assert(req_to_token[i] != npage[n]); i++ :: else -> break od;
#endif
       holder[npage[n]] = 0; npage[n] = NONE; nlock[n] = 0;
       evicted = true;
       i = 0; n = 0 };
     goto endNew
  :: d_step {                            /* allocate: match, lock, the lowest free pages past it */
       FREE >= LEN(_pid) - MATCH(_pid) ->
       depth = MATCH(_pid);
       i = 0;
       do
       :: i < depth -> T(i) = npage[MYNODE(i)]; nlock[MYNODE(i)]++; i++
       :: else -> break
       od;
       hit = depth > 0;
       p = 0;
       do
       :: i < LEN(_pid) && holder[p] == 0 ->
          holder[p] = _pid + 1; T(i) = p;
#ifdef OWNER_CHECK
          tag[p] = 0;
#endif
          i++; p++
       :: i < LEN(_pid) && holder[p] != 0 -> p++
       :: else -> break
       od;
       i = 0; p = 0 }
  fi;
  if
  :: d_step { LEN(_pid) > LIMIT -> skip };  /* stub: P refuses, nothing written */
     d_step { release() }                /* free: a refused request inserts nothing */
  :: d_step {                            /* prefill: P writes the positions past the match */
       LEN(_pid) <= LIMIT ->
       i = depth;
       do
       :: i < LEN(_pid) ->
          data[T(i)] = OWN(_pid, i); pos[T(i)] = i;
#ifdef OWNER_CHECK
          tag[T(i)] = OWN(_pid, i);
#endif
          i++
       :: else -> break
       od;
       i = 0 }
     d_step { insert() }                 /* handoff: cache_unfinished_req (process_prebuilt) */
     d_step {                            /* decode: read every page once */
#ifdef OWNER_CHECK
       p = true; i = 0;                  /* the owner check: a foreign tag fails it loudly */
       do
       :: i < LEN(_pid) -> p = p && tag[T(i)] == OWN(_pid, i); i++
       :: else -> break
       od;
       i = 0;
       if
       :: p ->
#endif
          do
          :: i < LEN(_pid) ->
             rd[i] = READ + data[T(i)] + (data[T(i)] != 0 && pos[T(i)] != i -> MISPLACED : 0);
             unheld = unheld ||
               (holder[T(i)] != _pid + 1 && !(i < depth && holder[T(i)] == TREE && npage[MYNODE(i)] == T(i)));
             assert(data[T(i)] == OWN(_pid, i) && pos[T(i)] == i); i++
          :: else -> break
          od
#ifdef OWNER_CHECK
       :: else -> skip
       fi
#endif
       ; i = 0; p = 0 }
     d_step {                            /* free: release_kv_cache -> cache_finished_req */
       insert();                         /* nothing left: the handoff's reached the prefix's end */
       release() }
  fi;
end:
  false
}
