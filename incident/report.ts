/**
 * The replay's report: what the users got back, counted overall, by prompt length, and at
 * the boundary (a prompt of exactly P's memory). One plain object, printed as text for
 * people and as JSON (`--json`) for scripts; both come from {@link summarize}.
 */
import { Outcome, type ReplayResult } from './replay.ts';
import { pagesOf } from './arrivals.ts';

/** Requests of one length range and what became of them. */
export interface Bucket {
  /** The range, as printed: `≤ 8,192`. */
  readonly label: string;
  /** Shortest prompt in the range, in tokens. */
  readonly minTokens: number;
  /** Longest prompt in the range, in tokens. */
  readonly maxTokens: number;
  /** Requests in the range. */
  readonly requests: number;
  /** Responses returned (leaked ones included). */
  readonly served: number;
  /** Responses that read another request's data. */
  readonly leaked: number;
  /** Requests refused before the handoff (`length-fix`). */
  readonly refused: number;
  /** Requests whose decode the owner check stopped. */
  readonly failedLoudly: number;
  /** `owner-check` only: requests a buggy twin would have leaked; null otherwise. */
  readonly wouldHaveLeaked: number | null;
}

/** The report of one replay; the JSON output is exactly this object. */
export interface IncidentReport {
  /** The variant replayed. */
  readonly variant: string;
  /** The seed that replays this run: `--seed`. */
  readonly seed: number;
  /** Requests replayed. */
  readonly requests: number;
  /** Most requests allowed in flight (`--in-flight`). */
  readonly inFlight: number;
  /** The deployment, in tokens and in pages. */
  readonly pool: { readonly pageTokens: number; readonly prefillTokens: number; readonly poolTokens: number; readonly pages: number; readonly prefillLimit: number };
  /** Responses returned to users (leaked ones included). */
  readonly served: number;
  /** Requests longer than P's memory. */
  readonly overLong: number;
  /** Responses that read data another request wrote: the incident. */
  readonly leaked: number;
  /** Responses that leaked nothing but read pages not written for them (never written, or misplaced): `Integrity` failures, counted apart from leaks. */
  readonly answeredGarbage: number;
  /** Requests refused before the handoff. */
  readonly refused: number;
  /** Requests the owner check failed loudly. */
  readonly failedLoudly: number;
  /** `owner-check` only: requests whose pages held other requests' data when they decoded (a buggy twin leaked them); null otherwise. */
  readonly wouldHaveLeaked: number | null;
  /** Shortest leaked prompt, in tokens; null when nothing leaked. */
  readonly minLeakTokens: number | null;
  /** Longest leaked prompt, in tokens; null when nothing leaked. */
  readonly maxLeakTokens: number | null;
  /** Leaked responses whose prompt fit P's memory: zero if the incident's boundary is exact. */
  readonly leakedWithinLimit: number;
  /** Requests of exactly P's memory, to the token, and how many of them leaked. */
  readonly boundary: { readonly tokens: number; readonly requests: number; readonly served: number; readonly leaked: number };
  /** Over-long requests served without a leak: every page after the stub's had never been written. */
  readonly overLongClean: number;
  /** Longest prompt served without reading foreign data, in tokens; null when none was. */
  readonly maxCleanTokens: number | null;
  /** Foreign pages read over all leaked responses. */
  readonly foreignPagesRead: number;
  /** Leaks and outcomes by prompt length. */
  readonly buckets: readonly Bucket[];
  /** The most requests that were in flight at once. */
  readonly peakInFlight: number;
  /** How often the head of the queue waited for free pages. */
  readonly waits: number;
  /** Wall-clock time of the replay. */
  readonly elapsedMs: number;
  /** Requests replayed per wall-clock second. */
  readonly requestsPerSecond: number;
}

/** Upper bounds of the short-prompt buckets, in tokens: a chat, a long chat or short document. */
const SHORT_BOUNDS = [8_192, 65_536] as const;

/** Counts a replay's outcomes into a report. */
export function summarize(result: ReplayResult): IncidentReport {
  const { workload, tokens, outcome, foreign, garbage, wouldLeak } = result;
  const limit = workload.prefillTokens;
  const bounds = [...SHORT_BOUNDS.filter((b) => b < limit), limit, workload.poolTokens];
  // Six counters per bucket, in the order of the Bucket fields.
  const counts = new Float64Array(bounds.length * 6);
  const [REQ, SERVED, LEAKED, REFUSED, FAILED, WOULD] = [0, 1, 2, 3, 4, 5] as const;
  const count = (b: number, k: number): void => {
    counts[b * 6 + k] = (counts[b * 6 + k] ?? 0) + 1;
  };
  const counted = (b: number, k: number): number => counts[b * 6 + k] ?? 0;
  let served = 0, overLong = 0, leaked = 0, refused = 0, failedLoudly = 0, would = 0, answeredGarbage = 0;
  let minLeak = Infinity, maxLeak = -Infinity, maxClean = -Infinity;
  let leakedWithinLimit = 0, atBoundary = 0, boundaryServed = 0, boundaryLeaked = 0, overLongClean = 0, foreignPages = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] ?? 0;
    const o = outcome[i] ?? Outcome.pending;
    let b = 0;
    while (b < bounds.length - 1 && t > (bounds[b] ?? 0)) b++;
    count(b, REQ);
    if (t > limit) overLong++;
    if (t === limit) atBoundary++;
    if (o === Outcome.served || o === Outcome.leaked) {
      served++;
      count(b, SERVED);
      if (t === limit) boundaryServed++;
    }
    if (o === Outcome.served) {
      if ((garbage[i] ?? 0) > 0) answeredGarbage++;
      if (t > maxClean) maxClean = t;
      if (t > limit) overLongClean++;
    } else if (o === Outcome.leaked) {
      leaked++;
      count(b, LEAKED);
      foreignPages += foreign[i] ?? 0;
      if (t < minLeak) minLeak = t;
      if (t > maxLeak) maxLeak = t;
      if (t <= limit) leakedWithinLimit++;
      if (t === limit) boundaryLeaked++;
    } else if (o === Outcome.refused) {
      refused++;
      count(b, REFUSED);
    } else if (o === Outcome.failed) {
      failedLoudly++;
      count(b, FAILED);
    }
    if (wouldLeak !== undefined && wouldLeak[i] === 1) {
      would++;
      count(b, WOULD);
    }
  }
  const fmt = (x: number): string => x.toLocaleString('en-US');
  const buckets: Bucket[] = bounds.map((max, b) => {
    const min = b === 0 ? 1 : (bounds[b - 1] ?? 0) + 1;
    return {
      label: max === limit || b < bounds.length - 1 ? `≤ ${fmt(max)}` : `> ${fmt(limit)}`,
      minTokens: min,
      maxTokens: max,
      requests: counted(b, REQ),
      served: counted(b, SERVED),
      leaked: counted(b, LEAKED),
      refused: counted(b, REFUSED),
      failedLoudly: counted(b, FAILED),
      wouldHaveLeaked: wouldLeak === undefined ? null : counted(b, WOULD),
    };
  });
  const seconds = result.elapsedMs / 1000;
  return {
    variant: result.variant,
    seed: result.seed,
    requests: tokens.length,
    inFlight: workload.inFlight,
    pool: {
      pageTokens: workload.pageTokens,
      prefillTokens: limit,
      poolTokens: workload.poolTokens,
      pages: pagesOf(workload.poolTokens, workload.pageTokens),
      prefillLimit: pagesOf(limit, workload.pageTokens),
    },
    served,
    overLong,
    leaked,
    answeredGarbage,
    refused,
    failedLoudly,
    wouldHaveLeaked: wouldLeak === undefined ? null : would,
    minLeakTokens: leaked > 0 ? minLeak : null,
    maxLeakTokens: leaked > 0 ? maxLeak : null,
    leakedWithinLimit,
    boundary: { tokens: limit, requests: atBoundary, served: boundaryServed, leaked: boundaryLeaked },
    overLongClean,
    maxCleanTokens: Number.isFinite(maxClean) ? maxClean : null,
    foreignPagesRead: foreignPages,
    buckets,
    peakInFlight: result.peakInFlight,
    waits: result.waits,
    elapsedMs: Math.round(result.elapsedMs),
    requestsPerSecond: seconds > 0 ? Math.round(tokens.length / seconds) : 0,
  };
}
