/**
 * Reading a file the user named (a configuration, a trace, a workload, a simulation file),
 * so that every way of failing is one line and exit 2: a missing or unreadable file, a
 * directory, and input that never ends. The size limit counts the bytes as they are read,
 * not the size `stat` reports, since a device (`/dev/zero`) or a FIFO reports none and
 * would otherwise be read until memory runs out. A UTF-8 byte order mark, which some
 * editors write, is dropped before parsing. Numbers too large for a double (`1e400`) are
 * named as written, since `JSON.parse` turns them into Infinity and a schema would then
 * see `null`.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from './errors.ts';

/** The largest JSON file pagecheck reads: far above any trace, configuration or workload it writes. */
export const MAX_JSON_BYTES = 256 * 2 ** 20;

/** The deepest nesting of arrays and objects pagecheck accepts: its own files nest a handful of levels. */
export const MAX_JSON_DEPTH = 64;

/** Bytes read at once. */
const CHUNK = 1 << 20;

/** A failed system call as the user reads it: its error code (`ENOENT`, `EACCES`), else the message. */
export function describeErrno(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? String(e);
}

/** The text of a file, read with a limit that counts bytes; a {@link UsageError} naming `what` and the path for anything else. */
export function readInputText(path: string, what: string, limit: number = MAX_JSON_BYTES): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new UsageError(`cannot read ${what} ${path}: ${describeErrno(e)}`);
  }
  try {
    if (fstatSync(fd).isDirectory()) throw new UsageError(`cannot read ${what} ${path}: EISDIR, it is a directory; name a file`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd, buffer, 0, CHUNK, null);
      if (n === 0) break;
      total += n;
      if (total > limit) throw new UsageError(`${what} ${path} is larger than ${limit / 2 ** 20} MiB (the most pagecheck reads) and was not read to its end`);
      chunks.push(n === CHUNK ? buffer : buffer.subarray(0, n));
    }
    const text = Buffer.concat(chunks, total).toString('utf8');
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${what} ${path}: ${describeErrno(e)}`);
  } finally {
    closeSync(fd);
  }
}

/** The depth of the deepest array or object in `value`, counted without recursion, up to `limit + 1`. */
export function jsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The path (`pages`, `requests[1].length`) of the first number in `value` that is not finite, if any. */
function infinitePath(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return path;
    if (typeof v !== 'object' || v === null) continue;
    const entries = Array.isArray(v) ? v.map((x, i) => [`${path}[${i}]`, x] as const) : Object.entries(v).map(([k, x]) => [path === '' ? k : `${path}.${k}`, x] as const);
    for (const [p, x] of entries.reverse()) stack.push([x, p]);
  }
  return undefined;
}

/** The first number literal in `text` too large for a double, as written. */
function hugeLiteral(text: string): string | undefined {
  for (const m of text.matchAll(/-?\d+(?:\.\d+)?[eE][+-]?\d+|-?\d{309,}(?:\.\d+)?/g)) if (!Number.isFinite(Number(m[0]))) return m[0];
  return undefined;
}

/** Parses JSON text read from `path`, with one-line errors for malformed, too deeply nested, or too large numbers. */
export function parseJsonText(text: string, path: string, what: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (e) {
    const why = e instanceof RangeError ? 'it is nested too deeply to parse' : (e as Error).message;
    throw new UsageError(`${what} ${path} is not valid JSON: ${why}`);
  }
  if (jsonDepth(parsed) > MAX_JSON_DEPTH) {
    throw new UsageError(`${what} ${path}: arrays and objects are nested more than ${MAX_JSON_DEPTH} deep; pagecheck's files nest a few levels`);
  }
  const at = infinitePath(parsed);
  if (at !== undefined) {
    const literal = hugeLiteral(text);
    throw new UsageError(`${what} ${path}: ${at === '' ? '' : `${at}: `}${literal === undefined ? 'a number' : literal} is a number too large`);
  }
  return parsed;
}

/** Reads a JSON file (a configuration, a trace, a workload), with a clear one-line error for every way it can fail. */
export function readJsonFile(path: string, what: string): unknown {
  return parseJsonText(readInputText(path, what), path, what);
}
