/**
 * The replay's report: what the users got back, counted overall, by prompt length, and at
 * the boundary (a prompt of exactly P's memory). One plain object, printed as text for
 * people and as JSON (`--json`) for scripts; both come from {@link summarize}.
 */
import type { PrefixCounts, ServingCounts } from './serving.ts';
import { isOverLongPrompt } from '../spec/behaviour.ts';
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
  /** `owner-check` only: requests whose pages held other requests' data when they decoded (the monitor's count); null otherwise. */
  readonly wouldHaveLeaked: number | null;
}

/** What became of the requests of one exact length. */
export interface LengthOutcome {
  /** The prompt length, in tokens. */
  readonly tokens: number;
  /** Requests of exactly that length. */
  readonly requests: number;
  /** Responses returned (leaked ones included). */
  readonly served: number;
  /** Responses that read another request's data. */
  readonly leaked: number;
  /** Refused before the handoff. */
  readonly refused: number;
  /** Failed loudly by the owner check. */
  readonly failedLoudly: number;
}

/** The report of one replay; the JSON output is exactly this object. */
export interface IncidentReport {
  /** The variant replayed. */
  readonly variant: string;
  /** The pool's allocation order. */
  readonly allocator: string;
  /** The length rule: `gt` refuses a prompt longer than P's memory, `ge` (SGLang's) one at least as long. */
  readonly lengthRule: string;
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
  /** Requests the length rule finds too long for P's memory (longer than it under `gt`, at least as long under `ge`). */
  readonly overLong: number;
  /** Responses that read data another request wrote: the incident. */
  readonly leaked: number;
  /** Responses that leaked nothing but read pages not written for them (never written, or misplaced): `Integrity` failures, counted apart from leaks. */
  readonly answeredGarbage: number;
  /** Requests refused before the handoff. */
  readonly refused: number;
  /** Requests the owner check failed loudly. */
  readonly failedLoudly: number;
  /** `owner-check` only: requests whose pages held other requests' data when they decoded (the monitor's count); null otherwise. */
  readonly wouldHaveLeaked: number | null;
  /** Shortest leaked prompt, in tokens; null when nothing leaked. */
  readonly minLeakTokens: number | null;
  /** Longest leaked prompt, in tokens; null when nothing leaked. */
  readonly maxLeakTokens: number | null;
  /** Leaked responses whose prompt fit P's memory: zero if the incident's boundary is exact. */
  readonly leakedWithinLimit: number;
  /** Requests of exactly P's memory, to the token, and what became of them. */
  readonly boundary: LengthOutcome;
  /** Requests of one token more than P's memory, and what became of them. */
  readonly oneOver: LengthOutcome;
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
  /** With `--serving`: the steps taken beyond the plain replay (incident/serving.ts). */
  readonly serving?: ServingCounts;
  /** With `--prefixes`: the radix tree's hits, inserts and evictions (incident/serving.ts). */
  readonly prefixes?: PrefixCounts;
}

/** Upper bounds of the short-prompt buckets, in tokens: a chat, a long chat or short document. */
const SHORT_BOUNDS = [8_192, 65_536] as const;

/** Counts a replay's outcomes into a report: the run, the totals, the boundary and the buckets, each a section. */
export function summarize(result: ReplayResult): IncidentReport {
  const { workload, tokens } = result;
  const limit = workload.prefillTokens;
  const seconds = result.elapsedMs / 1000;
  const t = totals(result);
  // In the order of the IncidentReport fields: the JSON output is this object.
  return {
    variant: result.variant,
    allocator: result.allocator,
    lengthRule: result.lengthRule,
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
    served: t.served,
    overLong: t.overLong,
    leaked: t.leaked,
    answeredGarbage: t.answeredGarbage,
    refused: t.refused,
    failedLoudly: t.failedLoudly,
    wouldHaveLeaked: t.wouldHaveLeaked,
    minLeakTokens: t.minLeakTokens,
    maxLeakTokens: t.maxLeakTokens,
    leakedWithinLimit: t.leakedWithinLimit,
    boundary: lengthOutcome(result, limit),
    oneOver: lengthOutcome(result, limit + 1),
    overLongClean: t.overLongClean,
    maxCleanTokens: t.maxCleanTokens,
    foreignPagesRead: t.foreignPagesRead,
    buckets: buckets(result),
    peakInFlight: result.peakInFlight,
    waits: result.waits,
    elapsedMs: Math.round(result.elapsedMs),
    requestsPerSecond: seconds > 0 ? Math.round(tokens.length / seconds) : 0,
    ...(result.serving === undefined ? {} : { serving: result.serving }),
    ...(result.prefixes === undefined ? {} : { prefixes: result.prefixes }),
  };
}

/** The report's counts over every request, with the leaked prompts' range and the longest clean one. */
type Totals = Pick<
  IncidentReport,
  | 'served'
  | 'overLong'
  | 'leaked'
  | 'answeredGarbage'
  | 'refused'
  | 'failedLoudly'
  | 'wouldHaveLeaked'
  | 'minLeakTokens'
  | 'maxLeakTokens'
  | 'leakedWithinLimit'
  | 'overLongClean'
  | 'maxCleanTokens'
  | 'foreignPagesRead'
>;

/** The totals section: what became of all the requests, and of the leaked and the over-long ones. */
function totals(result: ReplayResult): Totals {
  const { workload, tokens, outcome, foreign, garbage, wouldLeak } = result;
  const limit = workload.prefillTokens;
  const tooLong = (t: number): boolean => isOverLongPrompt(t, limit, result.lengthRule);
  let served = 0, overLong = 0, leaked = 0, refused = 0, failedLoudly = 0, would = 0, answeredGarbage = 0;
  let minLeak = Infinity, maxLeak = -Infinity, maxClean = -Infinity;
  let leakedWithinLimit = 0, overLongClean = 0, foreignPages = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] ?? 0;
    const o = outcome[i] ?? Outcome.pending;
    if (tooLong(t)) overLong++;
    if (o === Outcome.served || o === Outcome.leaked) served++;
    if (o === Outcome.served) {
      if ((garbage[i] ?? 0) > 0) answeredGarbage++;
      if (t > maxClean) maxClean = t;
      if (tooLong(t)) overLongClean++;
    } else if (o === Outcome.leaked) {
      leaked++;
      foreignPages += foreign[i] ?? 0;
      if (t < minLeak) minLeak = t;
      if (t > maxLeak) maxLeak = t;
      if (t <= limit) leakedWithinLimit++;
    } else if (o === Outcome.refused) refused++;
    else if (o === Outcome.failed) failedLoudly++;
    if (wouldLeak !== undefined && wouldLeak[i] === 1) would++;
  }
  return {
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
    overLongClean,
    maxCleanTokens: Number.isFinite(maxClean) ? maxClean : null,
    foreignPagesRead: foreignPages,
  };
}

/** The buckets section: the short-prompt ranges below P's memory, up to P's memory, and past it. */
function buckets(result: ReplayResult): Bucket[] {
  const { workload, tokens, outcome, wouldLeak } = result;
  const limit = workload.prefillTokens;
  const bounds = [...SHORT_BOUNDS.filter((b) => b < limit), limit, workload.poolTokens];
  // Six counters per bucket, in the order of the Bucket fields.
  const counts = new Float64Array(bounds.length * 6);
  const [REQ, SERVED, LEAKED, REFUSED, FAILED, WOULD] = [0, 1, 2, 3, 4, 5] as const;
  const count = (b: number, k: number): void => {
    counts[b * 6 + k] = (counts[b * 6 + k] ?? 0) + 1;
  };
  const counted = (b: number, k: number): number => counts[b * 6 + k] ?? 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] ?? 0;
    const o = outcome[i] ?? Outcome.pending;
    let b = 0;
    while (b < bounds.length - 1 && t > (bounds[b] ?? 0)) b++;
    count(b, REQ);
    if (o === Outcome.served || o === Outcome.leaked) count(b, SERVED);
    if (o === Outcome.leaked) count(b, LEAKED);
    else if (o === Outcome.refused) count(b, REFUSED);
    else if (o === Outcome.failed) count(b, FAILED);
    if (wouldLeak !== undefined && wouldLeak[i] === 1) count(b, WOULD);
  }
  const fmt = (x: number): string => x.toLocaleString('en-US');
  return bounds.map((max, b) => {
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
}

/** The boundary section's entries: what became of the requests of exactly `length` tokens. */
function lengthOutcome(result: ReplayResult, length: number): LengthOutcome {
  const { tokens, outcome } = result;
  let requests = 0, served = 0, leaked = 0, refused = 0, failedLoudly = 0;
  for (let i = 0; i < tokens.length; i++) {
    if ((tokens[i] ?? 0) !== length) continue;
    const o = outcome[i] ?? Outcome.pending;
    requests++;
    if (o === Outcome.served || o === Outcome.leaked) served++;
    if (o === Outcome.leaked) leaked++;
    if (o === Outcome.refused) refused++;
    if (o === Outcome.failed) failedLoudly++;
  }
  return { tokens: length, requests, served, leaked, refused, failedLoudly };
}
