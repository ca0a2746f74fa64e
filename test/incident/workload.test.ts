import { readFileSync } from 'node:fs';
import { Either } from 'effect';
import { describe, expect, it } from 'vitest';
import { arrivals, pagesOf } from '../../incident/arrivals.ts';
import { decodeWorkload, DEFAULT_MIX, defaultWorkload, INCIDENT_SIZES, type Workload } from '../../incident/workload.ts';

/** The issues of a workload that must not decode, as `path: message` lines. */
function issues(input: unknown): string[] {
  const decoded = decodeWorkload(input);
  if (Either.isRight(decoded)) throw new Error(`decoded: ${JSON.stringify(input)}`);
  return decoded.left.map((i) => `${i.path}: ${i.message}`);
}

describe('workload decoding', () => {
  it('defaults to the incident: 64-token pages, 681,280 and 1,048,576 tokens, the default mix', () => {
    const w = defaultWorkload();
    expect([w.pageTokens, w.prefillTokens, w.poolTokens]).toEqual([64, 681_280, 1_048_576]);
    expect([pagesOf(w.prefillTokens, 64), pagesOf(w.poolTokens, 64)]).toEqual([10_645, 16_384]);
    expect([w.requests, w.inFlight]).toEqual([100_000, 64]);
    expect(w.source).toEqual({ kind: 'mix', mix: DEFAULT_MIX });
  });

  it('lets the flags win over the file', () => {
    const decoded = decodeWorkload({ requests: 10, inFlight: 3 }, { requests: 20 });
    expect(Either.getOrThrow(decoded)).toMatchObject({ requests: 20, inFlight: 3 });
  });

  it('takes the request count of an explicit list from the list', () => {
    const decoded = Either.getOrThrow(decodeWorkload({ lengths: [681_281, 2_000, 64] }));
    expect(decoded.requests).toBe(3);
    expect(decoded.source).toEqual({ kind: 'list', tokens: [681_281, 2_000, 64] });
  });

  it('names the field and the value of every problem', () => {
    expect(issues({ requests: 0, mix: [{ weight: -1, minTokens: 5, maxTokens: 9 }], bogus: 1 })).toEqual([
      'bogus: is unexpected, expected: "description" | "requests" | "inFlight" | "pageTokens" | "prefillTokens" | "poolTokens" | "mix" | "lengths"',
      'requests: expected a number of requests: a whole number from 1 to 10000000, got 0',
      'mix[0].weight: expected a weight: a number greater than 0, got -1',
    ]);
    expect(issues({ mix: [{ weight: 1, minTokens: 900, maxTokens: 100, spread: 'normal' }] })).toEqual([
      'mix[0].spread: expected one of uniform, log-uniform, got "normal"',
    ]);
    expect(issues({ prefillTokens: 1_000, mix: [{ weight: 1, minTokens: 900, maxTokens: 100 }], lengths: [2_000_000] })).toEqual([
      'prefillTokens: expected a whole number of 64-token pages, got 1000',
      ': give either "mix" or "lengths", not both',
      'mix[0].maxTokens: expected at least minTokens (900), got 100',
      'lengths[0]: 2000000 tokens is more than the pool\'s 1048576; such a request can never be allocated',
    ]);
    expect(issues({ lengths: [] })).toEqual(['lengths: expected at least one prompt length, got []']);
    expect(issues([1, 2])[0]).toMatch(/^: expected a workload object such as .*got \[1,2\]$/);
  });

  it('decodes examples/workload.json', () => {
    const file = JSON.parse(readFileSync('examples/workload.json', 'utf8')) as unknown;
    const w = Either.getOrThrow(decodeWorkload(file));
    expect(w.requests).toBe(20_000);
    expect(w.source.kind).toBe('mix');
  });
});

describe('arrivals', () => {
  const w = (requests: number): Workload => defaultWorkload({ requests });

  it('are the same first requests whatever the total', () => {
    const short = arrivals(w(1_000), 5);
    const long = arrivals(w(5_000), 5);
    expect(Array.from(long.subarray(0, 1_000))).toEqual(Array.from(short));
    expect(Array.from(arrivals(w(1_000), 6))).not.toEqual(Array.from(short));
  });

  it('follow the default mix, boundary and one-over included', () => {
    const tokens = arrivals(w(20_000), 1);
    const counts = { chat: 0, document: 0, boundary: 0, oneOver: 0, overLong: 0, outside: 0 };
    for (const t of tokens) {
      if (t >= 200 && t <= 8_000) counts.chat++;
      else if (t > 8_000 && t < 681_280) counts.document++;
      else if (t === 681_280) counts.boundary++;
      else if (t === 681_281) counts.oneOver++;
      else if (t > 681_281 && t <= INCIDENT_SIZES.poolTokens) counts.overLong++;
      else counts.outside++;
    }
    expect(counts.outside).toBe(0);
    expect(counts.chat / 20_000).toBeCloseTo(0.8, 1);
    expect(counts.document / 20_000).toBeCloseTo(0.1625, 1);
    expect(counts.overLong / 20_000).toBeCloseTo(0.03, 2);
    expect(counts.boundary).toBeGreaterThan(50);
    expect(counts.oneOver).toBeGreaterThan(20);
  });

  it('replay an explicit list in order, cycling it', () => {
    const list = Either.getOrThrow(decodeWorkload({ lengths: [681_281, 64, 65] }, { requests: 7 }));
    expect(Array.from(arrivals(list, 1))).toEqual([681_281, 64, 65, 681_281, 64, 65, 681_281]);
  });
});
