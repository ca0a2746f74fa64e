/**
 * Writes a replay's events in the log format (docs/LOG-FORMAT.md), as a serving system
 * would log them: D logs the arrival, the allocation, the handoff, each decode and the
 * release; P logs its write when it posts it, its completion, or its refusal. With a
 * serving replay (incident/serving.ts) D also logs each page a decode step takes (and the
 * step that reads it), retractions and resumes, timeouts and commit-time aborts, and a
 * release as SGLang's allocator calls (spec/release.ts); P logs the transfers it aborts.
 * With shared prefixes (`incident --prefixes`, the pool's cache the radix tree) an arrival
 * names its prefix, D logs each leaf the tree evicts for an admission and the tree's insert
 * at each handoff (with the duplicates it freed), and a release names only the pages past
 * the tree's. The file begins with the `config` event, so that `validate-log` needs
 * nothing else.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { DEFAULT_FAULTS, Ph, releaseCalls, type Variant } from '../spec/index.ts';
import type { PagePool } from '../impl/index.ts';
import { ServingRadixPool } from '../impl/serving-radix-pool.ts';
import { compressPages } from './events.ts';

/** The deployment a log describes. */
export interface LogHeader {
  /** D's pages. */
  readonly pages: number;
  /** Tokens per page. */
  readonly pageSize: number;
  /** P's limit, in pages. */
  readonly prefillLimit: number;
  /** The variant. */
  readonly variant: Variant;
  /** The allocation order the run used (`sorted` when left out). */
  readonly allocator?: 'sorted' | 'sglang' | 'lifo';
  /** The length rule the run used (`gt` when left out). */
  readonly lengthRule?: 'gt' | 'ge';
  /** Whether the replay took a serving deployment's steps (incident/serving.ts): fault `early-free`, `tableGrowth` and `retraction` on. */
  readonly serving?: boolean;
  /** With shared prefixes: each one's length in pages (prefix `g` is named `sys{g}`); config `radix` and `eviction` on. */
  readonly prefixLengths?: readonly number[];
}

/** The name a log gives prefix group `g`. */
export const prefixName = (g: number): string => `sys${g}`;

/** One JSON line per event, buffered, to a file. */
export class LogWriter {
  private readonly fd: number;
  private chunks: string[] = [];
  private size = 0;
  /** Lines written so far. */
  lines = 0;
  /** The request whose arrival was logged last (an eviction for its admission logs it first). */
  arrived = '';

  constructor(path: string, header: LogHeader) {
    this.fd = openSync(path, 'w');
    const serving = header.serving === true ? { tableGrowth: true, retraction: true } : {};
    const faults = header.serving === true ? [...DEFAULT_FAULTS[header.variant], 'early-free'] : DEFAULT_FAULTS[header.variant];
    const lengths = header.prefixLengths ?? [];
    const longer = Object.fromEntries(lengths.flatMap((k, g) => (k > 1 ? [[prefixName(g), k]] : [])));
    const radix = lengths.length > 0 ? { eviction: true, radix: true, ...(Object.keys(longer).length > 0 ? { prefixPages: longer } : {}) } : {};
    this.line({ kind: 'config', pages: header.pages, pageSize: header.pageSize, prefillLimit: header.prefillLimit, variant: header.variant, faults, allocator: header.allocator ?? 'sorted', ...(header.lengthRule === 'ge' ? { lengthRule: 'ge' } : {}), ...serving, ...radix });
  }

  /** Writes one event. */
  line(event: Readonly<Record<string, unknown>>): void {
    const text = `${JSON.stringify(event)}\n`;
    this.chunks.push(text);
    this.size += text.length;
    this.lines++;
    if (this.size > 1 << 20) this.flush();
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(''));
    this.chunks = [];
    this.size = 0;
  }

  /** Flushes and closes the file. */
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Times in logs: a few decimals of the replay's decode steps. */
const time = (t: number): number => Math.round(t * 1000) / 1000;

/** One action the replay reported: its kind, slot, request, prompt tokens, time, and the step or tokens it concerns (`detail`). */
export interface LoggedAction {
  /** The replay's action kind (incident/replay-types.ts). */
  readonly kind: string;
  /** The pool slot. */
  readonly slot: number;
  /** The request, by arrival index. */
  readonly request: number;
  /** Its prompt in tokens. */
  readonly tokens: number;
  /** Simulated time. */
  readonly time: number;
  /** For `grow` the decode step, for `resume` and `free` the tokens committed, for `evict` the page. */
  readonly detail?: number;
  /** For `evict`: the prefix of the request it makes room for. */
  readonly group?: number;
}

/** What the replay's pool did, as log events: call after each action it accepted. */
export function logAction(log: LogWriter, pool: PagePool, a: LoggedAction): void {
  if (logServing(log, pool, a)) return;
  const id = `r${a.request}`;
  const t = time(a.time);
  const length = pool.lengths[a.slot] ?? 0;
  const row = pool.pageTable(a.slot);
  switch (a.kind) {
    case 'allocate':
      arrive(log, pool, a);
      log.line({ t, side: 'D', kind: 'allocate', id, pages: compressPages(row, 0, length) });
      return;
    case 'write':
      // P writes past the pages a prefix hit shares (`send_metadata` sends `[prefix_len:]`).
      if (pool.phase(a.slot) === Ph.refused) log.line({ t, side: 'P', kind: 'refuse', id });
      else if (pool.overLong(a.slot)) log.line({ t, side: 'P', kind: 'posted', id, pages: compressPages(row, pool.sharedCount(a.slot), pool.sharedCount(a.slot) + 1) });
      else log.line({ t, side: 'P', kind: 'posted', id, pages: compressPages(row, pool.sharedCount(a.slot), length) });
      return;
    case 'handoff':
      log.line({ t, side: 'P', kind: 'done', id });
      log.line({ t, side: 'D', kind: 'handoff', id });
      insertAtHandoff(log, pool, a);
      return;
    case 'decode':
      log.line(pool.phase(a.slot) === Ph.failed ? { t, side: 'D', kind: 'fail', id } : { t, side: 'D', kind: 'decode', id, pages: compressPages(row, 0, length) });
      return;
    case 'free':
      if (a.detail === undefined) log.line({ t, side: 'D', kind: 'free', id, pages: compressPages(row, 0, length) });
      else logRelease(log, pool, a, a.detail);
      return;
  }
}

/** The request's arrival, once, with its prefix when it has one. */
function arrive(log: LogWriter, pool: PagePool, a: LoggedAction): void {
  const id = `r${a.request}`;
  if (log.arrived === id) return;
  log.arrived = id;
  // An eviction comes before the allocation: the slot's group is the request's only once it is allocated.
  const g = a.kind === 'evict' ? (a.group ?? -1) : (pool.groups[a.slot] ?? -1);
  log.line({ t: time(a.time), side: 'D', kind: 'arrive', id, tokens: a.tokens, ...(g >= 0 ? { prefix: prefixName(g) } : {}) });
}

/** The radix tree's insert at the handoff (`cache_unfinished_req`): the table's prefix pages as the tree left them, and the duplicates it freed. */
function insertAtHandoff(log: LogWriter, pool: PagePool, a: LoggedAction): void {
  const g = pool.groups[a.slot] ?? -1;
  const dups = pool instanceof ServingRadixPool ? pool.duplicatesOf(a.slot) : undefined;
  if (g < 0 || dups === undefined) return;
  const k = pool.prefixLengths[g] ?? 1;
  log.line({ t: time(a.time), side: 'D', kind: 'insert', id: `r${a.request}`, at: 'handoff', pages: compressPages(pool.pageTable(a.slot), 0, k), freed: compressPages(Int32Array.from(dups), 0, dups.length) });
}

/** The table entries a release freed from: past the pages the tree kept. */
const keptBy = (pool: PagePool, slot: number): number => (pool instanceof ServingRadixPool ? pool.keptBy(slot) : 0);

/** A serving replay's own actions as log events; whether `a` was one. */
function logServing(log: LogWriter, pool: PagePool, a: LoggedAction): boolean {
  const id = `r${a.request}`;
  const t = time(a.time);
  const length = pool.lengths[a.slot] ?? 0;
  const row = pool.pageTable(a.slot);
  switch (a.kind) {
    case 'evict':
      arrive(log, pool, a);
      log.line({ t, side: 'D', kind: 'evict', id, pages: [a.detail ?? 0] });
      return true;
    case 'grow':
      log.line({ t, side: 'D', kind: 'grow', id, pages: [row[length - 1] ?? 0] });
      log.line({ t, side: 'D', kind: 'decode', id, step: a.detail ?? 1, pages: compressPages(row, 0, length) });
      return true;
    case 'retract':
      log.line({ t, side: 'D', kind: 'retract', id, pages: compressPages(row, keptBy(pool, a.slot), length) });
      return true;
    case 'resume':
      log.line({ t, side: 'D', kind: 'resume', id, pages: compressPages(row, 0, length), ...(a.detail === undefined ? {} : { tokens: a.detail }) });
      return true;
    case 'timeout':
      log.line({ t, side: 'D', kind: 'timeout', id });
      log.line({ t, side: 'P', kind: 'abort', id });
      return true;
    case 'abortCommit':
      log.line({ t, side: 'P', kind: 'done', id });
      log.line({ t, side: 'D', kind: 'abortCommit', id, pages: compressPages(row, keptBy(pool, a.slot), length) });
      return true;
    default:
      return false;
  }
}

/** A release as SGLang's allocator calls (spec/release.ts): `free` of the tail page where the committed tokens end mid-page, then `free_segment` of the rest. */
function logRelease(log: LogWriter, pool: PagePool, a: LoggedAction, committed: number): void {
  const length = pool.lengths[a.slot] ?? 0;
  const row = pool.pageTable(a.slot);
  const shared = keptBy(pool, a.slot);
  const g = pool.groups[a.slot] ?? -1;
  const calls = releaseCalls({ shared, prefix: g >= 0 && shared > 0 ? (pool.prefixLengths[g] ?? 1) : 0, pages: length, tokens: committed, pageSize: pool.options.pageSize ?? 1, overlap: false });
  for (const c of calls) log.line({ t: time(a.time), side: 'D', kind: 'free', id: `r${a.request}`, pages: compressPages(row, c.from, c.to) });
}
