/**
 * validate-log, rule by rule: for each invariant the validator checks and each reason a
 * state refuses an event (conformance/step.ts, conformance/validate.ts), a log of a few
 * lines that reaches that rule and no other, pinned to its verdict, its line and the words
 * that name the rule. The incident logs reach most rules too, but together: there a rule
 * skipped is hidden by another that fires at the same line.
 */
import { describe, expect, it } from 'vitest';
import { validate, EVENT_TABLE, type LogModel, type SourceLine, type ValidationResult } from '../../conformance/index.ts';
import { PageRuns } from '../../conformance/pages.ts';
import { LoggedPool, takeAction } from '../../conformance/pool.ts';
import { applyEvent, type EventContext, type Possible } from '../../conformance/step.ts';
import { finishedEverywhere } from '../../conformance/validate.ts';
import { RequestWindow } from '../../conformance/window.ts';

/** One event line. */
const ev = (kind: string, id: string, rest: Record<string, unknown> = {}): string => JSON.stringify({ kind, id, ...rest });
/** The config line. */
const config = (rest: Record<string, unknown>): string => JSON.stringify({ kind: 'config', ...rest });
/** A request served whole: arrive, allocate, done, handoff, decode, free. */
const served = (id: string, pages: readonly number[]): string[] => [
  ev('arrive', id, { length: pages.length }),
  ev('allocate', id, { pages }),
  ev('done', id),
  ev('handoff', id),
  ev('decode', id, { pages }),
  ev('free', id, { pages }),
];

interface Run {
  readonly overrides?: Partial<LogModel>;
  readonly integrity?: boolean;
  readonly maxStates?: number;
  readonly window?: number;
}

const run = (text: readonly string[], o: Run = {}): ValidationResult =>
  validate({
    files: [],
    lines: text.map((t, i): SourceLine => ({ file: 'rule.jsonl', line: i + 1, text: t })),
    overrides: o.overrides ?? {},
    window: o.window ?? 8,
    ...(o.integrity === undefined ? {} : { integrity: o.integrity }),
    ...(o.maxStates === undefined ? {} : { maxStates: o.maxStates }),
  });

/** The verdict in one line: what the test pins. */
const summary = (r: ValidationResult): string => [r.verdict, r.invariant ?? '-', r.at?.line ?? '-'].join(' ');
/** What the verdict says: the headline for a violation, each state's refusal for a deviation. */
const words = (r: ValidationResult): string[] => (r.verdict === 'deviation' && r.refusals.length > 0 ? r.refusals.map((x) => x.why) : [...r.headline]);

const C4 = config({ pages: 4, prefillLimit: 4 });
/** A arrives with 2 pages and is allocated pages 0 and 1. */
const A2 = [ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [0, 1] })];
/** A (of prefix sys) served on pages 0 and 1, its prefix page 0 inserted into the cache, then freed: page 0 stays cached. */
const CACHED = [
  ev('arrive', 'A', { length: 2, prefix: 'sys' }),
  ev('allocate', 'A', { pages: [0, 1] }),
  ev('done', 'A'),
  ev('handoff', 'A'),
  ev('decode', 'A', { pages: [0, 1] }),
  ev('insert', 'A', { pages: [0] }),
  ev('free', 'A', { pages: [1] }),
];
const EVICTION = config({ pages: 3, prefillLimit: 3, faults: ['lock-underflow'], eviction: true });
/** The early-free race: A times out, its late write may land in B's pages before or after B's own write. */
const EARLY_FREE = [
  config({ pages: 2, prefillLimit: 2, variant: 'buggy', faults: ['silent-stub', 'early-free'] }),
  ev('arrive', 'A', { length: 2 }),
  ev('allocate', 'A', { pages: [0, 1] }),
  ev('posted', 'A', { pages: [0, 1] }),
  ev('timeout', 'A'),
  ev('arrive', 'B', { length: 2 }),
  ev('allocate', 'B', { pages: [0, 1] }),
  ev('posted', 'B', { pages: [0, 1] }),
  ev('done', 'B'),
  ev('handoff', 'B'),
  ev('decode', 'B', { pages: [0, 1] }),
];
/** A times out on page 0; B (over-long, stubbed) gets pages 0 and 1: A's late write may land before B's stub, after it, or not yet. */
const TWO_VIOLATIONS = [
  config({ pages: 2, prefillLimit: 1, faults: ['silent-stub', 'early-free'] }),
  ev('arrive', 'A', { length: 1 }),
  ev('allocate', 'A', { pages: [0] }),
  ev('timeout', 'A'),
  ev('arrive', 'B', { length: 2 }),
  ev('allocate', 'B', { pages: [0, 1] }),
  ev('done', 'B'),
  ev('handoff', 'B'),
  ev('decode', 'B', { pages: [0, 1] }),
];

/** A rule: its log, how it is run, the verdict (`verdict invariant line`) and the words that name it. */
type Case = readonly [name: string, log: readonly string[], run: Run, verdict: string, words: readonly string[]];

const VIOLATIONS: readonly Case[] = [
  ['Isolation: a stub over pages A freed, read by B (the minimal incident)', [config({ pages: 3, prefillLimit: 2 }), ...served('A', [0, 1]), ev('arrive', 'B', { length: 3 }), ev('allocate', 'B', { pages: [0, 1, 2] }), ev('done', 'B'), ev('handoff', 'B'), ev('decode', 'B', { pages: [0, 1, 2] })], {}, 'violation Isolation 12', ["B read page 1, which holds A's data."]],
  ['Integrity (--integrity): a stub over pages nobody wrote', [config({ pages: 2, prefillLimit: 1 }), ev('arrive', 'B', { length: 2 }), ev('allocate', 'B', { pages: [0, 1] }), ev('done', 'B'), ev('handoff', 'B'), ev('decode', 'B', { pages: [0, 1] })], { integrity: true }, 'violation Integrity 6', ['B read page 1, never written during its hold: its answer is garbage (nothing leaked).']],
  ['ExclusiveHold at allocate: a page another request holds', [C4, ...A2, ev('arrive', 'B', { length: 2 }), ev('allocate', 'B', { pages: [1, 2] })], {}, 'violation ExclusiveHold 5', ['allocate(B) took page 1, which A still holds.']],
  ['ExclusiveHold at allocate (any): one page named twice', [C4, ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [3, 3] })], { overrides: { allocator: 'any' } }, 'violation ExclusiveHold 3', ['allocate(A) took page 3 twice: it is in the page table twice.']],
  ['ExclusiveHold at free (stale-free): a second release of pages B now holds', [config({ pages: 2, prefillLimit: 2, faults: ['stale-free'] }), ...served('A', [0, 1]), ev('arrive', 'B', { length: 2 }), ev('allocate', 'B', { pages: [0, 1] }), ev('free', 'A', { pages: [0, 1] })], {}, 'violation ExclusiveHold 10', ['free(A) released page 0, which B holds: it is held and free at once.', 'free(A) released page 1, which B holds: it is held and free at once.']],
  ['ExclusiveHold at evict (lock-underflow): the cached page a live hit reads', [EVICTION, ...CACHED, ev('arrive', 'C', { length: 2, prefix: 'sys' }), ev('allocate', 'C', { pages: [0, 1] }), ev('arrive', 'B', { length: 2 }), ev('evict', 'B', { pages: [0] })], {}, 'violation ExclusiveHold 12', ["evict(B) freed page 0, the cached prefix page that C (live, a cache hit) still reads: nothing locked it, and it is free while C's table holds it."]],
  ['NoDuplicateFree (early-free with double-free): a free after the timeout already released the pages', [config({ pages: 2, prefillLimit: 2, faults: ['early-free', 'double-free'] }), ...A2, ev('timeout', 'A'), ev('done', 'A'), ev('free', 'A', { pages: [0, 1] })], {}, 'violation NoDuplicateFree 6', ['free(A) released page 0, which was already free: it is on the free list twice, and two allocations can each be handed it.', 'free(A) released page 1, which was already free: it is on the free list twice, and two allocations can each be handed it.']],
];

const DEVIATIONS: readonly Case[] = [
  ['an event of a request that never arrived', [C4, ev('done', 'Z')], {}, 'deviation - 2', ['done for request "Z", which has not arrived (or finished long ago): the log must record its arrival first']],
  ['an arrival longer than the pool', [C4, ev('arrive', 'A', { length: 5 })], {}, 'deviation - 2', ["A needs 5 pages, more than the pool's 4: the spec can never allocate it"]],
  ['an allocation of another length than the arrival', [C4, ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [0] })], {}, 'deviation - 3', ['A arrived with 2 pages, the allocation names 1']],
  ['a page outside the pool', [C4, ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [0, 4] })], {}, 'deviation - 3', ['page 4 is not in the pool of 4 pages (ids 0 to 3)']],
  ['pages other than the allocator order hands out', [C4, ev('arrive', 'A', { length: 2 }), ev('allocate', 'A', { pages: [1, 2] })], {}, 'deviation - 3', ['the sorted allocator hands out [0, 1]; the log says [1, 2]']],
  ['a second allocation of a live request', [C4, ...A2, ev('allocate', 'A', { pages: [2, 3] })], {}, 'deviation - 4', ['allocate(A) is not enabled: A is allocated, 2 pages are free and 2 are needed']],
  ['a cache hit whose cached prefix page is not first', [C4, ...CACHED, ev('arrive', 'B', { length: 2, prefix: 'sys' }), ev('allocate', 'B', { pages: [1, 2] })], {}, 'deviation - 10', ["B's prefix is cached in page 0, which must come first; the allocation names 1"]],
  ['an action the spec does not enable (decode before the handoff)', [C4, ...A2, ev('decode', 'A', { pages: [0, 1] })], {}, 'deviation - 4', ['decode(A) is not enabled: A is written']],
  ['a second release without a fault that allows it', [C4, ...served('A', [0, 1]), ev('free', 'A', { pages: [0, 1] })], {}, 'deviation - 8', ['free(A) is not enabled: A is freed; a second release of its pages needs fault double-free (the pages are still free) or stale-free']],
  ['a second release after a timeout, without double-free', [config({ pages: 2, prefillLimit: 2, faults: ['early-free'] }), ...A2, ev('timeout', 'A'), ev('done', 'A'), ev('free', 'A', { pages: [0, 1] })], {}, 'deviation - 6', ['free(A) is not enabled: A is landed; a second release of its pages needs fault double-free (the pages are still free) or stale-free']],
  ['an outcome the spec does not reach (a failed decode without the owner check)', [C4, ...served('A', [0, 1]).slice(0, 4), ev('fail', 'A')], {}, 'deviation - 6', ["the spec's decode(A) leaves it decoded; the log says it ended failed"]],
  ["an action's pages other than the table's", [C4, ...served('A', [0, 1]).slice(0, 4), ev('decode', 'A', { pages: [1, 0] })], {}, 'deviation - 6', ['decode(A) is about pages [0, 1]; the log says [1, 0]']],
  ['a later decode step before the first', [C4, ...served('A', [0, 1]).slice(0, 4), ev('decode', 'A', { step: 1 })], {}, 'deviation - 6', ['a later decode step of A needs it decoded, but A is handedOff']],
  ['a later decode step that reads other pages', [C4, ...served('A', [0, 1]).slice(0, 5), ev('decode', 'A', { step: 1, pages: [0, 2] })], {}, 'deviation - 7', ["A's page table is [0, 1]; the log says it read [0, 2]"]],
  ['a posted write after the write landed', [C4, ...served('A', [0, 1]).slice(0, 3), ev('posted', 'A', { pages: [0, 1] })], {}, 'deviation - 5', ['P posted a write for A, but no write of it is outstanding: A is written']],
  ['a posted write of a request length-fix refuses', [config({ pages: 4, prefillLimit: 1, variant: 'length-fix' }), ...A2, ev('posted', 'A', { pages: [0, 1] })], {}, 'deviation - 4', ['A is too long for P (2 tokens, more than its limit of 1 pages) and this variant refuses it: P posts no write']],
  ['a posted prefill that names a page it does not write', [C4, ...A2, ev('posted', 'A', { pages: [0, 2] })], {}, 'deviation - 4', ["P's write for A lands in [0, 1]; the log says [0, 2], which is not a run of them"]],
  ['a posted part out of table order', [C4, ...A2, ev('posted', 'A', { pages: [1, 0] })], {}, 'deviation - 4', ["P's write for A lands in [0, 1]; the log says [1, 0], which is not a run of them"]],
  ['a posted stub that names every page (it writes only the first)', [config({ pages: 4, prefillLimit: 1 }), ...A2, ev('posted', 'A', { pages: [0, 1] })], {}, 'deviation - 4', ["P's write for A lands in [0]; the log says [0, 1], which is not a run of them"]],
  ['an eviction that names a page the cache did not free', [EVICTION, ...CACHED, ev('arrive', 'B', { length: 3 }), ev('evict', 'B', { pages: [1] })], {}, 'deviation - 10', ['evict(B) frees one cached page; the log says [1], which is not what it freed']],
];

describe('validate-log: each invariant by a log that breaks it alone', () => {
  it.each(VIOLATIONS)('%s', (_name, log, how, verdict, said) => {
    const r = run(log, how);
    expect(summary(r)).toBe(verdict);
    expect(words(r)).toEqual(said);
  });

  it('the stale release names the request that holds the pages, and its lines are in the story', () => {
    const r = run(VIOLATIONS[4]?.[1] ?? []);
    expect(r.story.map((l) => l.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});

describe('validate-log: each reason a state refuses an event, by a log that meets it alone', () => {
  it.each(DEVIATIONS)('%s', (_name, log, how, verdict, said) => {
    const r = run(log, how);
    expect(summary(r)).toBe(verdict);
    expect(words(r)).toEqual(said);
  });

  it('every log above but its last line conforms: the rule is met at that line and at no earlier one', () => {
    for (const [name, log, how] of [...VIOLATIONS, ...DEVIATIONS]) expect(summary(run(log.slice(0, -1), how)), name).toBe('conforms - -');
  });

  it('a release may list its pages in any order', () => {
    expect(summary(run([C4, ...served('A', [0, 1]).slice(0, 5), ev('free', 'A', { pages: [1, 0] })]))).toBe('conforms - -');
  });
});

describe('validate-log: several possible states', () => {
  it('the early-free race: three states at the decode, one of which leaks', () => {
    const r = run(EARLY_FREE);
    expect([summary(r), r.peakStates]).toEqual(['violation Isolation 11', 3]);
  });

  it('different violations in different states: the first state\'s is reported (Integrity: A\'s write has not landed), not the last\'s (Isolation)', () => {
    const r = run(TWO_VIOLATIONS, { integrity: true });
    expect([summary(r), r.peakStates]).toEqual(['violation Integrity 9', 3]);
    expect(r.headline).toEqual(['B read page 1, never written during its hold: its answer is garbage (nothing leaked).']);
    expect(r.spec?.actions.map((a) => a.kind)).toEqual(['allocate', 'timeout', 'allocate', 'stub', 'handoff', 'decode']);
    // The state where A's write landed after B's stub leaks: without Integrity, that one is reported.
    const leak = run(TWO_VIOLATIONS);
    expect(summary(leak)).toBe('violation Isolation 9');
    expect(leak.spec?.actions.map((a) => a.kind)).toEqual(['allocate', 'timeout', 'allocate', 'stub', 'handoff', 'prefill', 'decode']);
  });

  it('a set grown past --max-states is incomplete, at the line where it did', () => {
    const r = run(EARLY_FREE, { maxStates: 1 });
    expect([summary(r), r.peakStates, r.headline]).toEqual(['incomplete - 7', 2, ['the set of possible states grew past 1']]);
  });
});

/** A's state after allocate, prefill and handoff of pages 0 and 1, and the context of its decode event. */
function beforeDecode(): { ctx: EventContext; state: Possible } {
  const model: LogModel = { pages: 2, pageSize: undefined, prefillLimit: 2, variant: 'buggy', faults: ['silent-stub'], allocator: 'sorted', lengthRule: 'gt', eviction: false, tableGrowth: false, retraction: false };
  const window = new RequestWindow(1);
  const slot = window.arrive('A', 2, -1, 2);
  const info = window.info(slot);
  if (info === undefined) throw new Error('no slot');
  const pool = new LoggedPool({ pages: 2, prefillLimit: 2, variant: 'buggy', faults: ['silent-stub'], slots: 1, maxLength: 2, prefixes: 0, allocator: 'sorted' });
  for (const kind of ['allocate', 'prefill', 'handoff'] as const) expect(takeAction(pool, kind, slot, 2, -1)).toBe(true);
  info.serial = pool.serial(slot);
  const pages = PageRuns.from([0, 1]);
  if (!(pages instanceof PageRuns)) throw new Error('bad pages');
  const ctx: EventContext = { event: { kind: 'decode', id: 'A', pages: [0, 1] }, rule: EVENT_TABLE.decode, slot, info, pages, model, window, integrity: false };
  return { ctx, state: { pool, pending: [], path: undefined } };
}

describe('validate-log: the rules no log reaches first', () => {
  // Every event that can take a page from a live table (a stale release, an allocation, an
  // eviction) is an ExclusiveHold violation at its own line, and the validator stops there; so
  // an unheld read is never the first thing a log breaks. The check stays for the pool's sake
  // and is held here on a state where page 1 left A's hold behind the log's back.
  it('ReadsOwnPages: a decode that reads its own data from a page it no longer holds', () => {
    const held = beforeDecode();
    expect(applyEvent(held.ctx, held.state)).toEqual({ kind: 'ok' });
    const unheld = beforeDecode();
    unheld.state.pool.holder[1] = 0;
    expect(applyEvent(unheld.ctx, unheld.state)).toEqual({ kind: 'violation', invariant: 'ReadsOwnPages', headline: ['A read a page it did not hold.'], involved: [] });
  });

  // A request's own hidden step lands only at its own events, the same way in every state, so
  // a logged event leaves its request finished in all states or in none; the rule is for the
  // logs that break that (a torn write's parts, when the validator takes them).
  it('a request finished in only some possible states keeps its slot', () => {
    const done = beforeDecode();
    expect(applyEvent(done.ctx, done.state)).toEqual({ kind: 'ok' });
    const pool = done.state.pool;
    expect(takeAction(pool, 'free', 0, 2, -1)).toBe(true);
    const finished: Possible = { pool, pending: [], path: undefined };
    const waiting: Possible = { pool: pool.fork(), pending: [{ slot: 0, kinds: ['prefill'] }], path: undefined };
    expect(finishedEverywhere([finished], 0)).toBe(true);
    expect(finishedEverywhere([finished, waiting], 0)).toBe(false);
    expect(finishedEverywhere([waiting, finished], 0)).toBe(false);
    expect(finishedEverywhere([beforeDecode().state], 0)).toBe(false);
  });
});

describe('a log that ends mid-request (issue 25, item 6)', () => {
  it('conforms, and names each request still in flight with its phase, in arrival order; a finished one is not named', () => {
    const r = run([C4, ...served('A', [0, 1]), ev('arrive', 'B', { length: 1 }), ev('allocate', 'B', { pages: [0] }), ev('arrive', 'C', { length: 1 }), ev('allocate', 'C', { pages: [1] }), ev('done', 'C')]);
    expect(summary(r)).toBe('conforms - -');
    expect(r.unfinished).toEqual([
      { id: 'B', phase: 'allocated' },
      { id: 'C', phase: 'written' },
    ]);
    expect(run([C4, ...served('A', [0, 1])]).unfinished).toEqual([]);
  });
});
