/**
 * What each property (`properties.ts`) reads, over the variables of the layout table:
 * with the actions' footprints (`footprint.ts`) it says which actions can change a
 * property's value, the visibility that partial-order reduction must respect
 * (`binding/por.ts`, docs/POR.md). test/spec/footprint.test.ts holds every entry to the
 * predicate: on random reachable transitions that change nothing a property declares it
 * reads, its value does not change, and a monotone invariant never becomes true again.
 *
 * A property reads every element of the variables it names (every page, every
 * request), the phase only through the sets of phases it tells apart, the flags only
 * through the bits it names, and a request's page table only while the request is live:
 * the reset of a dead table (`liveness.ts`) changes no property.
 */
import type { VariableName } from './layout.ts';
import { OVERLAPPED } from './release.ts';
import { EVICTED_FOR, HIT, INSERTED, isLive, Ph, PHASES, READ_UNHELD, RESUMED, type Phase } from './state.ts';

/** What a property reads. */
export interface PropertyReads {
  /** The variables it reads, phase and flags aside. */
  readonly vars: readonly Exclude<VariableName, 'phase' | 'flags'>[];
  /** The sets of phases it tells apart; the phases in none of them are one more set. */
  readonly phases: readonly (readonly Phase[])[];
  /** The flag bits it reads. */
  readonly flags: number;
  /** An invariant that, once false, stays false in every later state: no action can make it hold again. */
  readonly monotone?: boolean;
}

/** The phases in which a request holds its page table (`isLive`). */
export const LIVE_PHASES: readonly Phase[] = PHASES.filter((p) => isLive(Ph[p]));

const SHARED = HIT | INSERTED;
const FREE_LIST = ['free', 'release', 'list', 'holder'] as const;
const reads = (vars: PropertyReads['vars'], phases: PropertyReads['phases'] = [], flags = 0): PropertyReads => ({ vars, phases, flags });
const phase = (...set: Phase[]): PropertyReads => reads([], [set]);

/** Every property's reads, by name: the one place a property declares what it reads. */
export const PROPERTY_READS: Readonly<Record<string, PropertyReads>> = {
  // The read records keep the worst read per position for good (`reads.ts`), and READ_UNHELD is never cleared.
  Isolation: { ...reads(['reads']), monotone: true },
  Integrity: { ...reads(['reads']), monotone: true },
  ReadsOwnPages: { ...reads([], [], READ_UNHELD), monotone: true },
  ExclusiveHold: reads(['table', 'holder', 'depth'], [LIVE_PHASES], SHARED),
  Conservation: reads(['table', 'depth', ...FREE_LIST], [LIVE_PHASES], SHARED),
  NoDuplicateFree: reads(FREE_LIST),
  NoUseAfterFree: reads(['table', ...FREE_LIST], [LIVE_PHASES]),
  DecodeSucceeds: phase('decoded'),
  PageReused: reads(['holder', 'data']),
  OverLongStubbed: phase('written'),
  OverLongRefused: phase('refused'),
  PromptTruncated: phase('written'),
  FailsLoudly: phase('failed'),
  LateWriteLands: phase('landed'),
  DoubleRelease: phase('released'),
  HandedOutTwice: reads(['table'], [LIVE_PHASES], SHARED),
  SegmentOverlap: reads([], [], OVERLAPPED),
  PrefixHit: reads([], [], HIT),
  PoisonedInsert: reads(['holder', 'data']),
  AllServed: phase('freed'),
  CacheEvicts: reads([], [], EVICTED_FOR),
  EvictedWhileRead: reads(['table', 'holder', 'depth'], [LIVE_PHASES], SHARED),
  TornPage: reads(['dataParts', 'tagParts'], [['writing']]),
  BetweenSteps: phase('decoding'),
  TableGrew: reads(['table'], [LIVE_PHASES]),
  LockNegative: reads(['nodeLock']),
  Retracted: phase('retracted', 'offloading'),
  Resumed: reads([], [LIVE_PHASES], RESUMED),
  CopyInFlight: phase('offloading'),
  SourceFreed: reads(['sourceFreed']),
  // The parts in flight against the write's count, which skips the shared prefix pages of a hit.
  EarlyCommit: reads(['dataParts', 'tagParts'], [['handedOff', 'decoding', 'decoded', 'failed']], HIT),
  RoomBeforePayload: reads(['auxRoom', 'auxPayload']),
  DraftLanded: reads(['draft']),
  // A committed request's shared pages: its flags, or under `radix` its depth.
  DraftPrefixHit: reads(['depth'], [['handedOff', 'decoding', 'decoded', 'failed']], SHARED),
  StateSlotReused: reads(['stateIdx', 'stateHolder'], [['handedOff', 'decoding']]),
  MetadataShared: reads(['metaIdx']),
  LoadedBack: reads(['load']),
  HostEvicted: reads(['hostCopy']),
  HostReusedUnderLoad: reads(['load', 'hostCopy']),
  ReadBeforeLoad: reads(['load'], [['decoding', 'decoded', 'failed']]),
};

/** The reads of the property named `name`, or `undefined` when it declares none (every action is then visible to it). */
export function propertyReads(name: string): PropertyReads | undefined {
  return PROPERTY_READS[name];
}
