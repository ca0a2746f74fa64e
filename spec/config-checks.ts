/**
 * What a schema cannot check field by field: the fields of a configuration that must
 * agree with each other (lengths against the pool, a prefix against its length, a switch
 * against the settings it needs) and counts against the state's widths. One check per
 * pair of fields, each reporting its issues with the path of the field to fix.
 */
import { ACTION_KINDS, kindPresent } from './actions.ts';
import { LIFO_MAX_PAGES } from './allocator.ts';
import { checksOwner } from './behaviour.ts';
import { LIMITS, requestName } from './config.ts';
import type { ConfigSchema, InputIssue } from './decode.ts';
import { groupIndexOf, nestedPrefixIssues, parentPrefixName, prefixExtends } from './nesting.ts';

/** A configuration as the schema decoded it, before its defaults are filled in. */
type Input = typeof ConfigSchema.Type;

/** A value as a message shows it: JSON, or what JSON cannot say. */
export const show = (value: unknown): string => {
  // JSON reads 1e400 as Infinity, which JSON.stringify would print as null.
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large';
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
};

/** The most token slots per page whose fill a state can count (one byte per page). */
const MAX_SLOTS = 255;

/** The checks, in the order their issues are reported. */
const CHECKS: readonly ((input: Input) => InputIssue[])[] = [
  requestCount,
  requestsAgainstPool,
  prefixesAgainstRequests,
  pageSizeAgainstSlots,
  widthIssues,
  growthAgainstSteps,
  retractionAgainstAllocator,
  radixAgainstEviction,
  nestedPrefixIssues,
  withoutAgainstVariant,
  anyAgainstActionLimit,
  lifoAgainstPages,
  faultsNamedOnce,
  prematureAgainstRetraction,
  draftAgainstRetraction,
  stateSlotsAgainstRequests,
  loadbackAgainstPrefixes,
];

/** Checks what a schema cannot see field by field: lengths against the pool, counts against the encoding. */
export function crossCheck(input: Input): InputIssue[] {
  return CHECKS.flatMap((check) => check(input));
}

/** The requests against the encoding: at least one, at most its limit. */
function requestCount(input: Input): InputIssue[] {
  const issues: InputIssue[] = [];
  const n = input.requests.length;
  if (n === 0) issues.push({ path: 'requests', message: 'expected at least one request, got []' });
  if (n > LIMITS.maxRequests) {
    issues.push({ path: 'requests', message: `the state encoding supports at most ${LIMITS.maxRequests} requests, got ${n}` });
  }
  return issues;
}

/** Each request against the others (its name), the pool (its length) and its prefix (a page of its own past it). */
function requestsAgainstPool(input: Input): InputIssue[] {
  const issues: InputIssue[] = [];
  const names = new Set<string>();
  const size = input.pageSize ?? 1;
  const inPages = (tokens: number): string => (size === 1 ? `${tokens} pages` : `${tokens} tokens (${Math.ceil(tokens / size)} pages of ${size})`);
  input.requests.forEach((q, i) => {
    const name = q.name ?? requestName(i);
    if (names.has(name)) issues.push({ path: `requests[${i}].name`, message: `duplicate request name ${show(name)}` });
    names.add(name);
    const pages = Math.ceil(q.length / size);
    if (pages > input.pages) {
      issues.push({
        path: `requests[${i}].length`,
        message: `${inPages(q.length)} is more than the pool's ${input.pages}; such a request can never be allocated`,
      });
    }
    const k = q.prefix === undefined ? 0 : (input.prefixPages?.[q.prefix] ?? 1);
    // SGLang matches at most the prompt less one token (`_compute_max_prefix_len`): a request has a page of its own past its prefix.
    if (q.prefix !== undefined && pages <= k) {
      issues.push({
        path: `requests[${i}].length`,
        message: `a request with a prefix needs at least ${k + 1} pages (its prefix ${show(q.prefix)} of ${k} ${k === 1 ? 'page' : 'pages'} and one of its own), got ${inPages(q.length)}`,
      });
    }
  });
  return issues;
}

/** Each prefix length against the requests: some request has that prefix, or one that extends it. */
function prefixesAgainstRequests(input: Input): InputIssue[] {
  const issues: InputIssue[] = [];
  for (const name of Object.keys(input.prefixPages ?? {})) {
    if (!input.requests.some((q) => q.prefix !== undefined && prefixExtends(q.prefix, name))) {
      issues.push({ path: `prefixPages.${name}`, message: `no request has prefix ${show(name)}; name a prefix that some request shares` });
    }
  }
  return issues;
}

/** The page size against the one byte that counts a page's written slots. */
function pageSizeAgainstSlots(input: Input): InputIssue[] {
  const size = input.pageSize ?? 1;
  if (size > 1 && size > MAX_SLOTS) {
    return [{ path: 'pageSize', message: `a state counts a page's written slots in one byte: at most ${MAX_SLOTS} tokens per page, got ${size}` }];
  }
  return [];
}

/** Table growth against the decode steps: the tables' room within two-byte positions, and steps that write a token. */
function growthAgainstSteps(input: Input): InputIssue[] {
  const issues: InputIssue[] = [];
  const size = input.pageSize ?? 1;
  // Only a decode step after the first writes a token: with one step the table never grows, and the switch would say nothing.
  const room = Math.max(0, ...input.requests.map((q) => Math.ceil((q.length + (input.tableGrowth === true ? (input.decodeSteps ?? 1) - 1 : 0)) / size)));
  if (room > 0xffff) issues.push({ path: 'tableGrowth', message: `a table position is two bytes: a table of at most 65535 pages, got ${room}` });
  if (input.tableGrowth === true && (input.decodeSteps ?? 1) < 2) {
    issues.push({ path: 'tableGrowth', message: `the table grows only when a decode step writes a token past its last slot, and only steps after the first write one: needs decodeSteps of 2 or more, got ${input.decodeSteps ?? 1}` });
  }
  return issues;
}

/** Retraction against the allocator: not modelled under `any` yet, nor under `lifo` with a fault that lists a page twice. */
function retractionAgainstAllocator(input: Input): InputIssue[] {
  // Not modelled yet, and refused rather than half-modelled: see spec/retraction.ts.
  if (input.retraction === true && input.allocator === 'any') {
    return [{ path: 'retraction', message: 'retraction is modelled with the allocators sorted, sglang and lifo; "any" would make every resume a choice of pages, not yet an action of its own' }];
  }
  // lifo keeps its list as a bounded array of entries (model.ts's listCap); a fault that puts a page on it twice, repeated by every retraction's release, has no bound.
  const twice = (input.faults ?? []).find((f) => f === 'double-free' || f === 'segment-overlap');
  if (input.retraction === true && input.allocator === 'lifo' && twice !== undefined) {
    return [{ path: 'retraction', message: `retraction with allocator lifo and fault ${twice} is not modelled: every retraction is a release that may put a page on lifo's list once more, and the list would have no bound; check it with allocator sorted or sglang` }];
  }
  return [];
}

/** The radix tree against the switches it refines: it is the evicting prefix cache's shape (spec/radix.ts). */
function radixAgainstEviction(input: Input): InputIssue[] {
  if (input.radix !== true) return [];
  if (input.eviction !== true || !input.requests.some((q) => q.prefix !== undefined)) {
    return [{ path: 'radix', message: 'radix is the evicting prefix cache as a tree: it needs eviction and a request with a prefix (--eviction, LEN:PREFIX in --requests)' }];
  }
  if (input.allocator === 'any') return [{ path: 'radix', message: 'radix is modelled with the allocators sorted, sglang and lifo; under "any" a partial match would make every shorter allocation a choice of its own' }];
  return [];
}

/** `without` against the variant: only `hardened` has mechanisms to switch off, and an empty list names none. */
function withoutAgainstVariant(input: Input): InputIssue[] {
  if (input.without === undefined) return [];
  if (input.without.length === 0) return [{ path: 'without', message: "expected at least one of hardened's mechanisms, got []" }];
  const variant = input.variant ?? 'buggy';
  if (variant !== 'hardened') return [{ path: 'without', message: `switches off mechanisms of variant hardened, and variant ${variant} has none: use --variant hardened` }];
  return [];
}

/** Allocator `any` against the checker's action limit: every choice of pages is an action. */
function anyAgainstActionLimit(input: Input): InputIssue[] {
  if (input.allocator !== 'any') return [];
  const faults = input.faults ?? [];
  const prefixes = input.requests.some((q) => q.prefix !== undefined);
  const on = {
    earlyFree: faults.includes('early-free'),
    prefixes,
    eviction: input.eviction === true && prefixes,
    tornWrite: faults.includes('torn-write'),
    ownerCheck: checksOwner(input.variant ?? 'buggy'),
    tableGrowth: input.tableGrowth === true,
    // Refused under "any" by retractionAgainstAllocator.
    retraction: false,
    offloadAfterFree: false,
    sourceEarlyFree: faults.includes('source-early-free') && input.sourcePages === true,
    auxTorn: faults.includes('aux-torn'),
    draft: input.draft === true,
    loadback: input.loadback === true && prefixes && input.radix !== true && input.retraction !== true,
  };
  // Every kind but allocate and grow is one action per request; their choices are counted by anyActions (grow: one per page).
  const kinds = ACTION_KINDS.filter((k) => k !== 'allocate' && k !== 'grow' && kindPresent(k, on)).length + (on.tableGrowth ? input.pages : 0);
  const inPageCounts = input.requests.map((q) => ({ ...q, length: Math.ceil(q.length / (input.pageSize ?? 1)) }));
  const actions = anyActions(input.pages, inPageCounts, input.prefixPages ?? {}, faults.includes('double-free'), kinds);
  if (actions > LIMITS.maxActions) {
    return [{ path: 'allocator', message: `"any" makes every choice of pages its own action: ${actions} actions here, more than the ${LIMITS.maxActions} the checker indexes; use fewer pages or shorter requests` }];
  }
  return [];
}

/** Allocator `lifo` against the pages: its free list is one byte per entry. */
function lifoAgainstPages(input: Input): InputIssue[] {
  if (input.allocator === 'lifo' && input.pages > LIFO_MAX_PAGES) {
    return [{ path: 'pages', message: `allocator "lifo" keeps its free list one byte per entry: at most ${LIFO_MAX_PAGES} pages, got ${input.pages}` }];
  }
  return [];
}

/** The faults against each other: each named once. */
function faultsNamedOnce(input: Input): InputIssue[] {
  const faults = input.faults ?? [];
  const issues: InputIssue[] = [];
  faults.forEach((f, i) => {
    if (faults.indexOf(f) !== i) issues.push({ path: `faults[${i}]`, message: `fault ${show(f)} is named twice` });
  });
  return issues;
}

/**
 * The limits of the state's widths (spec/layout.ts): labels (every request and every page
 * of every prefix) within a read record's 14 bits, page ids below the empty slot, and the
 * one-byte counts: a page's free-list copies (`sglang`, `double-free`) and a prefix's lock
 * count (eviction) grow with the requests.
 */
function widthIssues(input: Input): InputIssue[] {
  const issues: InputIssue[] = [];
  const n = input.requests.length;
  const labels = n + prefixLabelCount(input);
  if (labels > LIMITS.maxLabels) {
    const path = Object.keys(input.prefixPages ?? {}).length > 0 ? 'prefixPages' : 'requests';
    issues.push({ path, message: `the state encoding supports at most ${LIMITS.maxLabels} requests and prefix pages together (a read record holds a label in 14 bits), got ${labels}` });
  }
  if (input.allocator === 'sglang' && input.pages > LIMITS.maxPages - 1) {
    issues.push({ path: 'pages', message: `allocator "sglang" adds the padding page 0, and page ids are at most two bytes: at most ${LIMITS.maxPages - 1} pages, got ${input.pages}` });
  }
  const counted = input.allocator === 'sglang' || (input.faults ?? []).includes('double-free') || input.eviction === true;
  if (counted && n > LIMITS.maxCountedRequests) {
    issues.push({ path: 'requests', message: `a page's free-list copies and a prefix's lock count are one byte: at most ${LIMITS.maxCountedRequests} requests with allocator "sglang", fault "double-free" or eviction, got ${n}` });
  }
  return issues;
}

/**
 * The labels the prefixes take, as `compile` lays them out (nesting.ts): each group, an
 * unnamed parent included, has one per page past the group it extends, so a nested
 * prefix's first pages are not counted twice. A child no longer than its parent counts
 * none here (nestedPrefixIssues reports it).
 */
function prefixLabelCount(input: Input): number {
  const names: string[] = [];
  for (const q of input.requests) if (q.prefix !== undefined) groupIndexOf(names, q.prefix);
  const length = (name: string | undefined): number => (name === undefined ? 0 : (input.prefixPages?.[name] ?? 1));
  return names.reduce((sum, name) => sum + Math.max(0, length(name) - length(parentPrefixName(name))), 0);
}

/** The number of actions under allocator `any`: every ordered choice of pages per request, and one action per other kind. */
function anyActions(
  pages: number,
  requests: readonly { readonly length: number; readonly prefix?: string | undefined }[],
  prefixPages: Readonly<Record<string, number>>,
  multiset: boolean,
  kinds: number,
): number {
  const choices = (k: number): number => {
    let c = 1;
    for (let i = 0; i < k; i++) c *= multiset ? pages : pages - i;
    return Math.max(c, 0);
  };
  let total = 0;
  for (const q of requests) total += choices(q.length) + (q.prefix === undefined ? 0 : choices(q.length - (prefixPages[q.prefix] ?? 1))) + kinds;
  return total;
}

/** Fault `premature-success` against retraction: a retracted request's parts in flight would land in the pages it resumes on, not in the ones P was sent; not modelled, so refused. */
function prematureAgainstRetraction(input: Input): InputIssue[] {
  if (input.retraction !== true || !(input.faults ?? []).includes('premature-success')) return [];
  return [{ path: 'retraction', message: 'retraction with fault premature-success is not modelled: a request retracted while parts of its write are still landing would take new pages, and the parts are addressed to the old ones; check premature-success without retraction' }];
}

/** The draft model's KV against retraction: the saved copy holds the target's KV only (spec/draft.ts). */
function draftAgainstRetraction(input: Input): InputIssue[] {
  if (input.draft !== true || input.retraction !== true) return [];
  return [{ path: 'draft', message: "draft with retraction is not modelled: the saved copy and its load hold the target's KV only, and a resumed request would read its new pages' old draft KV; check draft without retraction" }];
}

/** Config `stateSlots` against the request count: a request's slot and row index (plus one) is a byte (spec/state-slots.ts). */
function stateSlotsAgainstRequests(input: Input): InputIssue[] {
  const n = Array.isArray(input.requests) ? input.requests.length : 0;
  if (input.stateSlots !== true || n <= LIMITS.maxCountedRequests) return [];
  return [{ path: 'requests', message: `a request's state slot and metadata row are one byte each: at most ${LIMITS.maxCountedRequests} requests with stateSlots, got ${n}` }];
}

/** The host cache's load back against what it needs: a prefix to load (spec/loadback.ts). */
function loadbackAgainstPrefixes(input: Input): InputIssue[] {
  if (input.loadback !== true) return [];
  if (!input.requests.some((q) => q.prefix !== undefined)) {
    return [{ path: 'loadback', message: 'loadback loads a prompt prefix back from host memory: it needs a request with a prefix (LEN:PREFIX in --requests)' }];
  }
  return [];
}
