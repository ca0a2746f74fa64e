/**
 * Following a log that is still being written (`validate-log --follow`): an operator
 * attaches the validator to a running server's log, and each line is held against the
 * spec as it arrives, so a violation or a deviation is printed as soon as the line that
 * proves it is written, not when the log ends.
 *
 * The validator already keeps only what the requests in flight need (a slot per request
 * in the window, a request's lines until it finishes), so following adds no memory that
 * grows with the log. A regular file is read from where the last read stopped; when it
 * has nothing new, the reader waits and looks again, and a line still being written waits
 * for its line break. A pipe, a FIFO or `-` (standard input) ends when its writer closes
 * it, and the log's verdict is then the whole log's. A followed file that shrinks, or that
 * is replaced by another under its name (log rotation), is an error: the lines already
 * read no longer describe the file, and the validator cannot know what was lost.
 */
import { read as readFd } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { StringDecoder } from 'node:string_decoder';
import { LineSplitter, LogReadError, type SourceLine } from './lines.ts';
import { lineValidator, type ValidateOptions, type ValidationResult } from './validate.ts';

/** How long the reader waits before looking at a file again when it had nothing new, in milliseconds. */
export const FOLLOW_POLL_MS = 200;

const CHUNK = 1 << 16;

/** What following needs besides the validator's options. */
export interface FollowOptions extends Omit<ValidateOptions, 'files' | 'lines'> {
  /** The log: a file, a FIFO, or `-` for standard input. */
  readonly file: string;
  /** The wait between looks at a file with nothing new; {@link FOLLOW_POLL_MS} when absent. */
  readonly pollMs?: number;
  /** Stops following: the verdict is then `incomplete`, with what was read. */
  readonly signal?: AbortSignal;
  /** Called whenever the reader has caught up with the writer (for the progress line and Ctrl-C's summary). */
  readonly onCaughtUp?: (events: number) => void;
  /** Opens the log ({@link openLog} when absent): a seam for tests, which cannot make a real read fail after a successful open (EIO). */
  readonly open?: (file: string) => Promise<OpenLog>;
}

/** Resolves after `ms`, or at once when `signal` is aborted. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** An open log: how to read its next bytes, whether it is a regular file, and how to let it go. */
export interface OpenLog {
  /** Reads into `buffer` at `position` (a regular file) or wherever the stream is (`null`); the bytes read, 0 at the end. */
  readonly read: (buffer: Buffer, position: number | null) => Promise<number>;
  /** Whether it is a regular file, which may grow after an end. */
  readonly regular: boolean;
  /** Its inode, to see it replaced. */
  readonly ino: number;
  /** Closes it (standard input is left open). */
  readonly close: () => Promise<void>;
}

const readStdin = promisify(readFd);

/** Opens the log; a failure is the user's to fix. Standard input is read from its descriptor, which a worker thread shares (its `process.stdin` is not the terminal's, and `/dev/stdin` cannot open a socket). */
async function openLog(file: string): Promise<OpenLog> {
  if (file === '-') return { read: async (buffer) => (await readStdin(0, buffer, 0, buffer.length, null)).bytesRead, regular: false, ino: 0, close: async () => undefined };
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    throw new LogReadError(`cannot read log ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const info = await handle.stat();
  if (info.isDirectory()) {
    await handle.close();
    throw new LogReadError(`cannot read log ${file}: EISDIR, it is a directory; name the log file`);
  }
  const h = handle;
  return { read: async (buffer, position) => (await h.read(buffer, 0, buffer.length, position)).bytesRead, regular: info.isFile(), ino: info.ino, close: () => h.close() };
}

/** Why a followed regular file can no longer be read on from where the reader is, if it cannot. */
async function replaced(file: string, ino: number, position: number): Promise<string | undefined> {
  let info;
  try {
    info = await stat(file);
  } catch (e) {
    return `it is gone (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
  }
  if (info.ino !== ino) return 'another file has taken its name (the log was rotated)';
  if (info.size < position) return `it shrank from ${position} to ${info.size} bytes (the log was truncated)`;
  return undefined;
}

/**
 * The lines of the log as they are written. `onIdle` is called each time the reader has
 * caught up; the generator ends when a pipe's writer closes it, or when `signal` aborts.
 */
export async function* followLines(file: string, pollMs: number, signal?: AbortSignal, onIdle?: () => void, opener: (file: string) => Promise<OpenLog> = openLog): AsyncGenerator<SourceLine> {
  const log = await opener(file);
  const { regular, ino } = log;
  const buffer = Buffer.alloc(CHUNK);
  const decoder = new StringDecoder('utf8');
  const lines = new LineSplitter(file);
  let position = 0;
  try {
    while (signal?.aborted !== true) {
      let n: number;
      try {
        // A regular file is read at the reader's own position, so that a write in progress is read on from where it was.
        n = await log.read(buffer, regular ? position : null);
      } catch (e) {
        // A descriptor in non-blocking mode (a terminal or pipe someone else set so) has nothing yet: wait as for a file.
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          onIdle?.();
          await pause(pollMs, signal);
          continue;
        }
        throw new LogReadError(`cannot read log ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
      }
      if (n > 0) {
        position += n;
        yield* lines.push(decoder.write(buffer.subarray(0, n)));
        continue;
      }
      // Nothing new: a pipe has ended; a file may grow yet.
      if (!regular) break;
      const why = await replaced(file, ino, position);
      if (why !== undefined) throw new LogReadError(`log ${file} cannot be followed any further: ${why}`);
      onIdle?.();
      await pause(pollMs, signal);
    }
    if (signal?.aborted !== true) {
      yield* lines.push(decoder.end());
      yield* lines.end();
    }
  } finally {
    await log.close();
  }
}

/**
 * Holds a log against the spec as it is written: resolves with the first violation or
 * deviation as soon as a line proves it; with the whole log's verdict when a pipe ends;
 * with `incomplete` (what was read conforms so far) when `signal` stops it.
 */
export async function validateFollow(options: FollowOptions): Promise<ValidationResult> {
  const v = lineValidator({ ...options, files: [options.file] });
  const idle = (): void => options.onCaughtUp?.(v.events);
  for await (const line of followLines(options.file, options.pollMs ?? FOLLOW_POLL_MS, options.signal, idle, options.open)) {
    const verdict = v.line(line);
    if (verdict !== undefined) return verdict;
  }
  const whole = v.end();
  if (options.signal?.aborted !== true) return whole;
  return { ...whole, verdict: 'incomplete', headline: [`stopped while following ${options.file}: the ${v.events} events read so far conform`] };
}
