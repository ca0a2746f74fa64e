import { beforeAll, describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import { columnPages, runMatrix } from '../../matrix/matrix.ts';
import { compile, incidentConfig, matrixConfig, VARIANTS } from '../../spec/index.ts';
import { checkedModel } from '../../binding/index.ts';

/**
 * The fault matrix on `matrixConfig`, full exploration, as measured independently by a
 * throwaway breadth-first search (no symmetry: no two requests of that configuration are
 * interchangeable): states, depth, and the depth of each invariant's first violation.
 * The torn-write column, the hardened row and the Integrity figures were added with
 * issue 14 and are pinned from `npx tsx cli/main.ts matrix --json` itself. The
 * double-free column and the NoUseAfterFree/NoDuplicateFree entries were measured with
 * this checker, symmetry off. Double-free breaks the free list's bookkeeping but cannot
 * leak here: the only requests that P computes are A and C, both 2 pages long, and the
 * sorted free list hands both copies of a twice-freed page to the same one of them (B,
 * over-long, is refused without the silent stub and reads nothing); that request then
 * reads at one position content written for the other, which breaks Integrity (garbage,
 * not a leak). The lock-underflow cells turn eviction on (the fault needs it): the cached
 * page is evicted while a request that hit it is live, but the only request that can hit
 * it here (B) is refused and reads nothing, so the bookkeeping breaks and nothing leaks.
 * Under hardened, double-free's second release (taken only while the old pages are all
 * free) frees nothing: release-checks-holder frees only pages the request still holds.
 * The auto-truncate column (measured with this checker): P cuts B (3 pages) to the limit
 * of 2 and reports success, so the length fix does not see it; B reads a page never
 * written for it (Integrity at 4) and, once A's data is in that page, A's (Isolation at
 * 15). The owner check catches it at page level here: the matrix has whole pages. The
 * slot-level leak it misses, inside a partly written page, is in test/spec/slots.test.ts.
 * The segment-overlap column (issue 23, measured with this checker, symmetry off): B,
 * refused, is released with its own prefix-position page freed twice (its duplicates'
 * call and its segment's), which breaks the bookkeeping at 3 actions; the sorted free
 * list then hands both copies to A, whose own two writes collide in one page: garbage at
 * 7, no leak, and A's tags are its own, so the owner check passes it. Under hardened the
 * segment's second free finds the page held by nobody (release-checks-holder, checked
 * page by page in call order) and frees nothing. Under `lifo` the copies are apart and
 * two requests get one page: test/spec/release.test.ts.
 * The retraction columns (issue 23, measured with this checker, symmetry on and off
 * alike) turn retraction on (the faults need it). offload-after-free: A is retracted and
 * its pages released before the copy reads them; C takes them and writes its own KV; the
 * copy reads C's data and resume loads it back as A's, stamping A's tag under the owner
 * check: A reads C's data at 11, through the owner check (the load is a write by A's own
 * side). hardened's copy-carries-tag restores C's tag with it, and A fails loudly.
 * resume-stale: the resume takes new pages and skips the load; A reads what they held
 * (10). Their tags were cleared when taken and nothing stamped them, so the owner check
 * alone stops it.
 * The source-early-free column (issue 24, measured with this checker) turns --source-pages
 * and torn-write on (the fault needs a write in flight): P aborts A while content parts of
 * its write are still to land and frees its source pages, and the parts that land after
 * copy another user's KV (7 actions; 9 under the owner check, whose tag part carries A's
 * own label, so it fails nobody loudly). hardened's hold-source keeps the pages until the
 * transfer ends.
 * The draft-stale column (issue 24, measured with this checker) turns --draft on: every page
 * holds a draft model's KV beside the target's, landed by its own part, and the draft part
 * skips C's prefix position (P's cache hit it). C reads a page whose draft was never written
 * (Integrity at 5), or, once A has decoded and freed it, A's draft (Isolation at 11). The
 * owner check compares the target's tag, which is C's own, so it fails nobody loudly;
 * hardened's draft-fills-hit fills the hit's draft before the transfer.
 * The state-slot-reuse and metadata-collision columns (issue 24, measured with this
 * checker) turn --state-slots on and run on 4 pages, not 3 (matrix/matrix.ts,
 * `columnPages`): on 3 no two requests of this configuration are ever in flight together
 * (A and C take 2 each, B 3), so no slot could be reused and no row shared, and every cell
 * held vacuously (83 and 88 states). On 4, A and C are in flight together (B, over-long,
 * is refused as before). state-slot-reuse: A's commit frees its state slot, C is given it
 * and C's transfer writes C's state there, and A's decode step reads it (6 actions, under
 * buggy, length-fix and owner-check alike: the owner check sees page tags, not slots).
 * metadata-collision: C is given A's metadata row and A's commit appends C's first token
 * (5 actions). hardened's slot-freed-with-request and metadata-alloc-checks-holder stop
 * them where they are made (384 states each). The same traces as test/spec/state-slots.test.ts's
 * 2-page ones, with C for B.
 * The host cache's columns (issue 24, measured with this checker) turn --loadback on: B and
 * C find prefix sys on the host, not on D, and load it into pages of their own.
 * host-evict-during-load: the host copy is evicted and reused while B's load reads it, and
 * B reads another user's KV (6 actions, also under the owner check: D tags the page with
 * what it asked to load). read-before-load: B decodes before its load lands, reading a
 * page never written (Integrity at 4) or A's KV (Isolation at 9); the owner check fails B
 * loudly on the tag its allocation cleared. hardened's protect-host and wait-own-load.
 */
const EXPECTED = `
buggy        silent-stub    156 16 Isolation@9 Integrity@4
buggy        early-free     331 14 Isolation@7 Integrity@7
buggy        stale-free     826 17 ExclusiveHold@5 Conservation@5 NoUseAfterFree@5 ReadsOwnPages@8 Isolation@10 Integrity@10
buggy        prefix-poison  123 14 Isolation@13 Integrity@8
buggy        double-free    664 17 Conservation@4 NoDuplicateFree@4 ExclusiveHold@5 NoUseAfterFree@7 Integrity@8 ReadsOwnPages@13
buggy        lock-underflow  91 15 ExclusiveHold@8 NoUseAfterFree@8
buggy        torn-write     824 18 Isolation@10 Integrity@10
buggy        auto-truncate  140 16 Isolation@15 Integrity@4
buggy        segment-overlap 169 14 Conservation@3 NoDuplicateFree@3 ExclusiveHold@4 Integrity@7
buggy        offload-after-free 1082 20 Isolation@11 Integrity@11
buggy        resume-stale   632 18 Isolation@10 Integrity@10
buggy        source-early-free 600 20 Isolation@7 Integrity@7
buggy        premature-success 3569 18 Isolation@10 Integrity@4
buggy        aux-torn       276 18 Isolation@11 Integrity@4
buggy        draft-stale     94 16 Isolation@11 Integrity@5
buggy        state-slot-reuse 443 14 Isolation@6 Integrity@6
buggy        metadata-collision 561 14 Isolation@5 Integrity@5
buggy        host-evict-during-load 559 17 Isolation@6 Integrity@6
buggy        read-before-load 691 17 Isolation@9 Integrity@4
length-fix   silent-stub     83 14
length-fix   early-free     331 14 Isolation@7 Integrity@7
length-fix   stale-free     826 17 ExclusiveHold@5 Conservation@5 NoUseAfterFree@5 ReadsOwnPages@8 Isolation@10 Integrity@10
length-fix   prefix-poison  123 14 Isolation@13 Integrity@8
length-fix   double-free    664 17 Conservation@4 NoDuplicateFree@4 ExclusiveHold@5 NoUseAfterFree@7 Integrity@8 ReadsOwnPages@13
length-fix   lock-underflow  91 15 ExclusiveHold@8 NoUseAfterFree@8
length-fix   torn-write     824 18 Isolation@10 Integrity@10
length-fix   auto-truncate  140 16 Isolation@15 Integrity@4
length-fix   segment-overlap 169 14 Conservation@3 NoDuplicateFree@3 ExclusiveHold@4 Integrity@7
length-fix   offload-after-free 1082 20 Isolation@11 Integrity@11
length-fix   resume-stale   632 18 Isolation@10 Integrity@10
length-fix   source-early-free 600 20 Isolation@7 Integrity@7
length-fix   premature-success 3569 18 Isolation@10 Integrity@4
length-fix   aux-torn       276 18 Isolation@11 Integrity@4
length-fix   draft-stale     94 16 Isolation@11 Integrity@5
length-fix   state-slot-reuse 443 14 Isolation@6 Integrity@6
length-fix   metadata-collision 561 14 Isolation@5 Integrity@5
length-fix   host-evict-during-load 559 17 Isolation@6 Integrity@6
length-fix   read-before-load 691 17 Isolation@9 Integrity@4
owner-check  silent-stub    106 16
owner-check  early-free     393 14
owner-check  stale-free     925 17 ExclusiveHold@5 Conservation@5 NoUseAfterFree@5 ReadsOwnPages@8
owner-check  prefix-poison  128 14
owner-check  double-free    761 17 Conservation@4 NoDuplicateFree@4 ExclusiveHold@5 NoUseAfterFree@7 Integrity@8 ReadsOwnPages@13
owner-check  lock-underflow  96 15 ExclusiveHold@8 NoUseAfterFree@8
owner-check  torn-write    7640 22 Isolation@12 Integrity@12
owner-check  auto-truncate  102 16
owner-check  segment-overlap 170 14 Conservation@3 NoDuplicateFree@3 ExclusiveHold@4 Integrity@7
owner-check  offload-after-free 2041 20 Isolation@11 Integrity@11
owner-check  resume-stale   468 17
owner-check  source-early-free 1034 24 Isolation@9 Integrity@9
owner-check  premature-success 21910 22 Isolation@12 Integrity@6
owner-check  aux-torn       292 18 Isolation@11 Integrity@4
owner-check  draft-stale     99 16 Isolation@11 Integrity@5
owner-check  state-slot-reuse 461 14 Isolation@6 Integrity@6
owner-check  metadata-collision 582 14 Isolation@5 Integrity@5
owner-check  host-evict-during-load 589 17 Isolation@6 Integrity@6
owner-check  read-before-load 559 17
hardened     silent-stub    106 16
hardened     early-free     280 14
hardened     stale-free     288 17
hardened     prefix-poison  128 14
hardened     double-free    288 17
hardened     lock-underflow  96 15 ExclusiveHold@8 NoUseAfterFree@8
hardened     torn-write    2133 22
hardened     auto-truncate  102 16
hardened     segment-overlap 88 14
hardened     offload-after-free 1994 22
hardened     resume-stale   468 17
hardened     source-early-free 242 22
hardened     premature-success 176 22
hardened     aux-torn       110 18
hardened     draft-stale     99 16
hardened     state-slot-reuse 384 14
hardened     metadata-collision 384 14
hardened     host-evict-during-load 378 17
hardened     read-before-load 378 17
`;

describe('the fault matrix', () => {
  // Run once before the tests, not while vitest collects the file.
  let cells: ReturnType<typeof runMatrix>['cells'];
  beforeAll(() => {
    cells = runMatrix().cells;
  }, 60_000);

  it('gives the expected pattern: buggy and length-fix leak under most faults, owner-check where a write or a slot gets past its page tags, hardened never', () => {
    const grid = VARIANTS.map((v) => cells.filter((c) => c.variant === v).map((c) => (c.isolation === 'leak' ? `leak ${c.traceLength}` : 'holds')));
    expect(grid).toEqual([
      ['leak 9', 'leak 7', 'leak 10', 'leak 13', 'holds', 'holds', 'leak 10', 'leak 15', 'holds', 'leak 11', 'leak 10', 'leak 7', 'leak 10', 'leak 11', 'leak 11', 'leak 6', 'leak 5', 'leak 6', 'leak 9'],
      ['holds', 'leak 7', 'leak 10', 'leak 13', 'holds', 'holds', 'leak 10', 'leak 15', 'holds', 'leak 11', 'leak 10', 'leak 7', 'leak 10', 'leak 11', 'leak 11', 'leak 6', 'leak 5', 'leak 6', 'leak 9'],
      ['holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'leak 12', 'holds', 'holds', 'leak 11', 'holds', 'leak 9', 'leak 12', 'leak 11', 'leak 11', 'leak 6', 'leak 5', 'leak 6', 'holds'],
      ['holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds', 'holds'],
    ]);
    const garbage = VARIANTS.map((v) => cells.filter((c) => c.variant === v).map((c) => (c.integrity === 'garbage' ? c.integrityTraceLength : 0)));
    expect(garbage).toEqual([
      [4, 7, 10, 8, 8, 0, 10, 4, 7, 11, 10, 7, 4, 4, 5, 6, 5, 6, 4],
      [0, 7, 10, 8, 8, 0, 10, 4, 7, 11, 10, 7, 4, 4, 5, 6, 5, 6, 4],
      [0, 0, 0, 0, 8, 0, 12, 0, 7, 11, 0, 9, 6, 4, 5, 6, 5, 6, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ]);
  });

  it('pins every cell: whole space, depth, and the other invariants broken', () => {
    const lines = cells.map((c) => {
      const broken = [...c.brokenInvariants, ...(c.isolation === 'leak' ? ['Isolation'] : []), ...(c.integrity === 'garbage' ? ['Integrity'] : [])];
      return { c, broken };
    });
    const rows = EXPECTED.trim().split('\n').map((l) => l.trim().split(/\s+/));
    expect(cells.map((c) => [c.variant, c.fault, c.distinctStates, c.depth])).toEqual(rows.map((r) => [r[0], r[1], Number(r[2]), Number(r[3])]));
    expect(lines.map(({ broken }) => [...broken].sort())).toEqual(rows.map((r) => r.slice(4).map((x) => x.split('@')[0]).sort()));
    // Under the owner check a stale free still breaks the bookkeeping: the bug is there, the leak is not.
    expect(cells.find((c) => c.variant === 'owner-check' && c.fault === 'stale-free')?.brokenInvariants).toEqual(['ExclusiveHold', 'Conservation', 'NoUseAfterFree', 'ReadsOwnPages']);
  });

  it('has no vacuous cell: every applicable witness is reached, and each fault has a witness that applies', () => {
    for (const c of cells) {
      expect(c.witnesses.filter((w) => w.applies && (!w.reached || w.trivial)).map((w) => w.name), `${c.variant} × ${c.fault}`).toEqual([]);
    }
    const own = { 'auto-truncate': 'PromptTruncated', 'early-free': 'LateWriteLands', 'stale-free': 'DoubleRelease', 'prefix-poison': 'PoisonedInsert', 'double-free': 'HandedOutTwice', 'lock-underflow': 'EvictedWhileRead', 'segment-overlap': 'SegmentOverlap', 'offload-after-free': 'CopyInFlight', 'resume-stale': 'Resumed', 'source-early-free': 'SourceFreed', 'premature-success': 'EarlyCommit', 'aux-torn': 'RoomBeforePayload', 'host-evict-during-load': 'HostReusedUnderLoad', 'read-before-load': 'ReadBeforeLoad', 'draft-stale': 'DraftPrefixHit', 'state-slot-reuse': 'StateSlotReused', 'metadata-collision': 'MetadataShared' } as const;
    // Under hardened a double free frees nothing held (release-checks-holder): no page goes out twice; and D commits no request early (commit-counts-landed), nor over a room that landed first (room-lands-last), nor frees a state slot at the commit (slot-freed-with-request) or hands out a held row (metadata-alloc-checks-holder).
    const STOPPED = ['double-free', 'premature-success', 'aux-torn', 'host-evict-during-load', 'read-before-load', 'state-slot-reuse', 'metadata-collision'];
    const stopped = (c: (typeof cells)[number]): boolean => c.variant === 'hardened' && STOPPED.includes(c.fault);
    for (const [fault, witness] of Object.entries(own)) {
      for (const c of cells.filter((x) => x.fault === fault && !stopped(x))) expect(c.witnesses.find((w) => w.name === witness)).toEqual({ name: witness, applies: true, reached: true, trivial: false });
    }
    for (const c of cells.filter(stopped)) {
      const name = own[c.fault as keyof typeof own] ?? 'HandedOutTwice';
      expect(c.witnesses.find((w) => w.name === name)).toEqual({ name, applies: false, reached: false, trivial: false });
    }
    // Torn writes have a tag part to tear only under an owner check.
    for (const c of cells.filter((x) => x.fault === 'torn-write' && (x.variant === 'owner-check' || x.variant === 'hardened'))) {
      expect(c.witnesses.find((w) => w.name === 'TornPage')).toEqual({ name: 'TornPage', applies: true, reached: true, trivial: false });
    }
    // Double-free and segment-overlap alone give the owner check nothing to stop on this configuration (see above); offload-after-free and source-early-free get past it (the load, and the tag part, stamp the owner's tag on another's data), and aux-torn's payload is read at the commit, before any tag check.
    // host-evict-during-load gets past it too (D tags a loaded page with what it asked to load); draft-stale's stale draft sits under the target's tag, which is the reader's own; state-slot-reuse and metadata-collision act on slots and rows, which the owner check's page tags do not cover.
    const unseen = ['double-free', 'lock-underflow', 'segment-overlap', 'offload-after-free', 'source-early-free', 'aux-torn', 'host-evict-during-load', 'draft-stale', 'state-slot-reuse', 'metadata-collision'];
    for (const c of cells.filter((x) => x.variant === 'owner-check' && !unseen.includes(x.fault))) expect(c.witnesses.find((w) => w.name === 'FailsLoudly')?.reached, c.fault).toBe(true);
  });

  it('runs the state-slot columns on 4 pages, where two requests are in flight together, and every other column on the base\'s 3', () => {
    const own = cells.filter((c) => c.pages !== 3).map((c) => `${c.variant} ${c.fault} ${c.pages}`);
    expect(own).toEqual(VARIANTS.flatMap((v) => [`${v} state-slot-reuse 4`, `${v} metadata-collision 4`]));
    expect([columnPages(matrixConfig('buggy'), 'state-slot-reuse'), columnPages(matrixConfig('buggy'), 'early-free')]).toEqual([4, 3]);
    // Where no page count lets the fault fire (no prefix: draft-stale has no hit to skip), the column keeps the base's pages.
    expect(columnPages({ pages: 3, prefillLimit: 2, requests: [{ name: 'A', length: 2 }, { name: 'B', length: 2 }] }, 'draft-stale')).toBe(3);
  });

  it('narrows to the rows and columns asked for', () => {
    const one = runMatrix(undefined, { variants: ['owner-check'], faults: ['early-free'] });
    expect(one.cells.map((c) => [c.variant, c.fault, c.isolation, c.distinctStates])).toEqual([['owner-check', 'early-free', 'holds', 393]]);
  });

  it('the minimal incident under full exploration: buggy 21 states, length-fix 16, owner-check 21, hardened 21', () => {
    const figures = VARIANTS.map((v) => {
      const r = check(checkedModel(compile(incidentConfig(v))), { continueAfterViolation: true });
      return [v, r.distinctStates, r.depth, r.violations.map((x) => `${x.invariant}@${x.depth}`).join(' ')];
    });
    expect(figures).toEqual([
      ['buggy', 21, 10, 'Isolation@9'],
      ['length-fix', 16, 8, ''],
      ['owner-check', 21, 10, ''],
      ['hardened', 21, 10, ''],
    ]);
  });
});
