/**
 * The fast family's actions, each written once, as data: its guard (the phases it is
 * enabled in, and a condition on the request), then its changes, each a write of one
 * state field at one offset to one value, under an optional condition. The readable
 * transitions are `spec/transitions.ts`'s; this is what they do under the family of
 * `family.ts` (whole pages, the `sorted` allocator, no prefixes, no eviction, the owner
 * check on or off, `hardened`'s `revoke-writer` and `release-checks-holder` on or off, one
 * decode step, at most faults `silent-stub`, `early-free`, `stale-free` and `torn-write`,
 * one-byte widths), with what the family switches off left out.
 *
 * `fast-emit.ts` derives three forms from this description, as TypeScript committed beside
 * it (`fast-successors.ts`, `fast-fingerprints.ts`, `fast-apply.ts`; a test fails when they
 * are stale, and `npm run generate` writes them): each successor written into a copy of
 * the state, each successor's Zobrist fingerprint as a delta of its parent's (every write's
 * old value out, new value in), and each action applied to a given copy. Whether an action
 * is quiet (its successor's conjoined invariants are its parent's, `checker/model.ts`) is
 * derived too: from the fields it writes against those the conjunction reads
 * (`CONJUNCTION_READS`), and from its phase change against liveness. A phase entered that
 * finishes the request (`freed`, `landed`, `released`) kills its table as `liveness.ts`'s
 * `enter` does: the emitter writes that, not the description.
 *
 * Values and conditions are TypeScript expressions over the locals the emitter provides:
 * the state `s`, the request `r`, its `phase`, the family's offsets (`phaseAt`,
 * `holderAt`, `dataAt`, `dataPosAt`, `tagAt`, `flagsAt`, `stepsAt`, `observedAt`,
 * `dataPartsAt`, `tagPartsAt`, `w` the read set's bytes), whether decode checks owner tags
 * (`ownerCheck`), its tables (`len`, `tableAt`, `readAt`, `overLong`, `sev`, `sevAt`,
 * `free`), its switches (`f.silentStub`, `f.earlyFree`, `f.tornWrite`, `f.staleFree`,
 * `f.revokeWriter`, `f.checksHolder`), the request's `l` (its length), `at` (its table's
 * offset), `rec0` (its read records' offset), `o` (its read set's offset), `sev0` (its
 * severities' offset), and the loop indices below.
 */
import type { Phase } from '../spec/state.ts';

/** A state field the family writes; where its byte is follows from its scope (`FIELDS`). */
export type Field = 'holder' | 'data' | 'dataPos' | 'tag' | 'table' | 'readRecord' | 'flags' | 'steps' | 'observed' | 'dataParts' | 'tagParts';

/** A field's scope: per page (indexed by a page id), per table position of the request, per request, or per byte of the request's read set. */
export type Scope = 'page' | 'position' | 'request' | 'observedByte';

/** Each field's scope and its offset expression, given the index expression (a page id, a position, or a read-set byte). */
export const FIELDS: Readonly<Record<Field, { readonly scope: Scope; readonly offset: (index: string) => string }>> = {
  holder: { scope: 'page', offset: (p) => `holderAt + ${p}` },
  data: { scope: 'page', offset: (p) => `dataAt + ${p}` },
  dataPos: { scope: 'page', offset: (p) => `dataPosAt + ${p}` },
  // Absent (no bytes) without the owner check: every write of it is under `ownerCheck`.
  tag: { scope: 'page', offset: (p) => `tagAt + ${p}` },
  table: { scope: 'position', offset: (i) => `at + ${i}` },
  readRecord: { scope: 'position', offset: (i) => `rec0 + ${i}` },
  flags: { scope: 'request', offset: () => 'flagsAt + r' },
  steps: { scope: 'request', offset: () => 'stepsAt + r' },
  observed: { scope: 'observedByte', offset: (k) => `o + ${k}` },
  // Absent without `torn-write` (and `tagParts` without the owner check too): written only by actions that exist with them.
  dataParts: { scope: 'request', offset: () => 'dataPartsAt + r' },
  tagParts: { scope: 'request', offset: () => 'tagPartsAt + r' },
};

/** One step of an action's effect. */
export type Effect =
  /** Writes `field` at index `at` (default: `p` for a page, `i` for a position, `k` for a read-set byte) to `to`, when `when` holds. */
  | { readonly set: Field; readonly at?: string; readonly to: string; readonly when?: string }
  /** The request's phase becomes `phase` (through `liveness.ts`'s `enter` in the spec; nothing dies with it in the family but what `free` clears). */
  | { readonly phase: Phase }
  /** A local the later steps read (`const`), or one they update (`let`). */
  | { readonly let: string; readonly be: string; readonly mutable?: boolean }
  /** An update of a local (never of the state: the state changes only through `set` and `phase`). */
  | { readonly update: string }
  /**
   * The steps for every table position `i` (with `p` its page, skipped when the slot is
   * empty if `skipEmpty`), for each of the first `l` free pages (`k` the position, `p` the
   * page: distinct pages), or for every byte `k` of the read set.
   */
  | { readonly each: 'position' | 'freePage' | 'observedByte'; readonly skipEmpty?: boolean; readonly steps: readonly Effect[] }
  /** Steps under a condition. */
  | { readonly if: string; readonly then: readonly Effect[]; readonly else?: readonly Effect[] }
  /** In an action with a late form: `then` when the request is late (`lateFrom`) and `ifLate` holds, else `else` (on time, only `else` can happen). */
  | { readonly ifLate: string; readonly then: readonly Effect[]; readonly else: readonly Effect[] };

/** One action of the family: its name (the protocol's), guard and changes. */
export interface FastAction {
  /** The action kind, as `spec/actions.ts` names it (the spec's transition of that name takes the cases the description leaves out). */
  readonly kind: 'allocate' | 'prefill' | 'stub' | 'handoff' | 'decode' | 'free' | 'timeout' | 'landData' | 'landTag';
  /** What it does, in a sentence (the emitted code's comment). */
  readonly prose: string;
  /** The phases the request must be in. */
  readonly phases: readonly Phase[];
  /**
   * The action's late form: from phase {@link lateFrom} (default `timedOut`: P's write for
   * a request D has timed out, fault `early-free`) it is still enabled, and does the same,
   * by page id, except that each phase the effects enter becomes this map's.
   */
  readonly late?: Readonly<Partial<Record<Phase, Phase>>>;
  /** The phase of the late form (default `timedOut`); `landing` for a part landing after D released the request. */
  readonly lateFrom?: Phase;
  /** Whether the guard reads the free pages (found once per state, ascending: `family.ts`'s `scanFree`). */
  readonly readsFree?: boolean;
  /** A guard on the model alone (a fault's switch): the emitted code skips the action's loop over requests when it fails. */
  readonly model?: string;
  /** The rest of the guard. */
  readonly when?: string;
  /** A case the description does not cover (never reached in the family's reachable states): the spec's transition takes it. */
  readonly bySpecWhen?: 'tableHasEmptySlot';
  /** The changes, in order; a later write to the same byte wins (a table that names a page twice). */
  readonly effects: readonly Effect[];
}

/** Decode's read of the whole table (decode-steps.ts, readTable), once the owner check, if any, has passed. */
const READ_TABLE: readonly Effect[] = [
  { let: 'observed', be: '0', mutable: true },
  { each: 'observedByte', steps: [{ update: 'observed |= s[o + k]! << (8 * k)' }] },
  { let: 'unheld', be: 'false', mutable: true },
  {
    each: 'position',
    steps: [
      { let: 'label', be: 's[dataAt + p]!' },
      { let: 'record', be: 'BYTE_READ | (label & BYTE_LABEL) | (label !== 0 && s[dataPosAt + p] !== i ? BYTE_MISPLACED : 0)' },
      { update: 'if ((label & BYTE_LABEL) !== 0) observed |= 1 << ((label & BYTE_LABEL) - 1)' },
      { let: 'old', be: 's[rec0 + i]!' },
      { let: 'row', be: 'sev0 + 256 * i' },
      // The worse of the old and new record is kept (reads.ts, keptRecord): here by the tabulated severities.
      { set: 'readRecord', to: 'record', when: '(old & BYTE_READ) === 0 || sev[row + record]! > sev[row + old]!' },
      { update: 'if (s[holderAt + p] !== r + 1) unheld = true' },
    ],
  },
  { each: 'observedByte', steps: [{ set: 'observed', to: '(observed >>> (8 * k)) & 0xff' }] },
  { set: 'flags', to: 's[flagsAt + r]! | READ_UNHELD', when: 'unheld' },
  { set: 'steps', to: 's[stepsAt + r]! + 1' },
  { phase: 'decoded' },
];

/** Under `torn-write`, P's write is only posted: no part has landed, and the request is `writing` (transfer.ts, postWrite). */
const POST_PARTS: readonly Effect[] = [{ set: 'dataParts', to: '0' }, { if: 'ownerCheck', then: [{ set: 'tagParts', to: '0' }] }, { phase: 'writing' }];

/** A release's free of one page (release.ts, releaseTable): under `release-checks-holder` only while the request still holds it. */
const RELEASE_PAGE: Effect = { set: 'holder', to: '0', when: '!f.checksHolder || s[holderAt + p] === r + 1' };

/** How many pages P's write covers (writes.ts, writeCount): the silent stub's one, else the whole table. */
const WRITE_COUNT = '(overLong[r] === 1 ? 1 : l)';

/** A part landing (transfer.ts, landData and landTag): page `k` of the write, `k` the parts of this stream already landed; the request is written (late: landed) once both streams have. */
function landPart(own: 'dataParts' | 'tagParts', other: 'dataParts' | 'tagParts', page: readonly Effect[]): Effect[] {
  const done = other === 'tagParts' ? `(!ownerCheck || s[tagPartsAt + r]! >= ${WRITE_COUNT})` : `s[dataPartsAt + r]! >= ${WRITE_COUNT}`;
  return [
    { let: 'k', be: `s[${own}At + r]!` },
    { let: 'p', be: 's[at + k]!' },
    { if: 'p !== 0xff', then: page },
    { set: own, to: 'k + 1' },
    { if: `k + 1 >= ${WRITE_COUNT} && ${done}`, then: [{ phase: 'written' }] },
  ];
}

/** The family's actions, in the spec's order (`ACTION_KINDS`): the emitted code numbers action `kind * n + r`, or, for a kind a model may lack (`model`), from the model's first action of that kind. */
export const FAST_ACTIONS: readonly FastAction[] = [
  {
    kind: 'allocate',
    prose: 'a new request takes the lowest free pages as its table, if there are enough (under the owner check, their tags cleared).',
    phases: ['new'],
    readsFree: true,
    when: 'f.freeCount >= l',
    effects: [
      {
        each: 'freePage',
        steps: [{ set: 'holder', to: 'r + 1' }, { set: 'table', at: 'k', to: 'p' }, { if: 'ownerCheck', then: [{ set: 'tag', to: '0' }] }],
      },
      { phase: 'allocated' },
    ],
  },
  {
    kind: 'prefill',
    prose: "P writes the request's own data into every page of its table, for its position (under the owner check, stamped with its label); under torn-write the write is only posted. A late write under revoke-writer lands nowhere.",
    phases: ['allocated'],
    late: { written: 'landed', writing: 'landing' },
    when: 'overLong[r] === 0',
    effects: [
      {
        ifLate: 'f.revokeWriter',
        then: [{ phase: 'landed' }],
        else: [
          {
            if: 'f.tornWrite',
            then: POST_PARTS,
            else: [
              {
                each: 'position',
                skipEmpty: true,
                steps: [{ set: 'data', to: 'r + 1' }, { set: 'dataPos', to: 'i' }, { if: 'ownerCheck', then: [{ set: 'tag', to: 'r + 1' }] }],
              },
              { phase: 'written' },
            ],
          },
        ],
      },
    ],
  },
  {
    kind: 'stub',
    prose: 'an over-long request is refused, or (silent stub) written as one dummy page at position 0 (under the owner check, stamped with its label; under torn-write, posted; late under revoke-writer, nowhere).',
    phases: ['allocated'],
    // A late refusal simply ends the request (transfer.ts, stub).
    late: { written: 'landed', writing: 'landing', refused: 'freed' },
    when: 'overLong[r] === 1',
    effects: [
      {
        if: '!f.silentStub',
        then: [{ phase: 'refused' }],
        else: [
          {
            ifLate: 'f.revokeWriter',
            then: [{ phase: 'landed' }],
            else: [
              {
                if: 'f.tornWrite',
                then: POST_PARTS,
                else: [{ let: 'p', be: 's[at]!' }, { if: 'p !== 0xff', then: [{ set: 'data', to: 'r + 1' }, { set: 'dataPos', to: '0' }, { if: 'ownerCheck', then: [{ set: 'tag', to: 'r + 1' }] }] }, { phase: 'written' }],
              },
            ],
          },
        ],
      },
    ],
  },
  {
    kind: 'handoff',
    prose: 'a written request goes to decode.',
    phases: ['written'],
    effects: [{ phase: 'handedOff' }],
  },
  {
    kind: 'decode',
    prose: 'one step reads every page of the table: read records (the worse kept), read set, unheld reads, steps, phase; under the owner check, a foreign tag fails it instead.',
    phases: ['handedOff'],
    bySpecWhen: 'tableHasEmptySlot',
    effects: [
      { let: 'foreign', be: 'false', mutable: true },
      // The owner check (decode-steps.ts, tagsPass): with no prefixes in the family, every tag must be the request's own label.
      { if: 'ownerCheck', then: [{ each: 'position', steps: [{ update: 'if (s[tagAt + p] !== r + 1) foreign = true' }] }] },
      // A foreign tag fails the request loudly, and nothing is read.
      { if: 'foreign', then: [{ phase: 'failed' }], else: READ_TABLE },
    ],
  },
  {
    kind: 'free',
    prose: "the table's pages are held by nobody (under release-checks-holder, those the request still holds); the request is freed, or under stale-free a finished one released again.",
    // With stale-free the guard lets a finished request's old table be released a second time (freeing.ts, free).
    phases: ['decoded', 'refused', 'failed', 'freed', 'landed'],
    when: 'f.staleFree || (phase !== Ph.freed && phase !== Ph.landed)',
    effects: [
      // No prefixes in the family, so no shared prefix pages to skip.
      { each: 'position', skipEmpty: true, steps: [RELEASE_PAGE] },
      { if: 'phase === Ph.freed || phase === Ph.landed', then: [{ phase: 'released' }], else: [{ phase: 'freed' }] },
    ],
  },
  {
    kind: 'timeout',
    prose: "(fault early-free) D gives up on the transfer and frees the table's pages while P's write is in flight; the request is timed out, its table kept for the late write (posted already: landing, or under revoke-writer landed).",
    phases: ['allocated', 'writing'],
    model: 'f.earlyFree',
    effects: [
      { each: 'position', skipEmpty: true, steps: [RELEASE_PAGE] },
      { if: 'phase === Ph.allocated', then: [{ phase: 'timedOut' }], else: [{ if: 'f.revokeWriter', then: [{ phase: 'landed' }], else: [{ phase: 'landing' }] }] },
    ],
  },
  {
    kind: 'landData',
    prose: "(fault torn-write) the content part of the write's next page lands, by page id, whoever holds the page now.",
    phases: ['writing'],
    late: { written: 'landed' },
    lateFrom: 'landing',
    model: 'f.tornWrite',
    when: `s[dataPartsAt + r]! < ${WRITE_COUNT}`,
    effects: landPart('dataParts', 'tagParts', [{ set: 'data', to: 'r + 1' }, { set: 'dataPos', to: 'k' }]),
  },
  {
    kind: 'landTag',
    prose: "(fault torn-write, owner check) the tag part of the write's next page lands, by page id, whoever holds the page now.",
    phases: ['writing'],
    late: { written: 'landed' },
    lateFrom: 'landing',
    model: 'f.tornWrite && f.ownerCheck',
    when: `s[tagPartsAt + r]! < ${WRITE_COUNT}`,
    effects: landPart('tagParts', 'dataParts', [{ set: 'tag', to: 'r + 1' }]),
  },
];
