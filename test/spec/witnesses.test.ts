/**
 * Each non-vacuity witness held to its meaning, not only to being reached: along a short
 * run that ends in the event it names, the witness is false in every state before the
 * last action (among them the near misses: a request written but not over-long, an entry
 * inserted but not yet hit, a page freed with its data but not yet reused) and true after
 * it. A witness made true too early, or by the wrong event, fails here. (The checker's
 * tests reach every witness; this says what each one is.)
 */
import { describe, expect, it } from 'vitest';
import { WITNESSES, type Config, type Fault, type Property, type Variant } from '../../spec/index.ts';
import { runLabels } from './helpers.ts';

/** A configuration of requests `LEN` or `LEN:PREFIX`, named A, B, ... */
const config = (variant: Variant, faults: readonly Fault[], pages: number, prefillLimit: number, requests: readonly string[], extra: Partial<Config> = {}): Config => ({
  pages,
  prefillLimit,
  variant,
  faults,
  requests: requests.map((r, i) => {
    const [length, prefix] = r.split(':');
    return { name: String.fromCharCode(65 + i), length: Number(length), ...(prefix === undefined ? {} : { prefix }) };
  }),
  ...extra,
});

/** A witness, the run that ends where it becomes true, and (optionally) runs along which it must stay false. */
interface Meaning {
  readonly config: Config;
  readonly labels: readonly string[];
  readonly never?: ReadonlyArray<{ readonly config: Config; readonly labels: readonly string[] }>;
  /** Actions after the event that make it false again. */
  readonly past?: readonly string[];
}

const SERVE = (r: string): string[] => [`allocate(${r})`, `prefill(${r})`, `handoff(${r})`, `decode(${r})`];
const CACHED = [...SERVE('A'), 'insert(A)', 'free(A)'];

const MEANINGS: Readonly<Record<string, Meaning>> = {
  DecodeSucceeds: {
    config: config('buggy', [], 2, 2, ['2']),
    labels: SERVE('A'),
    // A request refused, then released, and one failed loudly by the owner check: phases past `decoded`, none of them a decode that succeeded
    never: [
      { config: config('length-fix', [], 2, 1, ['2']), labels: ['allocate(A)', 'stub(A)', 'free(A)'] },
      { config: config('owner-check', ['silent-stub'], 2, 1, ['2']), labels: ['allocate(A)', 'stub(A)', 'handoff(A)', 'decode(A)'] },
    ],
  },
  PageReused: {
    config: config('buggy', [], 2, 2, ['2', '2']),
    labels: [...SERVE('A'), 'free(A)', 'allocate(B)'],
    // B on pages A was refused before writing: a page reused, but no data in it
    never: [{ config: config('length-fix', [], 2, 1, ['2', '2']), labels: ['allocate(A)', 'stub(A)', 'free(A)', 'allocate(B)'] }],
  },
  OverLongStubbed: {
    config: config('buggy', ['silent-stub'], 3, 1, ['1', '2']),
    labels: ['allocate(A)', 'prefill(A)', 'allocate(B)', 'stub(B)'],
    // the over-long request timed out before P stubbed it: past `written` in the phase order, never stubbed
    never: [{ config: config('buggy', ['silent-stub', 'early-free'], 3, 1, ['1', '2']), labels: ['allocate(B)', 'timeout(B)'] }],
  },
  OverLongRefused: {
    config: config('length-fix', [], 3, 1, ['1', '2']),
    labels: ['allocate(A)', 'prefill(A)', 'allocate(B)', 'stub(B)'],
    // a request served and freed: later phases than `refused`, none a refusal
    never: [{ config: config('length-fix', [], 3, 1, ['1', '2']), labels: [...SERVE('A'), 'free(A)'] }],
  },
  PromptTruncated: {
    config: config('buggy', ['auto-truncate'], 3, 1, ['1', '2']),
    labels: ['allocate(A)', 'prefill(A)', 'allocate(B)', 'prefill(B)'],
    // the over-long request timed out before P wrote it: never truncated
    never: [{ config: config('buggy', ['auto-truncate', 'early-free'], 3, 1, ['1', '2']), labels: ['allocate(B)', 'timeout(B)'] }],
  },
  FailsLoudly: { config: config('owner-check', ['silent-stub'], 3, 2, ['2', '3']), labels: [...SERVE('A'), 'free(A)', 'allocate(B)', 'stub(B)', 'handoff(B)', 'decode(B)'] },
  LateWriteLands: {
    config: config('buggy', ['early-free'], 2, 2, ['2']),
    labels: ['allocate(A)', 'timeout(A)', 'prefill(A)'],
    // a request served and released twice: a later phase than `landed`, and no late write
    never: [{ config: config('buggy', ['early-free', 'stale-free'], 2, 2, ['2']), labels: [...SERVE('A'), 'free(A)', 'free(A)'] }],
  },
  DoubleRelease: {
    config: config('buggy', ['stale-free'], 2, 2, ['2']),
    labels: [...SERVE('A'), 'free(A)', 'free(A)'],
    // a request between two decode steps: a later phase than `released`, never released
    never: [{ config: config('buggy', ['stale-free'], 2, 2, ['2'], { decodeSteps: 2 }), labels: SERVE('A') }],
  },
  HandedOutTwice: {
    config: config('buggy', ['double-free'], 4, 4, ['2', '1', '1']),
    labels: [...SERVE('A'), 'free(A)', 'free(A)', 'allocate(B)', 'allocate(C)'],
    // two live requests on different pages; a timed-out request's table (kept for its late write) and the live one that reuses its pages
    never: [
      { config: config('buggy', ['double-free'], 4, 4, ['2', '1', '1']), labels: ['allocate(A)', 'allocate(B)', 'allocate(C)'] },
      { config: config('buggy', ['early-free', 'double-free'], 2, 2, ['2', '2']), labels: ['allocate(A)', 'timeout(A)', 'allocate(B)'] },
    ],
  },
  SegmentOverlap: {
    config: config('length-fix', ['segment-overlap'], 3, 2, ['3:sys']),
    labels: ['allocate(A)', 'stub(A)', 'free(A)'],
    // a request without a prefix (one call, nothing to share); a prefix the request inserted, then one that hit it (no own page at the prefix's position)
    never: [
      { config: config('length-fix', ['segment-overlap'], 4, 2, ['2', '2:sys']), labels: [...SERVE('A'), 'free(A)'] },
      { config: config('length-fix', ['segment-overlap'], 3, 2, ['2:sys', '2:sys']), labels: [...CACHED, ...SERVE('B'), 'free(B)'] },
    ],
  },
  PrefixHit: { config: config('buggy', [], 3, 2, ['2:sys', '2:sys']), labels: [...SERVE('A'), 'insert(A)', 'allocate(B)'] },
  PoisonedInsert: {
    config: config('length-fix', ['prefix-poison'], 3, 1, ['2:sys']),
    labels: ['allocate(A)', 'stub(A)', 'insert(A)'],
    // an honest insert: the cache holds the prefix's own data
    never: [{ config: config('length-fix', ['prefix-poison'], 3, 2, ['2:sys']), labels: [...SERVE('A'), 'insert(A)', 'free(A)'] }],
  },
  AllServed: { config: config('buggy', [], 3, 2, ['2:sys', '1'], { eviction: true }), labels: [...SERVE('A'), ...SERVE('B'), 'free(A)', 'free(B)'] },
  CacheEvicts: { config: config('buggy', [], 2, 2, ['2:sys', '2'], { eviction: true }), labels: [...CACHED, 'evict(B)'] },
  EvictedWhileRead: {
    config: config('buggy', ['lock-underflow'], 3, 3, ['2:sys', '2', '2:sys'], { eviction: true }),
    labels: [...CACHED, 'allocate(C)', 'prefill(C)', 'evict(B)'],
    // without a hit, an eviction takes a page nobody reads; or one that its inserter reads, live (C's release took the lock A's insert held)
    never: [
      { config: config('buggy', ['lock-underflow'], 3, 3, ['2:sys', '3'], { eviction: true }), labels: [...CACHED, 'evict(B)'] },
      { config: config('buggy', ['lock-underflow'], 3, 3, ['2:sys', '2', '2:sys'], { eviction: true }), labels: [...SERVE('A'), 'insert(A)', ...SERVE('C'), 'free(C)', 'evict(B)'] },
    ],
  },
  TornPage: { config: config('owner-check', ['torn-write'], 2, 2, ['2']), labels: ['allocate(A)', 'prefill(A)', 'landData(A)'] },
  // the last step leaves it decoded: no longer between two
  BetweenSteps: {
    config: config('buggy', [], 2, 2, ['2'], { decodeSteps: 2 }),
    labels: [...SERVE('A')],
    past: ['decode(A)'],
    // retracted at its handoff, before any step: a later phase than `decoding`, never between two steps
    never: [{ config: config('buggy', [], 2, 2, ['2'], { decodeSteps: 2, retraction: true }), labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)'] }],
  },
  // the grown page dies with the table at the release; a request whose token still fits its table never grows (B: 2 tokens in pages of 4)
  TableGrew: {
    config: config('buggy', [], 3, 2, ['2'], { decodeSteps: 2, tableGrowth: true }),
    labels: [...SERVE('A'), 'grow(A)'],
    past: ['decode(A)', 'free(A)'],
    never: [{ config: config('buggy', [], 3, 4, ['4', '2'], { decodeSteps: 2, tableGrowth: true, pageSize: 4 }), labels: [...SERVE('B'), 'decode(B)'] }],
  },
  // under the radix tree A's handoff inserts and locks the sys node (1), and its release unlocks it twice (-1); hardened's unlock-once walks the second from the root
  LockNegative: {
    config: config('buggy', ['lock-underflow'], 2, 3, ['2:sys'], { eviction: true, radix: true }),
    labels: [...SERVE('A'), 'free(A)'],
    never: [
      { config: config('hardened', ['lock-underflow'], 2, 3, ['2:sys'], { eviction: true, radix: true }), labels: [...SERVE('A'), 'free(A)'] },
      { config: config('buggy', [], 2, 3, ['2:sys'], { eviction: true, radix: true }), labels: [...SERVE('A'), 'free(A)'] },
    ],
  },
  // handed off, then retracted; resumed, it holds again and is no longer retracted
  Retracted: { config: config('buggy', [], 3, 2, ['2'], { retraction: true }), labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)'], past: ['resume(A)'] },
  // a first hold is not a resumed one; released after its decode, it holds nothing
  Resumed: {
    config: config('buggy', [], 3, 2, ['2'], { retraction: true }),
    labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)', 'resume(A)'],
    past: ['decode(A)', 'free(A)'],
    never: [{ config: config('buggy', [], 3, 2, ['2', '1'], { retraction: true }), labels: [...SERVE('A'), 'free(A)', 'allocate(B)'] }],
  },
  // the copy reads the released pages: the request is retracted, its copy no longer in flight
  CopyInFlight: {
    config: config('buggy', ['offload-after-free'], 3, 2, ['2'], { retraction: true }),
    labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'retract(A)'],
    past: ['offload(A)'],
  },
  // P's abort frees the source pages of A's write in flight; once its last content part has landed, the transfer reads them no more
  SourceFreed: {
    config: config('owner-check', ['torn-write', 'source-early-free'], 2, 2, ['2'], { sourcePages: true }),
    labels: ['allocate(A)', 'prefill(A)', 'landData(A)', 'abortSource(A)'],
    past: ['landData(A)'],
  },
  // committed with its content part in flight; once it lands, nothing is in flight; a commit after the last part is not early
  EarlyCommit: {
    config: config('buggy', ['torn-write', 'premature-success'], 2, 2, ['1']),
    labels: ['allocate(A)', 'prefill(A)', 'handoff(A)'],
    past: ['landData(A)'],
    never: [{ config: config('buggy', ['torn-write', 'premature-success'], 2, 2, ['1']), labels: ['allocate(A)', 'prefill(A)', 'landData(A)', 'handoff(A)', 'decode(A)'] }],
  },
  // the room lands before the payload; once the payload lands it vouches for it; a payload first never shows it
  RoomBeforePayload: {
    config: config('buggy', ['aux-torn'], 2, 2, ['1']),
    labels: ['allocate(A)', 'prefill(A)', 'landRoom(A)'],
    past: ['landPayload(A)'],
    never: [{ config: config('buggy', ['aux-torn'], 2, 2, ['1']), labels: ['allocate(A)', 'prefill(A)', 'landPayload(A)', 'landRoom(A)', 'handoff(A)'] }],
  },
  // the draft part of A's write lands; before it no page holds a draft model's KV
  DraftLanded: {
    config: config('buggy', [], 2, 2, ['1'], { draft: true }),
    labels: ['allocate(A)', 'prefill(A)', 'landDraft(A)'],
  },
  // D commits A, whose prefix position P wrote (a hit in P's cache, whose draft hardened fills)
  DraftPrefixHit: {
    config: config('hardened', ['draft-stale'], 3, 3, ['2:sys'], { draft: true }),
    labels: ['allocate(A)', 'prefill(A)', 'landDraft(A)', 'handoff(A)'],
  },
  // A's commit frees its state slot and B's allocation takes it while A still decodes; once A has decoded, no more; B allocated after A decoded reuses nothing A reads
  StateSlotReused: {
    config: config('buggy', ['state-slot-reuse'], 2, 2, ['1', '1'], { stateSlots: true }),
    labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)'],
    past: ['decode(A)'],
    never: [{ config: config('buggy', ['state-slot-reuse'], 2, 2, ['1', '1'], { stateSlots: true }), labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)'] }],
  },
  // B is handed A's metadata row; A's commit gives it up; B allocated after A's commit shares nothing
  MetadataShared: {
    config: config('buggy', ['metadata-collision'], 2, 2, ['1', '1'], { stateSlots: true }),
    labels: ['allocate(A)', 'allocate(B)'],
    past: ['prefill(A)', 'handoff(A)'],
    never: [{ config: config('buggy', ['metadata-collision'], 2, 2, ['1', '1'], { stateSlots: true }), labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'allocate(B)', 'prefill(B)', 'handoff(B)'] }],
  },
  // the load from host memory lands; a request with no prefix, or whose prefix is on D, loads nothing
  LoadedBack: {
    config: config('buggy', [], 2, 2, ['1', '2:sys'], { loadback: true }),
    labels: ['allocate(B)', 'prefill(B)', 'loadBack(B)'],
    never: [{ config: config('buggy', [], 2, 2, ['1', '2:sys'], { loadback: true }), labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)'] }],
  },
  // a host copy is evicted; a run with no eviction never
  HostEvicted: {
    config: config('buggy', [], 2, 2, ['2:sys'], { loadback: true }),
    labels: ['evictHost(A)'],
    never: [{ config: config('buggy', [], 2, 2, ['2:sys'], { loadback: true }), labels: ['allocate(A)', 'loadBack(A)', 'prefill(A)', 'handoff(A)', 'decode(A)'] }],
  },
  // the host copy is reused under a load still reading it; once the load lands, it no longer reads it
  HostReusedUnderLoad: {
    config: config('buggy', ['host-evict-during-load'], 2, 2, ['2:sys'], { loadback: true }),
    labels: ['allocate(A)', 'prefill(A)', 'evictHost(A)'],
    past: ['loadBack(A)'],
    never: [{ config: config('buggy', ['host-evict-during-load'], 2, 2, ['2:sys'], { loadback: true }), labels: ['allocate(A)', 'loadBack(A)', 'prefill(A)', 'handoff(A)', 'decode(A)'] }],
  },
  // decode before the load lands; after the load, a decode is not early
  ReadBeforeLoad: {
    config: config('buggy', ['read-before-load'], 2, 2, ['2:sys'], { loadback: true }),
    labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'decode(A)'],
    past: ['loadBack(A)'],
    never: [{ config: config('buggy', ['read-before-load'], 2, 2, ['2:sys'], { loadback: true }), labels: ['allocate(A)', 'prefill(A)', 'handoff(A)', 'loadBack(A)', 'decode(A)'] }],
  },
};

/** The witness's value in each state of the run: state 0, then after each action. */
function along(w: Property, c: Config, labels: readonly string[]): boolean[] {
  const { m, trace } = runLabels(c, labels);
  expect(w.appliesTo(m), `${w.name} applies to the run's configuration`).toBe(true);
  return [trace.initial, ...trace.steps.map((s) => s.state)].map((s) => w.holds(m, s));
}

describe('each witness means what it says', () => {
  it('every witness has a meaning here', () => {
    expect(Object.keys(MEANINGS).sort()).toEqual(WITNESSES.map((w) => w.name).sort());
  });

  it.each(WITNESSES.map((w) => [w.name, w] as const))('%s: false before the event it names, true after', (name, w) => {
    const meaning = MEANINGS[name];
    if (meaning === undefined) throw new Error(`no meaning for ${name}`);
    const values = along(w, meaning.config, meaning.labels);
    expect(values).toEqual([...values.slice(0, -1).map(() => false), true]);
    for (const near of meaning.never ?? []) expect(along(w, near.config, near.labels)).toEqual(near.labels.map(() => false).concat([false]));
    if (meaning.past !== undefined) expect(along(w, meaning.config, [...meaning.labels, ...meaning.past]).at(-1)).toBe(false);
  });
});
