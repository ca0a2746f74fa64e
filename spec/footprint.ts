/**
 * What each action kind reads and writes, over the variables of the layout table
 * (`layout.ts`): the one declaration from which partial-order reduction derives which
 * actions are independent (`binding/por.ts`, docs/POR.md). A new kind in `ACTION_KINDS`
 * does not compile until it has its row in {@link FOOTPRINTS};
 * test/spec/footprint.test.ts holds every row to `step` on random reachable states: an
 * action changes only what it declares it writes, and its enabledness and effect do not
 * change when what it does not declare it reads is changed.
 *
 * Which elements of a variable an action touches is its reach:
 * - `own`: its own request's (every per-request and per-position variable: no action
 *   reads or writes another request's);
 * - `table`: the pages in its own page table, as the table stands before the action;
 * - `held`: those of them that it holds before the action (a release that checks the holder);
 * - `free`: pages on the free list (or `sglang`'s release list) before the action: what
 *   an allocation takes;
 * - `cached`: pages that the prefix cache holds before the action: what `evict` frees;
 * - `any`: any element (a scan of every page, `lifo`'s list, a prefix's lock count).
 *
 * Two things are declared apart from the reaches. The phase: per phase the request can
 * be in when the action is enabled (the local part of its guard: in any other phase it is
 * disabled, whatever else holds), the phases it can leave the request in (`moves`). The
 * flags: the bits the action may set (`sets`; flags are never cleared). Where the guard
 * has more that reads only the request's own variables, that part too (`localGuard`), so
 * that the reduction knows the action cannot be enabled by another. Entering a phase
 * in which the request's table is dead also resets its table and saved copy
 * (`liveness.ts`); that reset is implied by the move and not declared again.
 */
import type { ActionKind } from './actions.ts';
import type { VariableName } from './layout.ts';
import type { Mechanism } from './hardening.ts';
import type { Model } from './model.ts';
import { needsPage } from './slots.ts';
import { OVERLAPPED } from './release.ts';
import { draftPendingOf, EVICTED_FOR, HIT, INSERTED, PHASES, READ_UNHELD, RESUMED, type Phase, type State } from './state.ts';

/** Which elements of a variable an access reaches (see above). */
export type Reach = 'own' | 'table' | 'held' | 'free' | 'cached' | 'any';

/** Variables an action reads or writes, each with its reach; the phase is declared by `moves`, a write of flags by `sets`. */
export type Accesses = Partial<Readonly<Record<Exclude<VariableName, 'phase'>, Reach>>>;

/** What an action kind reads and writes. */
export interface Footprint {
  /** Per phase of its request in which it can be enabled, the phases it can leave the request in. */
  readonly moves: Partial<Readonly<Record<Phase, readonly Phase[]>>>;
  /** The flag bits it may set on its request. */
  readonly sets: number;
  /** What its guard and its effect read, its request's phase aside. */
  readonly reads: Accesses;
  /** What it may write, its request's phase and flags aside. */
  readonly writes: Omit<Accesses, 'flags'>;
  /**
   * The part of its guard beyond the phase that reads only its request's own variables,
   * where it has one: where it is false the action is disabled, whatever the other
   * requests do.
   */
  readonly localGuard?: (m: Model, s: State, r: number) => boolean;
  /** Where a mechanism of `hardened` narrows what it writes: under `mechanism`, `writes` in place of the writes above. */
  readonly narrowed?: { readonly mechanism: Mechanism; readonly writes: Omit<Accesses, 'flags'> };
  /** Accesses it makes only where a variable is in the configuration's layout (a fault's or a switch's state): beside those above, one entry per such variable. */
  readonly withVariables?: readonly Conditional[];
}

/** Accesses an action makes only where `variable` is in the configuration's layout. */
export interface Conditional {
  /** The variable whose presence brings them (`auxHolder`: fault aux-torn's slot; `nodeLock`: the radix tree). */
  readonly variable: VariableName;
  /** What it then reads besides. */
  readonly reads: Accesses;
  /** What it then writes besides. */
  readonly writes: Omit<Accesses, 'flags'>;
  /** The flag bits it then may set besides. */
  readonly sets?: number;
}


/** A page's content as a write leaves it: label, position, filled slots, and the owner tag with its count. */
const CONTENT = { data: 'table', dataPos: 'table', fill: 'table', tag: 'table', tagFill: 'table' } as const;
/** The free list, read or written whole (`allocator.ts`): per-page copies, `sglang`'s release list, `lifo`'s list. */
const FREE_LIST = { free: 'any', release: 'any', list: 'any' } as const;
/** A release of the request's own table (`release.ts`): the holders and free-list copies of its pages, `lifo`'s list. */
const RELEASE = { holder: 'table', free: 'table', release: 'table', list: 'any' } as const;
/** The same under `release-checks-holder`: only the pages the request still holds are freed. */
const CHECKED_RELEASE = { narrowed: { mechanism: 'release-checks-holder', writes: { holder: 'held', free: 'held', release: 'held', list: 'any', lock: 'any' } } } as const;
/** The saved copy of a retracted request (`retraction.ts`). */
const SAVED = { savedData: 'own', savedPos: 'own', savedTag: 'own', savedFill: 'own', savedTagFill: 'own' } as const;
/** An allocation's writes to the pages it takes: held, owner tag cleared. */
const TAKEN = { holder: 'free', tag: 'free', tagFill: 'free' } as const;
/** What P's write (`writes.ts`) reads: the request's table and, for its shared prefix pages, its flags (under `radix`, its matched depth; with `loadback`, its load back, which P does not write). */
const WRITE_SET = { table: 'own', flags: 'own', depth: 'own', load: 'own' } as const;

/** The committed phases in which a part of P's write can still land under `premature-success`, each left as it is. */
const LANDS_COMMITTED = { handedOff: ['handedOff'], decoding: ['decoding'], decoded: ['decoded'], failed: ['failed'] } as const;

/**
 * The radix tree (config `radix`, `radix.ts`), present where `nodeLock` is: a hit matches
 * and locks a path, a release unlocks it, with no floor.
 */
const LOCKS = { variable: 'nodeLock', reads: { nodeLock: 'any', depth: 'own', holder: 'any', table: 'own' }, writes: { nodeLock: 'any', depth: 'own' } } as const;
/** An insert into the tree (`insertPath`): a node the tree holds replaces the request's own page, which goes back to the free list. */
const INSERTS = {
  variable: 'nodeLock',
  reads: { nodeLock: 'any', depth: 'own', holder: 'any', table: 'own', flags: 'own', ...FREE_LIST },
  writes: { nodeLock: 'any', depth: 'own', holder: 'any', table: 'own', ...FREE_LIST },
  sets: INSERTED,
} as const;
/** What P's write does to the draft model's KV (config `draft`, `draft.ts`): its draft part posted, or, late, landed with it. */
const DRAFT_POSTED = { draft: 'table', draftPending: 'own' } as const;
/** D's state slots and metadata rows (config `stateSlots`, `state-slots.ts`), present where `stateIdx` is: every slot and row, and the request's indices. */
const POOL = { stateHolder: 'any', stateOf: 'any', metaHolder: 'any', metaOf: 'any', stateIdx: 'own', metaIdx: 'own' } as const;
/** An allocation takes a slot and a row, a write lands in them, a release frees them. */
const POOLED = { variable: 'stateIdx', reads: POOL, writes: POOL } as const;
/** Every phase after the allocation, each left as it is: a load back lands, or its host copy is evicted, whatever its request does meanwhile. */
const LOAD_PHASES = Object.fromEntries(PHASES.filter((p) => p !== 'new').map((p) => [p, [p]])) as Footprint['moves'];
/** Every phase, each left as it is. */
const ALL_PHASES = Object.fromEntries(PHASES.map((p) => [p, [p]])) as Footprint['moves'];
/** D's metadata slot (fault `aux-torn`, `aux.ts`). */
const SLOT = { auxHolder: 'any', auxRoom: 'any', auxPayload: 'any' } as const;

/** Every action kind's footprint: the one place a kind declares what it touches. */
export const FOOTPRINTS: Readonly<Record<ActionKind, Footprint>> = {
  allocate: {
    moves: { new: ['allocated'] },
    sets: HIT,
    reads: { holder: 'any', ...FREE_LIST, lock: 'any', flags: 'own', auxHolder: 'any', hostCopy: 'any' },
    writes: { ...TAKEN, ...FREE_LIST, table: 'own', lock: 'any', auxHolder: 'any', load: 'own' },
    withVariables: [LOCKS, POOLED],
  },
  prefill: {
    moves: { allocated: ['written', 'writing'], timedOut: ['landed', 'landing'] },
    sets: 0,
    reads: WRITE_SET,
    writes: { ...CONTENT, dataParts: 'own', tagParts: 'own', ...DRAFT_POSTED },
    withVariables: [POOLED],
  },
  stub: {
    moves: { allocated: ['refused', 'written', 'writing'], timedOut: ['freed', 'landed', 'landing'] },
    sets: 0,
    reads: { ...WRITE_SET, auxHolder: 'any' },
    writes: { ...CONTENT, dataParts: 'own', tagParts: 'own', auxHolder: 'any', auxRoom: 'any', ...DRAFT_POSTED },
    withVariables: [POOLED],
  },
  // Under `premature-success` also from `writing`: the guard reads the phase only.
  // Under `aux-torn` (the slot in the layout) it waits for the room, reads the payload (a read record, the read set) and frees the slot.
  // Under `radix` it inserts the prompt's prefix into the tree (`cache_unfinished_req`).
  handoff: {
    moves: { written: ['handedOff'], writing: ['handedOff'] },
    sets: 0,
    // With `draft`, the commit waits for the draft part (draft.ts).
    reads: { draftPending: 'own' },
    writes: {},
    withVariables: [{ variable: 'auxHolder', reads: { ...SLOT, reads: 'own', observed: 'own' }, writes: { auxHolder: 'any', auxRoom: 'any', reads: 'own', observed: 'own' } }, INSERTS, { variable: 'stateIdx', reads: { ...POOL, reads: 'own', observed: 'own' }, writes: { ...POOL, reads: 'own', observed: 'own' } }],
  },
  grow: {
    moves: { decoding: ['decoding'] },
    sets: 0,
    reads: { steps: 'own', table: 'own', holder: 'any', ...FREE_LIST },
    writes: { ...TAKEN, ...FREE_LIST, table: 'own' },
    // The next step's token falls past the table's last page (a decode step waits for it).
    localGuard: needsPage,
  },
  decode: {
    moves: { handedOff: ['decoded', 'decoding', 'failed'], decoding: ['decoded', 'decoding', 'failed'] },
    sets: READ_UNHELD,
    // Under `radix` the pages it may read as shared are its matched depth's (`sharedPages`).
    reads: { steps: 'own', table: 'own', flags: 'own', reads: 'own', observed: 'own', holder: 'table', depth: 'own', ...CONTENT, draft: 'table', load: 'own' },
    writes: { steps: 'own', reads: 'own', observed: 'own', ...CONTENT, draft: 'table' },
    withVariables: [{ variable: 'stateIdx', reads: POOL, writes: { reads: 'own', observed: 'own' } }],
  },
  free: {
    // Under `premature-success` a release with parts in flight leaves the request `landing`.
    moves: { decoded: ['freed', 'landing'], refused: ['freed'], failed: ['freed', 'landing'], freed: ['released'], landed: ['released'] },
    sets: OVERLAPPED,
    reads: { table: 'own', flags: 'own', ...RELEASE, lock: 'any', dataParts: 'own', tagParts: 'own' },
    writes: { ...RELEASE, lock: 'any' },
    withVariables: [LOCKS, POOLED],
    ...CHECKED_RELEASE,
  },
  timeout: {
    moves: { allocated: ['timedOut'], writing: ['landing', 'landed'] },
    sets: OVERLAPPED,
    reads: { table: 'own', flags: 'own', ...RELEASE, lock: 'any', auxHolder: 'any' },
    writes: { ...RELEASE, lock: 'any', auxHolder: 'any', auxRoom: 'any' },
    withVariables: [LOCKS, POOLED],
    ...CHECKED_RELEASE,
  },
  insert: {
    moves: { decoded: ['decoded'], refused: ['refused'], failed: ['failed'] },
    sets: INSERTED,
    reads: { table: 'own', flags: 'own', holder: 'any', lock: 'any' },
    // Its guard asks that it still holds every page it moves into the cache.
    writes: { holder: 'held', lock: 'any' },
    withVariables: [INSERTS],
  },
  evict: {
    // A resume short of pages evicts too (retraction.ts): it reads its table's room.
    moves: { new: ['new'], retracted: ['retracted'] },
    sets: EVICTED_FOR,
    reads: { flags: 'own', table: 'own', holder: 'any', ...FREE_LIST, lock: 'any' },
    writes: { holder: 'cached', free: 'cached', release: 'cached', list: 'any' },
    // Under `radix` a leaf with lock_ref <= 0 (`evictableLeaf`); its lock_ref goes with it.
    withVariables: [{ variable: 'nodeLock', reads: { nodeLock: 'any' }, writes: { nodeLock: 'cached' } }],
  },
  landData: {
    // Under `premature-success` also after an early commit, which it leaves as it was.
    moves: { writing: ['writing', 'written'], landing: ['landing', 'landed'], ...LANDS_COMMITTED },
    sets: 0,
    reads: { ...WRITE_SET, dataParts: 'own', tagParts: 'own', sourceFreed: 'own' },
    writes: { data: 'table', dataPos: 'table', fill: 'table', dataParts: 'own', sourceFreed: 'own' },
    withVariables: [POOLED],
  },
  landTag: {
    // Under `premature-success` also after an early commit, which it leaves as it was.
    moves: { writing: ['writing', 'written'], landing: ['landing', 'landed'], ...LANDS_COMMITTED },
    sets: 0,
    reads: { ...WRITE_SET, dataParts: 'own', tagParts: 'own' },
    writes: { tag: 'table', tagFill: 'table', tagParts: 'own' },
    withVariables: [POOLED],
  },
  retract: {
    moves: { handedOff: ['retracted', 'offloading'], decoding: ['retracted', 'offloading'] },
    sets: OVERLAPPED,
    reads: { table: 'own', flags: 'own', ...RELEASE, ...CONTENT },
    writes: { ...RELEASE, ...SAVED },
    narrowed: { mechanism: 'release-checks-holder', writes: { holder: 'held', free: 'held', release: 'held', list: 'any', ...SAVED } },
    withVariables: [LOCKS],
  },
  offload: {
    moves: { offloading: ['retracted'] },
    sets: 0,
    reads: { table: 'own', ...CONTENT },
    writes: SAVED,
  },
  resume: {
    moves: { retracted: ['handedOff', 'decoding'] },
    sets: RESUMED,
    reads: { steps: 'own', table: 'own', flags: 'own', holder: 'any', ...FREE_LIST, ...SAVED },
    writes: { ...TAKEN, ...FREE_LIST, data: 'free', dataPos: 'free', fill: 'free', table: 'own', ...SAVED },
  },
  // Never explored (OBSERVED_ONLY_KINDS): declared for the harnesses and logs that take them.
  allocFail: {
    moves: { new: ['new'] },
    sets: 0,
    reads: { lock: 'any', flags: 'own', holder: 'any', ...FREE_LIST },
    writes: { ...FREE_LIST },
  },
  abortCommit: {
    moves: { written: ['freed'] },
    sets: OVERLAPPED,
    reads: { table: 'own', flags: 'own', ...RELEASE, lock: 'any' },
    writes: { ...RELEASE, lock: 'any' },
    withVariables: [LOCKS],
    ...CHECKED_RELEASE,
  },
  // P's abort marks its source pages freed (source-pages.ts); its guard reads the write's count of pages and what has landed.
  abortSource: {
    moves: { writing: ['writing'], landing: ['landing'] },
    sets: 0,
    reads: { ...WRITE_SET, dataParts: 'own', sourceFreed: 'own' },
    writes: { sourceFreed: 'own' },
  },
  landRoom: {
    moves: { writing: ['writing'], written: ['written'] },
    sets: 0,
    reads: { auxHolder: 'any', auxRoom: 'any', auxPayload: 'any' },
    writes: { auxRoom: 'any' },
  },
  landPayload: {
    moves: { writing: ['writing'], written: ['written'] },
    sets: 0,
    reads: { auxHolder: 'any', auxPayload: 'any' },
    writes: { auxPayload: 'any' },
  },
  // The draft part of the write lands by page id (draft.ts); which positions it covers is the write set's.
  landDraft: {
    moves: { writing: ['writing'], written: ['written'], landing: ['landing'] },
    sets: 0,
    reads: { ...WRITE_SET, draftPending: 'own' },
    writes: { draft: 'table', draftPending: 'own' },
    localGuard: (m, s, r) => draftPendingOf(m, s, r),
  },
  // The load back from host memory (loadback.ts) lands in whatever phase its request is in, and leaves it there.
  loadBack: {
    moves: LOAD_PHASES,
    sets: 0,
    reads: { load: 'own', hostCopy: 'any', table: 'own' },
    // It writes only while its request is live (its phase, which moves declares).
    writes: { ...CONTENT, load: 'own', draft: 'table' },
  },
  // Any request with the prefix, in any phase; its guard reads every request's load on the copy.
  evictHost: {
    moves: ALL_PHASES,
    sets: 0,
    reads: { load: 'any', hostCopy: 'any' },
    writes: { hostCopy: 'any' },
  },
};

