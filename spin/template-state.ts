/**
 * The Promela model's globals (`template.ts` joins the pieces): the state variables of
 * spec/state.ts byte for byte, the scratch counters (0 in every stored state: see
 * `template.ts`'s header) and the invariant bits.
 */

/** The state variables, the scratch counters and the invariant bits. */
export const PROMELA_STATE = String.raw`
/* ---- state: the variables of spec/state.ts, byte for byte ---- */
byte holder[PAGES];               /* who holds page p: 0 nobody (free), r+1 request r, PREFIX_AT(g, j) the prefix cache (page j of g's entry) */
byte data[PAGES];                 /* whose content page p holds: the label of the last write; never cleared */
byte tag[PAGES];                  /* owner-check: the owner tag, stamped by writes, cleared by allocate */
byte phase[N];                    /* request r's phase */
byte flags[N];                    /* HIT | INSERTED | READ_UNHELD */
int observed[N];                  /* request r's read set: bit label-1 for every label its decode read */
byte table[TABLE_SIZE] = NO_PAGE; /* the page tables, request r's at its offset T */
byte dataPos[PAGES];              /* the table position page p's content was written for */
byte steps[N];                    /* decode steps request r has taken */
byte dparts[N];                   /* torn-write: content parts of r's write landed */
byte tparts[N];                   /* torn-write: tag parts of r's write landed */
byte readrec[TABLE_SIZE];         /* request r's read record, per table position, at its offset T */
byte freecnt[PAGES] = DOUBLE_FREE; /* double-free: page p's copies on the free list (a multiset); 0 otherwise */
byte fill[PAGES];                 /* token slots (FILL): how many slots of page p, from the first, hold its content; 0 otherwise */
byte tagfill[PAGES];              /* token slots under an owner check (TAG_FILL): the slots p's tag says were written; 0 otherwise */

/* ---- scratch: 0 in every stored state (see the header) ---- */
byte i;
byte pg;
short k;
int seen;
unsigned Isolation : 1 = 1;
unsigned ExclusiveHold : 1 = 1;
unsigned Conservation : 1 = 1;
unsigned ReadsOwnPages : 1 = 1;
unsigned NoDuplicateFree : 1 = 1;
unsigned NoUseAfterFree : 1 = 1;
unsigned Integrity : 1 = 1;
byte j;
byte rec;
`;
