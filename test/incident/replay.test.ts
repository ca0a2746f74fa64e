/**
 * The incident at real scale, pinned on a seeded run of 3,000 requests of the default mix
 * (64-token pages, P's 10,645 pages, D's 16,384): the boundary is exact under `buggy`, and
 * both fixes end the leak, each in its own way.
 */
import { Either } from 'effect';
import { beforeAll, describe, expect, it } from 'vitest';
import { PagePool } from '../../impl/pool.ts';
import type { PoolOptions } from '../../impl/options.ts';
import { Outcome, replay, type ReplayResult } from '../../incident/replay.ts';
import { summarize } from '../../incident/report.ts';
import { decodeWorkload, defaultWorkload, type Workload } from '../../incident/workload.ts';
import type { Variant } from '../../spec/index.ts';

const LIMIT = 681_280;
const workload = defaultWorkload({ requests: 3_000 });

/** A pool that, before each decode, counts the foreign pages of the table itself: an oracle beside the pool's own count. */
class AuditedPool extends PagePool {
  /** Per decode, in order: foreign pages found by reading `data` through the page table. */
  readonly audited: number[] = [];
  constructor(options: PoolOptions) {
    super(options);
  }
  override decode(slot: number): boolean {
    const table = this.pageTable(slot);
    const serial = this.serial(slot);
    let foreign = 0;
    const size = this.options.pageSize ?? 1;
    for (let i = 0; i < (this.lengths[slot] ?? 0); i++) {
      const p = table[i] ?? 0;
      const d = this.data[p] ?? 0;
      // Token slots: the reader's own page read past its fill holds P's stale data (a stub's dummy is one token).
      const stale = d === serial && Math.min(size, (this.tokens[slot] ?? 0) - i * size) > (this.fill[p] ?? 0);
      if ((d !== 0 && d !== serial) || stale) foreign++;
    }
    this.audited.push(foreign);
    return super.decode(slot);
  }
}

/** Runs the replay; the pools built are returned too (the main one first). */
function run(variant: Variant, w: Workload = workload, seed = 1): { result: ReplayResult; pools: AuditedPool[] } {
  const pools: AuditedPool[] = [];
  const result = replay({ workload: w, variant, seed, pool: (o) => pools[pools.push(new AuditedPool(o)) - 1] as AuditedPool });
  return { result, pools };
}

/** Indices of the requests whose outcome satisfies `keep`. */
function where(result: ReplayResult, keep: (outcome: number, tokens: number, i: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < result.tokens.length; i++) if (keep(result.outcome[i] ?? 0, result.tokens[i] ?? 0, i)) out.push(i);
  return out;
}

// The three replays run once, before the tests and not while vitest collects the file.
let buggy: ReturnType<typeof run>;
let lengthFix: ReturnType<typeof run>;
let ownerCheck: ReturnType<typeof run>;
beforeAll(() => {
  buggy = run('buggy');
  lengthFix = run('length-fix');
  ownerCheck = run('owner-check');
}, 60_000);

describe('pagecheck incident, seed 1, 3,000 requests', () => {
  it('buggy: leaks, every one longer than 681,280 tokens; a prompt of exactly 681,280 never leaks', () => {
    const r = summarize(buggy.result);
    expect(r).toMatchObject({
      requests: 3_000,
      served: 3_000,
      overLong: 93,
      leaked: 93,
      refused: 0,
      failedLoudly: 0,
      minLeakTokens: 681_281,
      maxLeakTokens: 1_046_063,
      leakedWithinLimit: 0,
      boundary: { tokens: LIMIT, requests: 14, served: 14, leaked: 0 },
      maxCleanTokens: LIMIT,
      foreignPagesRead: 1_236_813,
    });
    expect(r.buckets.map((b) => [b.label, b.requests, b.leaked])).toEqual([
      ['≤ 8,192', 2_420, 0],
      ['≤ 65,536', 223, 0],
      ['≤ 681,280', 264, 0],
      ['> 681,280', 93, 93],
    ]);
    expect(where(buggy.result, (o, t) => o === Outcome.leaked && t <= LIMIT)).toEqual([]);
    expect(where(buggy.result, (o) => o === Outcome.pending)).toEqual([]);
  });

  it("buggy: the pool's count of foreign reads agrees with a page-by-page audit of its tables", () => {
    const audited = buggy.pools[0]?.audited ?? [];
    expect(audited.length).toBe(3_000);
    expect(audited.reduce((a, b) => a + b, 0)).toBe(summarize(buggy.result).foreignPagesRead);
    expect(audited.filter((f) => f > 0).length).toBe(93);
  });

  it('length-fix: no leak, and every over-long request refused', () => {
    const r = summarize(lengthFix.result);
    expect(r).toMatchObject({ served: 2_907, overLong: 93, leaked: 0, refused: 93, failedLoudly: 0, minLeakTokens: null, foreignPagesRead: 0 });
    expect(where(lengthFix.result, (o, t) => (o === Outcome.refused) !== t > LIMIT)).toEqual([]);
  });

  it('owner-check: no leak, and every over-long request whose pages held foreign data failed loudly', () => {
    const r = summarize(ownerCheck.result);
    expect(r).toMatchObject({ served: 2_907, overLong: 93, leaked: 0, refused: 0, failedLoudly: 93, wouldHaveLeaked: 93, minLeakTokens: null });
    // The monitor's verdict, request by request: what buggy leaked is exactly what the owner check stopped.
    const would = ownerCheck.result.wouldLeak ?? new Uint8Array(0);
    const stopped = where(ownerCheck.result, (_o, _t, i) => would[i] === 1);
    expect(stopped).toEqual(where(buggy.result, (o) => o === Outcome.leaked));
    expect(where(ownerCheck.result, (o, _t, i) => would[i] === 1 && o !== Outcome.failed)).toEqual([]);
    expect(where(ownerCheck.result, (o, t) => (o === Outcome.failed) !== t > LIMIT)).toEqual([]);
    // The audit of the pool's own tables finds the foreign pages its check refused to read.
    expect(ownerCheck.pools.length).toBe(1);
    expect(ownerCheck.pools[0]?.audited.filter((f) => f > 0).length).toBe(93);
  });

  it('is a pure function of the seed', () => {
    const again = run('buggy');
    expect(Array.from(again.result.outcome)).toEqual(Array.from(buggy.result.outcome));
    expect(Array.from(again.result.foreign)).toEqual(Array.from(buggy.result.foreign));
    expect(again.result.simTime).toBe(buggy.result.simTime);
    const other = run('buggy', workload, 2);
    expect(Array.from(other.result.tokens)).not.toEqual(Array.from(buggy.result.tokens));
    expect(summarize(other.result).leakedWithinLimit).toBe(0);
  });

  it('interleaves requests and reuses freed pages', () => {
    expect(buggy.result.peakInFlight).toBe(64);
    expect(buggy.result.waits).toBeGreaterThan(1_000);
  });
});

/** A pool whose decode under-counts: every tenth foreign page goes unreported. */
class UnderCountingPool extends PagePool {
  override foreignReads(slot: number): number {
    const n = super.foreignReads(slot);
    return n - Math.floor(n / 10);
  }
}

/** A pool that hands out the highest free page as the last page of every long table: exclusive, but not the lowest free ids. */
class SkipsAPagePool extends PagePool {
  protected override takePages(at: number, n: number): void {
    super.takePages(at, n);
    if (n < 2 || this.freePages === 0) return;
    const last = this.tables[at + n - 1] ?? 0;
    for (let p = this.options.pages - 1; p > last; p--) {
      if (this.freeSet.remove(p)) {
        this.freeSet.add(last);
        this.tables[at + n - 1] = p;
        return;
      }
    }
  }
}

describe('pagecheck incident: leaks are counted by an independent monitor, not by the pool', () => {
  it("a pool that under-reports its foreign reads is caught, not believed", () => {
    expect(() => replay({ workload, variant: 'buggy', seed: 1, pool: (o) => new UnderCountingPool(o) })).toThrow(
      /the pool and the spec disagree for request \d+ in slot \d+: the pool counted \d+ foreign pages, the monitor \d+/,
    );
  });

  it('a pool that does not hand out the lowest free pages is caught', () => {
    expect(() => replay({ workload, variant: 'buggy', seed: 1, pool: (o) => new SkipsAPagePool(o) })).toThrow(/was not given the lowest free pages/);
  });

  it('the foreign pages counted are the monitor\'s, and equal a page-by-page audit of the pool\'s own tables', () => {
    const sorted = (xs: Iterable<number>): number[] => Array.from(xs).sort((a, b) => a - b);
    expect(sorted(buggy.result.foreign)).toEqual(sorted(buggy.pools[0]?.audited ?? []));
  });
});

describe('pagecheck incident on a fresh pool', () => {
  // An over-long request first, when no page was ever written; then a chat; then over-long again.
  const list = Either.getOrThrow(decodeWorkload({ lengths: [681_281, 6_400, 1_048_576, 681_280], inFlight: 4 }));

  // Before token slots the first request read nothing foreign (its other pages were never written). With
  // 64-token pages its stub page holds one token and 63 slots of P's stale data, another user's: it leaks too.
  it('buggy: an over-long request on never-written pages still leaks, through the stale tail of its one-token stub page', () => {
    const r = run('buggy', list);
    expect(Array.from(r.result.outcome)).toEqual([Outcome.leaked, Outcome.served, Outcome.leaked, Outcome.served]);
    expect(summarize(r.result)).toMatchObject({ overLongClean: 0, answeredGarbage: 0, leaked: 2, minLeakTokens: 681_281 });
    expect(Array.from(r.result.foreign)[0]).toBe(1);
  });

  it('owner-check: fails every stubbed request, and both would have leaked', () => {
    const r = run('owner-check', list);
    expect(Array.from(r.result.outcome)).toEqual([Outcome.failed, Outcome.served, Outcome.failed, Outcome.served]);
    expect(Array.from(r.result.wouldLeak ?? [])).toEqual([1, 0, 1, 0]);
    expect(summarize(r.result)).toMatchObject({ failedLoudly: 2, wouldHaveLeaked: 2, leaked: 0 });
  });
});
