/**
 * pagecheck's record of the files it wrote, so that it overwrites its own output and
 * nothing else. The decision is never taken from a file's first bytes (a user's file can
 * start like ours): a file may be replaced when the record holds its path with the hash
 * of exactly what is in it now, i.e. pagecheck wrote it and nobody changed it since; or
 * when the user says `--force`. The record is a small directory in the user's state
 * directory (`$PAGECHECK_STATE_DIR`, else `$XDG_STATE_HOME/pagecheck`, else
 * `~/.local/state/pagecheck`), one entry per written file, each replaced by an atomic
 * rename: two pagecheck processes writing at once (a CI job's parallel steps, a test
 * suite's workers) cannot lose each other's entries, as a shared file rewritten by both
 * would. Losing the record only makes pagecheck ask for `--force`.
 */
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { TraceInputError } from './errors.ts';

/** How many files the record remembers; the least recently written are forgotten first. */
const MAX_ENTRIES = 1000;

/** The record's directory. */
export function recordPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const dir = env['PAGECHECK_STATE_DIR'] ?? join(env['XDG_STATE_HOME'] ?? join(homedir(), '.local', 'state'), 'pagecheck');
  return join(dir, 'written');
}

/** The sha-256 of some text, as hex. */
function hash(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The record's entry for `path`: a file named by the hash of the absolute path, so that any path maps to one plain name. */
function entryPath(path: string): string {
  return join(recordPath(), hash(resolve(path)));
}

/** The hash recorded for `path` (the entry's first line; the second names the path, for a reader), or undefined. */
function recorded(path: string): string | undefined {
  try {
    return readFileSync(entryPath(path), 'utf8').split('\n')[0];
  } catch {
    return undefined;
  }
}

/** Whether pagecheck wrote the file at `path` and it is unchanged since. */
export function wroteIt(path: string): boolean {
  const digest = recorded(path);
  if (digest === undefined) return false;
  try {
    return hashOfFile(path) === digest;
  } catch {
    return false;
  }
}

/** Remembers that pagecheck wrote `text` to `path`; a record that cannot be written is not worth failing the command for. */
export function remember(path: string, text: string): void {
  rememberHash(path, hash(text));
}

/** Remembers a file pagecheck wrote piece by piece (a log), by the hash of what is in it now. */
export function rememberFile(path: string): void {
  try {
    rememberHash(path, hashOfFile(path));
  } catch {
    // As in remember: the next run asks for --force.
  }
}

/** The sha-256 of a file's bytes, read in chunks so that a large log is not held in memory. */
function hashOfFile(path: string): string {
  const digest = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) digest.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return digest.digest('hex');
}

/** A name no other process or call uses, for a temporary file beside the entries. */
let temporaries = 0;

/** Stores `digest` as the hash of what pagecheck last wrote to `path`: written aside, then renamed over the entry (atomic). */
function rememberHash(path: string, digest: string): void {
  try {
    const dir = recordPath();
    mkdirSync(dir, { recursive: true });
    const temporary = join(dir, `.${process.pid}.${temporaries++}.tmp`);
    writeFileSync(temporary, `${digest}\n${resolve(path)}\n`);
    renameSync(temporary, entryPath(path));
    forgetOldest(dir);
  } catch {
    // Without the record, the next run asks for --force: safe, if less convenient.
  }
}

/** Keeps the record at MAX_ENTRIES by removing the entries written longest ago; another process removing one first is fine. */
function forgetOldest(dir: string): void {
  const names = readdirSync(dir).filter((n) => !n.startsWith('.'));
  if (names.length <= MAX_ENTRIES) return;
  const aged = names.map((n) => ({ n, at: mtimeOf(join(dir, n)) })).sort((a, b) => a.at - b.at);
  for (const { n } of aged.slice(0, names.length - MAX_ENTRIES)) {
    try {
      unlinkSync(join(dir, n));
    } catch {
      // Gone already.
    }
  }
}

/** A file's modification time in ms, or 0 when it is gone. */
function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Whether this process may write `path` (a directory or a file). */
function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The one rule for every file pagecheck writes, checked before any work: refuses a missing
 * directory, a directory, something that is not a file, a place this process may not
 * write, and a file pagecheck did not write (unless `force`).
 */
export function checkOutputPath(flag: string, path: string, force: boolean): void {
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) throw new TraceInputError(`${flag} ${path}: the directory ${dirname(path)} does not exist`);
  if (!statSync(dir).isDirectory()) throw new TraceInputError(`${flag} ${path}: ${dirname(path)} is not a directory`);
  if (!existsSync(path)) {
    if (!writable(dir)) throw new TraceInputError(`${flag} ${path}: cannot write in the directory ${dirname(path)} (permission denied)`);
    return;
  }
  const stat = statSync(path);
  if (stat.isDirectory()) throw new TraceInputError(`${flag} ${path}: is a directory; name the file to write`);
  if (!stat.isFile()) throw new TraceInputError(`${flag} ${path}: exists and is not a file`);
  if (!force && !wroteIt(path)) {
    throw new TraceInputError(`${flag} ${path}: the file exists and pagecheck did not write it (or it changed since); name another file, or add --force to overwrite it`);
  }
  if (!writable(path)) throw new TraceInputError(`${flag} ${path}: cannot write the file (permission denied)`);
}

/** A file to write, with the flag that names it. */
export interface OutputTarget {
  /** The flag, as `--out`. */
  readonly flag: string;
  /** The path, as the user typed it. */
  readonly path: string;
}

/** {@link checkOutputPath} for several targets, refusing two flags that name one file, or an output that is also an input of the command. */
export function checkOutputPaths(targets: readonly OutputTarget[], force: boolean, inputs: readonly string[] = []): void {
  const seen = new Map<string, string>();
  const read = new Set(inputs.map((p) => resolve(p)));
  for (const t of targets) {
    const key = resolve(t.path);
    const other = seen.get(key);
    if (other !== undefined) throw new TraceInputError(`${other} and ${t.flag} name the same file ${t.path}`);
    if (read.has(key)) throw new TraceInputError(`${t.flag} ${t.path}: is also an input of this command; name another file`);
    seen.set(key, t.flag);
    checkOutputPath(t.flag, t.path, force);
  }
}

/** Writes an output file and records it; a failure is the user's to fix (exit 2). */
export function writeOutput(flag: string, path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (e) {
    throw new TraceInputError(`${flag} ${path}: cannot write (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  remember(path, text);
}
