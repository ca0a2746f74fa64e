/**
 * Writes a replay's events in the log format (docs/LOG-FORMAT.md), as a serving system
 * would log them: D logs the arrival, the allocation, the handoff, each decode and the
 * release; P logs its write when it posts it, its completion, or its refusal. The file
 * begins with the `config` event, so that `validate-log` needs nothing else.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { DEFAULT_FAULTS, Ph, type Variant } from '../spec/index.ts';
import type { PagePool } from '../impl/index.ts';
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
}

/** One JSON line per event, buffered, to a file. */
export class LogWriter {
  private readonly fd: number;
  private chunks: string[] = [];
  private size = 0;
  /** Lines written so far. */
  lines = 0;

  constructor(path: string, header: LogHeader) {
    this.fd = openSync(path, 'w');
    this.line({ kind: 'config', pages: header.pages, pageSize: header.pageSize, prefillLimit: header.prefillLimit, variant: header.variant, faults: DEFAULT_FAULTS[header.variant], allocator: header.allocator ?? 'sorted', ...(header.lengthRule === 'ge' ? { lengthRule: 'ge' } : {}) });
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

/** What the replay's pool did, as log events: call after each action it accepted. */
export function logAction(log: LogWriter, pool: PagePool, a: { kind: string; slot: number; request: number; tokens: number; time: number }): void {
  const id = `r${a.request}`;
  const t = time(a.time);
  const length = pool.lengths[a.slot] ?? 0;
  const row = pool.pageTable(a.slot);
  switch (a.kind) {
    case 'allocate':
      log.line({ t, side: 'D', kind: 'arrive', id, tokens: a.tokens });
      log.line({ t, side: 'D', kind: 'allocate', id, pages: compressPages(row, 0, length) });
      return;
    case 'write':
      if (pool.phase(a.slot) === Ph.refused) log.line({ t, side: 'P', kind: 'refuse', id });
      else if (pool.overLong(a.slot)) log.line({ t, side: 'P', kind: 'posted', id, pages: compressPages(row, 0, 1) });
      else log.line({ t, side: 'P', kind: 'posted', id, pages: compressPages(row, 0, length) });
      return;
    case 'handoff':
      log.line({ t, side: 'P', kind: 'done', id });
      log.line({ t, side: 'D', kind: 'handoff', id });
      return;
    case 'decode':
      log.line(pool.phase(a.slot) === Ph.failed ? { t, side: 'D', kind: 'fail', id } : { t, side: 'D', kind: 'decode', id, pages: compressPages(row, 0, length) });
      return;
    case 'free':
      log.line({ t, side: 'D', kind: 'free', id, pages: compressPages(row, 0, length) });
      return;
  }
}
