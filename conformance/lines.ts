/**
 * Reading logs as a stream: each file line by line in fixed-size chunks (memory does not
 * grow with the file), and several files merged into one sequence by their events' time,
 * so that P's and D's logs can be checked together. An event without a time keeps the time
 * of the event before it in its own file; ties keep the files' order as given.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** One line of one file: where it is, and its text. */
export interface SourceLine {
  /** The file, as the user named it. */
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
  /** The text, without its line break. */
  readonly text: string;
}

/** A file that cannot be read: the validator reports it as bad input. */
export class LogReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogReadError';
  }
}

const CHUNK = 1 << 20;

/** The longest line read: far above any event, and a bound on memory for input with no line breaks (`/dev/zero`). */
export const MAX_LINE_BYTES = 16 * 2 ** 20;

/** Reads the next chunk; a failure (EISDIR, EIO) is the user's to fix. */
function readChunk(fd: number, buffer: Buffer, file: string): number {
  try {
    return readSync(fd, buffer, 0, CHUNK, null);
  } catch (e) {
    throw new LogReadError(`cannot read log ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

/**
 * Cuts text that arrives in pieces into the log's lines: a line is complete at its line
 * break, a carriage return before it is dropped, blank lines are skipped, and a byte order
 * mark at the very start is not part of the first event. One splitter serves a whole file
 * read at once and a log followed as it grows (`follow.ts`), so both count lines alike.
 */
export class LineSplitter {
  private rest = '';
  private line = 0;
  private first = true;

  constructor(private readonly file: string) {}

  /** The lines completed by `text`, the next piece of the file. */
  push(text: string): SourceLine[] {
    let read = this.rest + text;
    if (this.first && read.length > 0) {
      // A byte order mark, which some editors write, is not part of the first event.
      if (read.charCodeAt(0) === 0xfeff) read = read.slice(1);
      this.first = false;
    }
    const out: SourceLine[] = [];
    let start = 0;
    for (let nl = read.indexOf('\n'); nl >= 0; nl = read.indexOf('\n', start)) {
      this.line++;
      const body = read.charCodeAt(nl - 1) === 13 ? read.slice(start, nl - 1) : read.slice(start, nl);
      if (body.trim() !== '') out.push({ file: this.file, line: this.line, text: body });
      start = nl + 1;
    }
    this.rest = read.slice(start);
    if (this.rest.length > MAX_LINE_BYTES) throw new LogReadError(`log ${this.file}: line ${this.line + 1} is longer than ${MAX_LINE_BYTES / 2 ** 20} MiB with no line break; a log holds one JSON event per line`);
    return out;
  }

  /** The last line, if the file ends without a line break. */
  end(): SourceLine[] {
    return this.rest.trim() === '' ? [] : [{ file: this.file, line: this.line + 1, text: this.rest }];
  }

  /** Whether a line has begun and not yet ended (a writer in the middle of a line). */
  get partial(): boolean {
    return this.rest !== '';
  }
}

/** The non-blank lines of a file, read in 1 MiB chunks. */
export function* fileLines(file: string): Generator<SourceLine> {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new LogReadError(`cannot read log ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  if (fstatSync(fd).isDirectory()) {
    closeSync(fd);
    throw new LogReadError(`cannot read log ${file}: EISDIR, it is a directory; name the log files`);
  }
  const buffer = Buffer.alloc(CHUNK);
  const decoder = new StringDecoder('utf8');
  const lines = new LineSplitter(file);
  try {
    for (;;) {
      const n = readChunk(fd, buffer, file);
      if (n === 0) break;
      yield* lines.push(decoder.write(buffer.subarray(0, n)));
    }
    yield* lines.push(decoder.end());
    yield* lines.end();
  } finally {
    closeSync(fd);
  }
}

/** A line with the time its event carries (or inherits), for merging. */
export interface TimedLine extends SourceLine {
  /** The event's `t`, or the previous event's in the same file; -Infinity before the first. */
  readonly time: number;
}

/** The `t` field of a line without decoding the whole event; `undefined` when it has none that parses. */
function peekTime(text: string): number | undefined {
  const at = text.indexOf('"t"');
  if (at < 0) return undefined;
  const m = /^"t"\s*:\s*(-?[0-9.eE+-]+)/.exec(text.slice(at, at + 40));
  const value = m === null ? Number.NaN : Number(m[1]);
  return Number.isFinite(value) ? value : undefined;
}

/** The lines of several files, merged by time; one file streams as it is. */
export function* mergedLines(files: readonly string[]): Generator<SourceLine> {
  const [only] = files;
  if (files.length === 1 && only !== undefined) {
    yield* fileLines(only);
    return;
  }
  const streams = files.map((f) => fileLines(f));
  const heads: Array<TimedLine | undefined> = [];
  const last = files.map(() => Number.NEGATIVE_INFINITY);
  const advance = (k: number): void => {
    const next = streams[k]?.next();
    if (next === undefined || next.done === true) {
      heads[k] = undefined;
      return;
    }
    const t = peekTime(next.value.text) ?? last[k] ?? Number.NEGATIVE_INFINITY;
    last[k] = t;
    heads[k] = { ...next.value, time: t };
  };
  for (let k = 0; k < files.length; k++) advance(k);
  for (;;) {
    let best = -1;
    for (let k = 0; k < heads.length; k++) {
      const h = heads[k];
      if (h !== undefined && (best < 0 || h.time < (heads[best]?.time ?? 0))) best = k;
    }
    if (best < 0) return;
    const line = heads[best];
    if (line !== undefined) yield line;
    advance(best);
  }
}
